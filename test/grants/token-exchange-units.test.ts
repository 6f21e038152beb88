/**
 * The two-step exchange called directly with a recording fetch: a request without a body (a GET
 * sign-in) sends no body and no content type, a form body is encoded as a form, the lifetime
 * comes from the answer or the scheme, and a `tokenConfig` value the answer lacks fails with a
 * sentence naming the token answer.
 */
import { describe, expect, it } from "vitest";
import type { HandlerContext } from "../../src/context/context.js";
import type { TokenExchangeScheme } from "../../src/credentials/grant-schemes.js";
import { GRANTS, GrantError } from "../../src/grants/index.js";
import { defineToolkit } from "../../src/index.js";

const toolkit = defineToolkit({
  slug: "acme",
  name: "Acme",
  description: "An API.",
  baseUrl: "https://api.acme.test/v1",
  auth: { type: "none" },
  tools: [],
});

interface Sent {
  url: string;
  method: string | undefined;
  headers: Record<string, string>;
  body: unknown;
  hasBody: boolean;
}

function exchange(request: TokenExchangeScheme["request"], answer: unknown, more: Partial<TokenExchangeScheme> = {}) {
  const sent: Sent[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    sent.push({
      url: String(url),
      method: init.method,
      headers: init.headers as Record<string, string>,
      body: init.body,
      hasBody: "body" in init,
    });
    return Response.json(answer);
  }) as unknown as typeof globalThis.fetch;
  const run = GRANTS.tokenExchange({
    ctx: { fetch } as unknown as HandlerContext,
    toolkit,
    scheme: { type: "tokenExchange", fields: [{ name: "apiKey", label: "API key" }], request, token: "token", ...more },
    credential: { apiKey: "key-123" },
    config: {},
    signal: new AbortController().signal,
  });
  return { sent, run };
}

describe("a two-step exchange", () => {
  it("sends a request without a body as it is: no body, no content type", async () => {
    const { sent, run } = exchange(
      { url: "https://auth.acme.test/session", method: "GET", headers: { "X-Key": "{apiKey}" } },
      { token: "t1" },
    );
    expect(await run).toEqual({ accessToken: "t1" });
    expect(sent).toEqual([
      {
        url: "https://auth.acme.test/session",
        method: "GET",
        headers: { accept: "application/json", "x-key": "key-123" },
        body: undefined,
        hasBody: false,
      },
    ]);
  });

  it("encodes a form body as a form, and a JSON body as JSON", async () => {
    const form = exchange(
      { url: "https://auth.acme.test/session", format: "form", body: { key: "{apiKey}", kind: "a b" } },
      { token: "t" },
    );
    await form.run;
    expect(form.sent[0]!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(form.sent[0]!.body).toBe("key=key-123&kind=a+b");
    const json = exchange({ url: "https://auth.acme.test/session", body: { credentials: { key: "{apiKey}" } } }, { token: "t" });
    await json.run;
    expect(json.sent[0]!.headers["content-type"]).toBe("application/json");
    expect(json.sent[0]!.body).toBe('{"credentials":{"key":"key-123"}}');
  });

  it("takes the lifetime from the answer, else from the scheme, else none", async () => {
    const request = { url: "https://auth.acme.test/session", body: {} };
    expect(await exchange(request, { token: "t", ttl: 60 }, { expiresIn: "ttl", lifetime: 900 }).run).toEqual({
      accessToken: "t",
      expiresIn: 60,
    });
    expect(await exchange(request, { token: "t" }, { lifetime: 900 }).run).toEqual({ accessToken: "t", expiresIn: 900 });
    const none = await exchange(request, { token: "t" }).run;
    expect(none).toEqual({ accessToken: "t" });
    expect(Object.keys(none)).toEqual(["accessToken"]);
  });

  it("keeps tokenConfig values, and names the token answer when one is missing", async () => {
    const request = { url: "https://auth.acme.test/session", body: {} };
    const kept = await exchange(request, { token: "t", site: { id: "s-1" } }, { tokenConfig: { siteId: "site.id" } }).run;
    expect(kept).toEqual({ accessToken: "t", config: { siteId: "s-1" } });
    const failure = await exchange(request, { token: "t" }, { tokenConfig: { siteId: "site.id" } }).run.then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(GrantError);
    expect((failure as GrantError).kind).toBe("answer");
    expect((failure as Error).message).toMatch(/token answer/);
    expect((failure as Error).message).not.toContain("key-123");
  });
});
