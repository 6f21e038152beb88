/**
 * A provider's own token request (src/oauth/token-template.ts), as Instagram's token upgrade and
 * refresh use it: which values fill the template, where they go for a GET and for a POST, and what
 * each kind of answer means. The requests go through the handler's `fetch` (the `fetch` option),
 * here a function that records each request and answers as a provider would;
 * test/catalog/flows/instagram.test.ts proves the same requests end to end over real HTTP.
 */
import { describe, expect, it } from "vitest";
import type { HandlerContext } from "../../src/context/context.js";
import type { OAuth2Scheme, TokenRequestTemplate } from "../../src/credentials/auth-schemes.js";
import { TokenTemplateError, templateTokenRequest } from "../../src/oauth/token-template.js";
import type { Toolkit } from "../../src/toolkits/define.js";

interface Seen {
  url: URL;
  method: string | undefined;
  headers: Headers;
  body: unknown;
  signal: AbortSignal | undefined;
}

function context(answer: (seen: Seen) => Response | Promise<Response>, proxyMs = 30_000) {
  const seen: Seen[] = [];
  const fetch = (async (input: string | URL, init: RequestInit = {}) => {
    const entry: Seen = {
      url: new URL(String(input)),
      method: init.method,
      headers: new Headers(init.headers),
      body: init.body,
      signal: init.signal ?? undefined,
    };
    seen.push(entry);
    return answer(entry);
  }) as typeof globalThis.fetch;
  const ctx = { fetch, timeouts: { toolMs: 30_000, proxyMs } } as unknown as HandlerContext;
  return { ctx, seen };
}

const toolkit = { slug: "acme", name: "Acme", baseUrls: ["https://graph.acme.test/v2/"], inputs: [] } as unknown as Toolkit;
const scheme = {
  type: "oauth2",
  authorizationUrl: "https://acme.test/authorize",
  tokenUrl: "https://acme.test/token",
  clientId: "client-7",
  clientSecret: "secret-9",
  scopes: [],
} as OAuth2Scheme;
const tokens = { accessToken: "at-1", refreshToken: "rt-2" };
const every: TokenRequestTemplate = {
  url: "https://graph.acme.test/access_token",
  params: {
    grant_type: "ig_exchange_token",
    access_token: "{accessToken}",
    refresh_token: "{refreshToken}",
    client_id: "{clientId}",
    client_secret: "{clientSecret}",
    both: "{clientId}:{clientSecret}",
    unknown: "x{other}y",
    plain: "{ not a name }",
  },
};
const filled = {
  grant_type: "ig_exchange_token",
  access_token: "at-1",
  refresh_token: "rt-2",
  client_id: "client-7",
  client_secret: "secret-9",
  both: "client-7:secret-9",
  unknown: "xy",
  plain: "{ not a name }",
};
const issued = () => Response.json({ access_token: "at-long", token_type: "bearer", expires_in: 5183944 });

describe("templateTokenRequest: the request", () => {
  it("POSTs the filled params as a form by default, asking for JSON", async () => {
    const { ctx, seen } = context(issued);
    expect(await templateTokenRequest(ctx, toolkit, scheme, every, tokens, {})).toStrictEqual({
      access_token: "at-long",
      token_type: "bearer",
      expires_in: 5183944,
    });
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request!.method).toBe("POST");
    expect(request!.url.href).toBe("https://graph.acme.test/access_token");
    expect(request!.headers.get("accept")).toBe("application/json");
    expect(request!.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    expect(typeof request!.body).toBe("string");
    expect(Object.fromEntries(new URLSearchParams(request!.body as string))).toStrictEqual(filled);
  });

  it("GETs with the filled params in the query, without a body or a content type", async () => {
    const { ctx, seen } = context(issued);
    await templateTokenRequest(
      ctx,
      toolkit,
      scheme,
      { ...every, url: "https://graph.acme.test/access_token?x=1", method: "GET" },
      tokens,
      {},
    );
    const [request] = seen;
    expect(request!.method).toBe("GET");
    expect(Object.fromEntries(request!.url.searchParams)).toStrictEqual({ x: "1", ...filled });
    expect(request!.body).toBeUndefined();
    expect(request!.headers.get("content-type")).toBeNull();
    expect(request!.headers.get("accept")).toBe("application/json");
  });

  it("fills a missing refresh token and a public client's secret with nothing", async () => {
    const { ctx, seen } = context(issued);
    const { clientSecret: _, ...publicClient } = scheme;
    await templateTokenRequest(ctx, toolkit, publicClient as OAuth2Scheme, { ...every, method: "POST" }, { accessToken: "at-1" }, {});
    expect(Object.fromEntries(new URLSearchParams(seen[0]!.body as string))).toStrictEqual({
      ...filled,
      refresh_token: "",
      client_secret: "",
      both: "client-7:",
    });
  });

  it("takes a path under the toolkit's first base URL, and fills the URL from the connection's config", async () => {
    const { ctx, seen } = context(issued);
    await templateTokenRequest(ctx, toolkit, scheme, { url: "/refresh_access_token", method: "GET", params: {} }, tokens, {});
    expect(seen[0]!.url.href).toBe("https://graph.acme.test/v2/refresh_access_token");
    await templateTokenRequest(ctx, toolkit, scheme, { url: "https://{region}.acme.test/token", params: {} }, tokens, { region: "eu" });
    expect(seen[1]!.url.href).toBe("https://eu.acme.test/token");
  });

  it("uses the caller's signal, else the handler's proxy timeout", async () => {
    const { ctx, seen } = context(issued);
    const signal = new AbortController().signal;
    await templateTokenRequest(ctx, toolkit, scheme, every, tokens, {}, signal);
    expect(seen[0]!.signal).toBe(signal);

    const slow = context(
      (request) =>
        new Promise<Response>((_, reject) =>
          request.signal?.addEventListener("abort", () => reject(request.signal?.reason), { once: true }),
        ),
      20,
    );
    await expect(templateTokenRequest(slow.ctx, toolkit, scheme, every, tokens, {})).rejects.toThrow();
    expect(slow.seen[0]!.signal?.aborted).toBe(true);
  });
});

describe("templateTokenRequest: the answer", () => {
  it("is read as a token endpoint's", async () => {
    const { ctx } = context(
      () => new Response("access_token=at-3&expires_in=60", { headers: { "content-type": "application/x-www-form-urlencoded" } }),
    );
    expect(await templateTokenRequest(ctx, toolkit, scheme, every, tokens, {})).toStrictEqual({
      access_token: "at-3",
      expires_in: 60,
      token_type: "bearer",
    });
  });

  it.each([
    ["a refusal with an RFC 6749 error", () => Response.json({ error: "invalid_grant" }, { status: 400 }), 400, "invalid_grant"],
    [
      "a refusal with Meta's error object",
      () => Response.json({ error: { code: 190, type: "OAuthException" } }, { status: 400 }),
      400,
      undefined,
    ],
    [
      "an HTML error page",
      () => new Response("<html>down</html>", { status: 503, headers: { "content-type": "text/html" } }),
      503,
      undefined,
    ],
    ["a 200 with an error", () => Response.json({ error: "invalid_request" }), 400, "invalid_request"],
    ["a 200 without an access token", () => Response.json({ token_type: "bearer" }), 200, undefined],
    ["a 200 with an empty access token", () => Response.json({ access_token: "" }), 200, undefined],
    ["a 200 with an access token that is not text", () => Response.json({ access_token: 12345 }), 200, undefined],
    ["a 200 that is not JSON", () => new Response("<html>ok</html>", { headers: { "content-type": "text/html" } }), 200, undefined],
  ])("%s throws TokenTemplateError with the status and the error", async (_, answer, status, error) => {
    const { ctx } = context(answer);
    const thrown = await templateTokenRequest(ctx, toolkit, scheme, every, tokens, {}).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(TokenTemplateError);
    expect(thrown).toMatchObject({ status, error });
    expect((thrown as Error).message).toBe(`the provider's token request answered ${status}${error ? ` (${error})` : ""}`);
  });

  it("says the status alone when there is no error code, and both when there is one", () => {
    expect(new TokenTemplateError(400, "invalid_grant").message).toBe("the provider's token request answered 400 (invalid_grant)");
    expect(new TokenTemplateError(502, undefined).message).toBe("the provider's token request answered 502");
    expect(new TokenTemplateError(400, "").message).toBe("the provider's token request answered 400");
  });
});
