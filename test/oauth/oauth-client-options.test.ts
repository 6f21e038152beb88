/**
 * What oauthClient hands oauth4webapi for one scheme: the server's endpoints (placeholders filled,
 * the refresh URL for a refresh), how the client authenticates (none, post, raw or form Basic),
 * the request options (the handler's fetch, a deadline, plain http only when an endpoint is
 * loopback http) and a token request's body and answer (JSON for Notion, normalised answers,
 * extra parameters).
 */
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import type { HandlerContext } from "../../src/context/context.js";
import type { OAuth2Scheme } from "../../src/credentials/auth-schemes.js";
import { oauthClient } from "../../src/oauth/client.js";
import type { TokenAnswer } from "../../src/oauth/token-answer.js";

const base: OAuth2Scheme = {
  type: "oauth2",
  authorizationUrl: "https://auth.example.com/authorize",
  tokenUrl: "https://auth.example.com/token",
  clientId: "cid-1",
  scopes: [],
};

function context(answer: () => Response = () => Response.json({ access_token: "tok", token_type: "bearer" })) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    calls.push({ url: String(url), init });
    return answer();
  }) as unknown as typeof globalThis.fetch;
  return { ctx: { fetch, timeouts: { toolMs: 1000, proxyMs: 30_000 } } as unknown as HandlerContext, calls };
}

async function authenticate(scheme: OAuth2Scheme) {
  const { ctx } = context();
  const client = oauthClient(ctx, scheme);
  const body = new URLSearchParams();
  const headers = new Headers();
  await client.clientAuth(client.as, client.client, body, headers);
  return { body: Object.fromEntries(body), authorization: headers.get("authorization") };
}

describe("the authorization server", () => {
  it("has the scheme's endpoints, the authorization URL's origin as issuer, and nothing the scheme does not give", () => {
    const { ctx } = context();
    const { as, client } = oauthClient(ctx, base);
    expect(as).toStrictEqual({
      issuer: "https://auth.example.com",
      authorization_endpoint: "https://auth.example.com/authorize",
      token_endpoint: "https://auth.example.com/token",
    });
    expect(client).toStrictEqual({ client_id: "cid-1" });
  });

  it("takes a configured issuer (and then expects iss), userinfo and revocation, with placeholders filled", () => {
    const { ctx } = context();
    const { as } = oauthClient(
      ctx,
      {
        ...base,
        issuer: "https://issuer.example.com",
        authorizationUrl: "https://{shop}.example.com/authorize",
        tokenUrl: "https://{shop}.example.com/token",
        userInfoUrl: "https://{shop}.example.com/me",
        revocationUrl: "https://{shop}.example.com/revoke",
      },
      { shop: "acme" },
    );
    expect(as).toStrictEqual({
      issuer: "https://issuer.example.com",
      authorization_endpoint: "https://acme.example.com/authorize",
      token_endpoint: "https://acme.example.com/token",
      userinfo_endpoint: "https://acme.example.com/me",
      revocation_endpoint: "https://acme.example.com/revoke",
      authorization_response_iss_parameter_supported: true,
    });
  });

  it("a refresh goes to refreshUrl when there is one; an exchange never does", () => {
    const { ctx } = context();
    const scheme = { ...base, refreshUrl: "https://auth.example.com/refresh" };
    expect(oauthClient(ctx, scheme, {}, "refresh").as.token_endpoint).toBe("https://auth.example.com/refresh");
    expect(oauthClient(ctx, scheme, {}, "exchange").as.token_endpoint).toBe("https://auth.example.com/token");
    expect(oauthClient(ctx, scheme).as.token_endpoint).toBe("https://auth.example.com/token");
    expect(oauthClient(ctx, base, {}, "refresh").as.token_endpoint).toBe("https://auth.example.com/token");
  });
});

describe("client authentication", () => {
  it("without a secret: the client id in the body, no Authorization", async () => {
    expect(await authenticate(base)).toEqual({ body: { client_id: "cid-1" }, authorization: null });
    expect(await authenticate({ ...base, tokenEndpointAuthMethod: "client_secret_basic" })).toEqual({
      body: { client_id: "cid-1" },
      authorization: null,
    });
  });

  it("with a secret and method none: still none", async () => {
    expect(await authenticate({ ...base, clientSecret: "sec", tokenEndpointAuthMethod: "none" })).toEqual({
      body: { client_id: "cid-1" },
      authorization: null,
    });
  });

  it("client_secret_post: id and secret in the body", async () => {
    expect(await authenticate({ ...base, clientSecret: "sec", tokenEndpointAuthMethod: "client_secret_post" })).toEqual({
      body: { client_id: "cid-1", client_secret: "sec" },
      authorization: null,
    });
  });

  it("a secret alone means Basic with the raw pair; clientBasicEncoding form encodes it first", async () => {
    const raw = await authenticate({ ...base, clientId: "id-with-dash", clientSecret: "s-1" });
    expect(raw).toEqual({ body: {}, authorization: `Basic ${btoa("id-with-dash:s-1")}` });
    const form = await authenticate({ ...base, clientId: "id-with-dash", clientSecret: "s-1", clientBasicEncoding: "form" });
    expect(form.authorization).toBe(`Basic ${btoa("id%2Dwith%2Ddash:s%2D1")}`);
  });
});

describe("request options", () => {
  it("send through the handler's fetch with the caller's signal, or the proxy deadline", async () => {
    const { ctx, calls } = context();
    const client = oauthClient(ctx, base);
    const signal = new AbortController().signal;
    const options = client.options(signal);
    expect(options.signal).toBe(signal);
    expect(options[oauth.allowInsecureRequests]).toBeUndefined();
    await options[oauth.customFetch]("https://auth.example.com/x", { method: "POST" });
    expect(calls).toEqual([{ url: "https://auth.example.com/x", init: { method: "POST" } }]);
    const timed = client.options();
    expect(timed.signal).toBeInstanceOf(AbortSignal);
    expect(timed.signal.aborted).toBe(false);
  });

  it("the default deadline is the proxy timeout", async () => {
    const { ctx } = context();
    (ctx.timeouts as { proxyMs: number }).proxyMs = 1;
    const { signal } = oauthClient(ctx, base).options();
    await new Promise((resolve) => signal.addEventListener("abort", resolve));
    expect(signal.aborted).toBe(true);
  });

  it("allow plain http when any endpoint is http (filled), and only then", () => {
    const { ctx } = context();
    for (const field of ["authorizationUrl", "tokenUrl", "userInfoUrl", "revocationUrl"] as const) {
      const scheme = { ...base, [field]: "http://{host}.example.com/x" };
      const client = oauthClient(ctx, scheme, { host: "local" });
      expect(client.options()[oauth.allowInsecureRequests], field).toBe(true);
      expect(client.tokenOptions({ raw: null }, undefined)[oauth.allowInsecureRequests], field).toBe(true);
    }
    expect(
      oauthClient(ctx, { ...base, userInfoUrl: "https://auth.example.com/me" }).options()[oauth.allowInsecureRequests],
    ).toBeUndefined();
  });
});

describe("token requests", () => {
  it("send a form as it is, and give oauth4webapi the normalised answer while raw keeps the provider's", async () => {
    const { ctx, calls } = context(() => Response.json({ access_token: "tok", token_type: "bot", expires_in: "60" }));
    const answer: TokenAnswer = { raw: null };
    const options = oauthClient(ctx, base).tokenOptions(answer, undefined);
    expect("additionalParameters" in options).toBe(false);
    const body = new URLSearchParams({ grant_type: "authorization_code", code: "c" });
    const response: Response = await options[oauth.customFetch]("https://auth.example.com/token", { method: "POST", body });
    expect(await response.json()).toEqual({ access_token: "tok", token_type: "bearer", expires_in: 60 });
    expect(answer.raw).toEqual({ access_token: "tok", token_type: "bot", expires_in: "60" });
    expect(calls[0]!.init.body).toBe(body);
  });

  it("send the form as a JSON object when the scheme says json, keeping the other headers", async () => {
    const { ctx, calls } = context();
    const options = oauthClient(ctx, { ...base, tokenRequestFormat: "json" }).tokenOptions({ raw: null }, undefined);
    await options[oauth.customFetch]("https://auth.example.com/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ grant_type: "authorization_code", code: "c" }),
    });
    const sent = calls[0]!.init;
    expect(sent.method).toBe("POST");
    expect(new Headers(sent.headers).get("content-type")).toBe("application/json");
    expect(new Headers(sent.headers).get("accept")).toBe("application/json");
    expect(JSON.parse(sent.body as string)).toEqual({ grant_type: "authorization_code", code: "c" });
  });

  it("leave a body that is no form as it is, even for json", async () => {
    const { ctx, calls } = context();
    const options = oauthClient(ctx, { ...base, tokenRequestFormat: "json" }).tokenOptions({ raw: null }, undefined);
    const init = { method: "POST", body: "already" };
    await options[oauth.customFetch]("https://auth.example.com/token", init);
    expect(calls[0]!.init).toBe(init);
  });

  it("carry the extra parameters only when there are some, and the caller's signal", () => {
    const { ctx } = context();
    const client = oauthClient(ctx, base);
    const signal = new AbortController().signal;
    const options = client.tokenOptions({ raw: null }, { audience: "api" }, signal);
    expect(options.additionalParameters).toEqual({ audience: "api" });
    expect(options.signal).toBe(signal);
    expect("additionalParameters" in client.tokenOptions({ raw: null }, {})).toBe(false);
  });
});
