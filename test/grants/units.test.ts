/**
 * The grant functions and their helpers called directly, with a recording fetch: every option of a
 * scheme changes the request as its doc comment says, and every answer that cannot be used fails
 * with the sentence the engine shows.
 */
import { describe, expect, it } from "vitest";
import type { HandlerContext } from "../../src/context/context.js";
import type { ClientCredentialsScheme, TokenExchangeScheme } from "../../src/credentials/auth-schemes.js";
import {
  fillJson,
  fillTemplate,
  GRANTS,
  GrantError,
  grantFields,
  grantSecrets,
  providerSentence,
  readToken,
} from "../../src/grants/index.js";
import { defineToolkit } from "../../src/index.js";

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function recorder(answer: () => Response) {
  const sent: Sent[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    sent.push({
      url: String(url),
      method: init.method ?? "GET",
      headers: Object.fromEntries(Object.entries(init.headers as Record<string, string>)),
      body: init.body as string | undefined,
    });
    return answer();
  }) as unknown as typeof globalThis.fetch;
  return { sent, ctx: { fetch } as unknown as HandlerContext };
}

const toolkit = defineToolkit({
  slug: "acme",
  name: "Acme",
  description: "An API.",
  baseUrl: "https://api.acme.test/v1",
  auth: { type: "none" },
  tools: [],
});
const signal = new AbortController().signal;

function cc(
  scheme: Partial<ClientCredentialsScheme>,
  credential: Record<string, string> = { clientId: "id", clientSecret: "s3cr:t" },
  config = {},
) {
  const { sent, ctx } = recorder(() => Response.json({ access_token: "tok", expires_in: 60, team: { id: "t-1" } }));
  const run = GRANTS.clientCredentials({
    ctx,
    toolkit,
    scheme: { type: "clientCredentials", tokenUrl: "https://auth.acme.test/token", ...scheme },
    credential,
    config,
    signal,
  });
  return { sent, run };
}

describe("clientCredentials", () => {
  it("defaults: Basic client, grant_type=client_credentials only, JSON accepted, the lifetime read", async () => {
    const { sent, run } = cc({});
    expect(await run).toEqual({ accessToken: "tok", expiresIn: 60 });
    expect(sent).toEqual([
      {
        url: "https://auth.acme.test/token",
        method: "POST",
        headers: {
          accept: "application/json",
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${btoa("id:s3cr:t")}`,
        },
        body: "grant_type=client_credentials",
      },
    ]);
  });

  it("post auth, form-encoded Basic, scopes joined, audience and params filled, a grant type of its own", async () => {
    const posted = cc({ tokenEndpointAuthMethod: "client_secret_post", scopes: ["a", "b"], scopeSeparator: "," });
    await posted.run;
    expect(posted.sent[0]!.headers.authorization).toBeUndefined();
    expect(posted.sent[0]!.body).toBe("grant_type=client_credentials&scope=a%2Cb&client_id=id&client_secret=s3cr%3At");
    const spaced = cc({ scopes: ["a", "b"] });
    await spaced.run;
    expect(spaced.sent[0]!.body).toBe("grant_type=client_credentials&scope=a+b");
    const form = cc({ clientBasicEncoding: "form" });
    await form.run;
    expect(form.sent[0]!.headers.authorization).toBe(`Basic ${btoa("id:s3cr%3At")}`);
    const zoom = cc(
      {
        grantType: "account_credentials",
        tokenParams: { account_id: "{accountId}" },
        audience: "https://{tenant}.acme.test/api/",
        tokenUrl: "https://{tenant}.acme.test/token",
      },
      { clientId: "id", clientSecret: "s", accountId: "acc-1" },
      { tenant: "t1" },
    );
    await zoom.run;
    expect(zoom.sent[0]!.url).toBe("https://t1.acme.test/token");
    expect(zoom.sent[0]!.body).toBe("grant_type=account_credentials&account_id=acc-1&audience=https%3A%2F%2Ft1.acme.test%2Fapi%2F");
  });

  it("the deployer's client, not the typed one; none configured is refused with the scheme's sentence", async () => {
    const deployer = cc({ client: "deployer", clientId: "dep", clientSecret: "depsecret" }, {});
    await deployer.run;
    expect(deployer.sent[0]!.headers.authorization).toBe(`Basic ${btoa("dep:depsecret")}`);
    await expect(cc({ client: "deployer", unconfigured: "Set the variables." }, {}).run).rejects.toThrow("Set the variables.");
    await expect(cc({}, { clientId: "id" }).run).rejects.toThrow(/client id and client secret are both needed/);
  });

  it("an answer without expires_in has no lifetime; tokenConfig values come back as config, and a missing one names it", async () => {
    const { ctx } = recorder(() => Response.json({ access_token: "tok", team: { id: "t-1" } }));
    const scheme: ClientCredentialsScheme = {
      type: "clientCredentials",
      tokenUrl: "https://auth.acme.test/token",
      tokenConfig: { teamId: "team.id" },
    };
    expect(
      await GRANTS.clientCredentials({ ctx, toolkit, scheme, credential: { clientId: "i", clientSecret: "s" }, config: {}, signal }),
    ).toEqual({
      accessToken: "tok",
      config: { teamId: "t-1" },
    });
    const missing = GRANTS.clientCredentials({
      ctx,
      toolkit,
      scheme: { ...scheme, tokenConfig: { orgId: "org.id" } },
      credential: { clientId: "i", clientSecret: "s" },
      config: {},
      signal,
    });
    await expect(missing).rejects.toMatchObject({ kind: "answer", message: expect.stringContaining('"org.id"') });
  });
});

function exchange(scheme: Partial<TokenExchangeScheme>, answer: unknown = { token: "tok", ttl: 30 }, status = 200) {
  const { sent, ctx } = recorder(() => Response.json(answer, { status }));
  const run = GRANTS.tokenExchange({
    ctx,
    toolkit,
    scheme: {
      type: "tokenExchange",
      fields: [{ name: "apiKey", label: "API key" }],
      request: { url: "/session" },
      token: "token",
      ...scheme,
    },
    credential: { apiKey: "k&y-1234" },
    config: { org: "o1" },
    signal,
  });
  return { sent, run };
}

describe("tokenExchange", () => {
  it("a JSON body by default, under the base URL, fields and config filled, headers templated and lowercased", async () => {
    const { sent, run } = exchange({
      request: {
        url: "/session",
        headers: { "X-Org": "{org}" },
        body: { key: "{apiKey}", org: "{org}", n: 1, list: ["{org}"], none: null },
      },
      expiresIn: "ttl",
    });
    expect(await run).toEqual({ accessToken: "tok", expiresIn: 30 });
    expect(sent).toEqual([
      {
        url: "https://api.acme.test/v1/session",
        method: "POST",
        headers: { accept: "application/json", "content-type": "application/json", "x-org": "o1" },
        body: '{"key":"k&y-1234","org":"o1","n":1,"list":["o1"],"none":null}',
      },
    ]);
  });

  it("a form body, a GET without body, the lifetime from the scheme, an expiry date read", async () => {
    const form = exchange({
      request: { url: "https://auth.acme.test/{org}/token", format: "form", body: { key: "{apiKey}" } },
      lifetime: 99,
    });
    expect(await form.run).toEqual({ accessToken: "tok", expiresIn: 99 });
    expect(form.sent[0]!.url).toBe("https://auth.acme.test/o1/token");
    expect(form.sent[0]!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(form.sent[0]!.body).toBe("key=k%26y-1234");
    const get = exchange({ request: { url: "/session", method: "GET" } });
    await get.run;
    expect(get.sent[0]!.method).toBe("GET");
    expect(get.sent[0]!.body).toBeUndefined();
    expect(get.sent[0]!.headers).toEqual({ accept: "application/json" });
    const at = new Date(Date.now() + 120_000).toISOString();
    const dated = exchange({ expiresAt: "session.until" }, { token: "tok", session: { until: at } });
    const { expiresIn } = await dated.run;
    expect(expiresIn).toBeGreaterThanOrEqual(118);
    expect(expiresIn).toBeLessThanOrEqual(120);
  });

  it("tokenConfig values, and a refusal with the provider's sentence", async () => {
    const kept = exchange({ tokenConfig: { siteId: "site.id" } }, { token: "tok", site: { id: "s-1" } });
    expect(await kept.run).toEqual({ accessToken: "tok", config: { siteId: "s-1" } });
    const lost = exchange({ tokenConfig: { siteId: "site.id" } }, { token: "tok" });
    await expect(lost.run).rejects.toMatchObject({ kind: "answer" });
    const refused = exchange({}, { message: "Key k&y-1234 is revoked" }, 403);
    await expect(refused.run).rejects.toMatchObject({
      kind: "refused",
      message: "Acme refused the credentials (403: Key [redacted] is revoked). Check them and connect again.",
    });
  });
});

describe("token answers", () => {
  const named = { name: "Acme" };
  it("reads the token and a lifetime given as a number or digits; anything else names the field", () => {
    expect(readToken(named, { a: { t: "x" }, e: "120" }, { token: "a.t", expiresIn: "e" })).toEqual({ accessToken: "x", expiresIn: 120 });
    expect(readToken(named, { t: "x", e: 12.7 }, { token: "t", expiresIn: "e" })).toEqual({ accessToken: "x", expiresIn: 12 });
    expect(readToken(named, { t: "x", e: 0 }, { token: "t", expiresIn: "e" })).toEqual({ accessToken: "x", expiresIn: 0 });
    for (const e of [-1, "1h", null, Number.POSITIVE_INFINITY, "12.5"]) {
      expect(() => readToken(named, { t: "x", e }, { token: "t", expiresIn: "e" })).toThrow('"e" (the token\'s lifetime in seconds)');
    }
    for (const t of ["", 5, undefined, { x: 1 }]) {
      expect(() => readToken(named, { t }, { token: "t" })).toThrow(/^Acme's token answer has no usable "t" \(the access token\)/);
    }
    expect(readToken(named, { t: "x" }, { token: "t" })).toEqual({ accessToken: "x" });
  });

  it("an expiry as epoch seconds or a date; a past one is zero; nonsense names the field", () => {
    const soon = Math.floor(Date.now() / 1000) + 300;
    const read = readToken(named, { t: "x", at: soon }, { token: "t", expiresAt: "at" });
    expect(read.expiresIn).toBeGreaterThanOrEqual(298);
    expect(read.expiresIn).toBeLessThanOrEqual(300);
    expect(readToken(named, { t: "x", at: "2000-01-01T00:00:00Z" }, { token: "t", expiresAt: "at" }).expiresIn).toBe(0);
    for (const at of ["soon", null, true]) {
      expect(() => readToken(named, { t: "x", at }, { token: "t", expiresAt: "at" })).toThrow('"at" (the token\'s expiry)');
    }
  });

  it("the provider's sentence: the first field that holds one, on one line, secrets removed, at most 200 characters", () => {
    expect(providerSentence({ error: "invalid_client", error_description: "Bad\nclient" }, [])).toBe("Bad client");
    expect(providerSentence({ error: { message: "m", detail: "d" } }, [])).toBe("m");
    expect(providerSentence({ error: { detail: "d" } }, [])).toBe("d");
    expect(providerSentence({ errorMessage: "e", message: "m" }, [])).toBe("e");
    expect(providerSentence({ message: "m", error: "x" }, [])).toBe("m");
    expect(providerSentence({ error: "x", reason: "r" }, [])).toBe("x");
    expect(providerSentence({ errors: [{ message: "first" }] }, [])).toBe("first");
    expect(providerSentence({ reason: "r" }, [])).toBe("r");
    expect(providerSentence({ message: "  ", reason: "r" }, [])).toBe("r");
    expect(providerSentence({ message: "key abcd and abc" }, ["abcd", "abc"])).toBe("key [redacted] and abc");
    expect(providerSentence({ message: "x".repeat(300) }, [])).toBe(`${"x".repeat(199)}…`);
    expect(providerSentence({ message: "x".repeat(200) }, [])).toBe("x".repeat(200));
    expect(providerSentence(undefined, [])).toBeUndefined();
    expect(providerSentence({ code: 1 }, [])).toBeUndefined();
  });

  it("a provider that is down or answers no JSON is not a refusal", async () => {
    for (const answer of [() => new Response("oops", { status: 502 }), () => new Response("<html>", { status: 200 })]) {
      const { ctx } = recorder(answer);
      const run = GRANTS.tokenExchange({
        ctx,
        toolkit,
        scheme: { type: "tokenExchange", fields: [], request: { url: "/s" }, token: "t" },
        credential: {},
        config: {},
        signal,
      });
      const error = await run.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(GrantError);
      expect((error as Error).message).toMatch(/^Acme's token endpoint answered (502|200) without a JSON token answer\.$/);
    }
  });
});

describe("token answers that cannot be read", () => {
  const run = (answer: () => Response) =>
    GRANTS.tokenExchange({
      ctx: recorder(answer).ctx,
      toolkit,
      scheme: { type: "tokenExchange", fields: [], request: { url: "/s" }, token: "t" },
      credential: {},
      config: {},
      signal,
    });

  it("a body that breaks off is that failure, not a missing answer", async () => {
    const broken = new Error("socket hang up");
    const body = new ReadableStream({
      pull(controller) {
        controller.error(broken);
      },
    });
    await expect(run(() => new Response(body))).rejects.toBe(broken);
  });

  it("an answer larger than 256 KiB is no answer", async () => {
    const huge = JSON.stringify({ t: "x".repeat(256 * 1024) });
    await expect(run(() => new Response(huge))).rejects.toThrow("Acme's token endpoint answered 200 without a JSON token answer.");
  });
});

describe("templates and fields", () => {
  it("fills known names, empties unknown ones, keeps JSON shapes", () => {
    expect(fillTemplate("{a}-{b}-{c d}-{1x}", { a: "A", b: "" })).toBe("A--{c d}-{1x}");
    expect(fillTemplate("{toString}", {})).toBe("");
    expect(fillJson({ k: ["{a}", 2, true, null, { n: "{a}" }] }, { a: "A" })).toEqual({ k: ["A", 2, true, null, { n: "A" }] });
  });

  it("lists each mode's fields, secret unless said otherwise", () => {
    expect(grantFields({ type: "clientCredentials", tokenUrl: "https://x.test/t" })).toEqual([
      { name: "clientId", label: "Client ID", secret: false, optional: false },
      { name: "clientSecret", label: "Client secret", secret: true, optional: false },
    ]);
    expect(
      grantFields({
        type: "clientCredentials",
        tokenUrl: "https://x.test/t",
        client: "deployer",
        fields: [{ name: "accountId", label: "Account", secret: false }],
      }),
    ).toEqual([{ name: "accountId", label: "Account", secret: false, optional: false }]);
    expect(
      grantFields({
        type: "tokenExchange",
        fields: [
          { name: "k", label: "Key" },
          { name: "o", label: "Org", secret: false, optional: true },
        ],
        request: { url: "/s" },
        token: "t",
      }),
    ).toEqual([
      { name: "k", label: "Key", secret: true, optional: false },
      { name: "o", label: "Org", secret: false, optional: true },
    ]);
  });

  it("takes what a mode asks, refusing unknown, missing, multi-line, padded or over-long values without quoting them", () => {
    const scheme: TokenExchangeScheme = {
      type: "tokenExchange",
      fields: [
        { name: "k", label: "Key" },
        { name: "o", label: "Org", optional: true },
      ],
      request: { url: "/s" },
      token: "t",
    };
    expect(grantSecrets("acme", scheme, { k: "v" })).toEqual({ k: "v" });
    expect(grantSecrets("acme", scheme, { k: "v", o: "" })).toEqual({ k: "v" });
    expect(() => grantSecrets("acme", scheme, { k: "v", x: "secret-x" })).toThrow(
      'credentials.x is not a field of toolkit "acme"\'s tokenExchange mode: it takes { "k": "...", "o": "..." }.',
    );
    expect(() => grantSecrets("acme", scheme, undefined)).toThrow('send "credentials": { "k": "...", "o": "..." } (k is missing)');
    expect(() => grantSecrets("acme", scheme, { k: "  " })).toThrow("(k is missing)");
    for (const bad of ["SECRETa\nb", " SECRETpad", "SECRETpad ", "Z".repeat(16_385), "SECRET\u0000"]) {
      const error = (() => {
        try {
          grantSecrets("acme", scheme, { k: bad });
        } catch (e) {
          return e as Error;
        }
      })();
      expect(error?.message).toMatch(/^credentials\.k must be one line/);
      expect(error?.message).not.toContain(bad);
    }
    expect(grantSecrets("acme", scheme, { k: "a\tb" })).toEqual({ k: "a\tb" });
    expect(grantSecrets("acme", scheme, { k: "x".repeat(16_384) }).k).toHaveLength(16_384);
    const deployer: ClientCredentialsScheme = { type: "clientCredentials", tokenUrl: "https://x.test/t", client: "deployer" };
    expect(() => grantSecrets("acme", deployer, { clientId: "i" })).toThrow(/its client is the server's, so send no credentials/);
    expect(grantSecrets("acme", deployer, undefined)).toEqual({});
  });
});
