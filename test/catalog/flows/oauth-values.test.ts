import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineJsonToolkit } from "../../../src/toolkits/json.js";
import { authorize, basicPair, type EmulatedAnswer, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * OAuth 2 modes that send a deployer's value, or the client's id, beside the token on every API
 * request, as the providers document it:
 * - Twitch: https://dev.twitch.tv/docs/api/ (every Helix request carries `Authorization: Bearer
 *   <user token>` and `Client-Id: <the app's client id>`; a request without it answers 401 "Client-Id
 *   header required"); the token request of
 *   https://dev.twitch.tv/docs/authentication/getting-tokens-oauth/#authorization-code-grant-flow
 *   (client_id and client_secret in the form body) and the validate call of
 *   https://dev.twitch.tv/docs/authentication/validate-tokens/ answering client_id, login, user_id.
 * - Google Ads: https://developers.google.com/google-ads/api/rest/auth (every request carries
 *   `Authorization: Bearer`, `developer-token: <the deployer's developer token>`); Google's OAuth as
 *   in the Gmail flow, the account named by the userinfo endpoint.
 * - Etsy: https://developers.etsy.com/documentation/essentials/requests (`x-api-key` on every v3
 *   request, `Authorization: Bearer <user id>.<token>`) with the shared secret Etsy requires in it
 *   since February 2026 (https://github.com/etsy/open-api/discussions/1529: `keystring:shared
 *   secret`); the token request of https://developers.etsy.com/documentation/essentials/authentication/
 *   (client_id and the PKCE verifier, no secret).
 * - Blackbaud SKY API: https://developer.blackbaud.com/skyapi/docs/basics (every request carries
 *   `Bb-Api-Subscription-Key` and `Authorization: Bearer`); the token request with the client as
 *   Basic (https://developer.blackbaud.com/skyapi/docs/authorization/auth-code-flow).
 * Each emulation refuses an API request without the header (as the provider does), and its echo
 * path answers the headers it received: a worst-case upstream, to prove the deployer's value is
 * redacted from what the agent reads.
 */

type Tokens = Set<string>;

function bearer(request: EmulatedRequest): string | undefined {
  return /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
}

/** An API host's answer: 401 without the token or the provider's header, else `answer()`; `/echo` answers the headers it got. */
function api(request: EmulatedRequest, tokens: Tokens, header: string, expected: string, answer: () => unknown): EmulatedAnswer {
  if (!tokens.has(bearer(request) ?? "")) return { status: 401, body: { error: "Unauthorized", message: "Invalid OAuth token" } };
  if (request.headers[header] !== expected) return { status: 401, body: { error: "Unauthorized", message: `${header} header required` } };
  if (request.path.endsWith("/echo")) return { body: { received: request.headers } };
  return { body: answer() };
}

describe("Twitch: the client id in Client-Id beside the token", () => {
  let flow: Flow;
  const codes = new Set<string>();
  const tokens: Tokens = new Set();

  beforeAll(async () => {
    flow = await startFlow({
      provider: "twitch",
      hosts: ["id.twitch.tv", "api.twitch.tv"],
      emulate(request) {
        const { host, path } = request;
        if (host === "id.twitch.tv" && path === "/oauth2/authorize") {
          return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
        }
        if (host === "id.twitch.tv" && path === "/oauth2/token") {
          const fields = form(request);
          if (fields.client_id !== flow.clientId || fields.client_secret !== flow.clientSecret)
            return { status: 400, body: { status: 400, message: "invalid client" } };
          if (!codes.delete(fields.code ?? "")) return { status: 400, body: { status: 400, message: "Invalid authorization code" } };
          const token = mint("twitch");
          tokens.add(token);
          return {
            body: { access_token: token, expires_in: 14124, refresh_token: mint("rt"), scope: ["user:read:email"], token_type: "bearer" },
          };
        }
        if (host === "id.twitch.tv" && path === "/oauth2/validate") {
          if (!tokens.has(bearer(request) ?? "")) return { status: 401, body: { status: 401, message: "invalid access token" } };
          return {
            body: { client_id: flow.clientId, login: "twitchdev", scopes: ["user:read:email"], user_id: "141981764", expires_in: 5520838 },
          };
        }
        if (host === "api.twitch.tv") {
          return api(request, tokens, "client-id", flow.clientId, () => ({ data: [{ id: "141981764", login: "twitchdev" }] }));
        }
        return { status: 404, body: {} };
      },
    });
  });
  afterAll(() => flow?.close());

  let connectionId: string;

  it("connects, and a proxied Helix call carries Client-Id with the client id over any the caller sent", async () => {
    const { connection } = await flow.connect();
    expect(connection.remoteUser).toBe("twitchdev");
    connectionId = connection.id;
    const res = await flow.call("POST", "/proxy", {
      toolkit: "twitch",
      method: "GET",
      url: "https://api.twitch.tv/helix/users",
      headers: { "Client-Id": "someone-elses" },
      connection_id: connectionId,
    });
    expect(res.json, res.text).toMatchObject({ successful: true, data: { data: [{ login: "twitchdev" }] } });
    const sent = flow.at("api.twitch.tv", "/helix/users").at(-1)!;
    expect(sent.headers["client-id"]).toBe(flow.clientId);
    expect(sent.headers.authorization).toMatch(/^Bearer twitch/);
  });

  it("sends it through the passthrough too", async () => {
    const res = await flow.passthrough("twitch/users", { headers: { "x-connection-id": connectionId } });
    expect(res.status, res.text).toBe(200);
    expect(flow.at("api.twitch.tv", "/helix/users").at(-1)!.headers["client-id"]).toBe(flow.clientId);
  });
});

describe("Google Ads: the deployer's developer token beside the token", () => {
  const DEVELOPER_TOKEN = mint("devtok-");
  const tokens: Tokens = new Set();
  const codes = new Map<string, string>(); // code → the nonce of its authorization

  /** An ID token as Google's reads (openid is among the scopes); its signature is not checked by a client that got it over TLS. */
  function idToken(clientId: string, nonce: string): string {
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: "https://accounts.google.com", aud: clientId, sub: "110169484474386276334", nonce, iat: now, exp: now + 3600 };
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    return `${part({ alg: "RS256", typ: "JWT" })}.${part(claims)}.${Buffer.from("signature").toString("base64url")}`;
  }

  function emulate(flow: () => Flow) {
    return (request: EmulatedRequest): EmulatedAnswer => {
      const { host, path } = request;
      if (host === "accounts.google.com" && path === "/o/oauth2/v2/auth") {
        const nonce = request.query.get("nonce") ?? "";
        return authorize(request, { clientId: flow().clientId, redirectUri: flow().callbackUrl }, (code) => codes.set(code, nonce));
      }
      if (host === "oauth2.googleapis.com" && path === "/token") {
        const [id, secret] = basicPair(request) ?? [form(request).client_id, form(request).client_secret];
        if (id !== flow().clientId || secret !== flow().clientSecret) return { status: 401, body: { error: "invalid_client" } };
        const nonce = codes.get(form(request).code ?? "");
        if (nonce === undefined || !codes.delete(form(request).code ?? "")) return { status: 400, body: { error: "invalid_grant" } };
        const token = mint("ya29.");
        tokens.add(token);
        return {
          body: {
            access_token: token,
            expires_in: 3599,
            token_type: "Bearer",
            scope: "openid email https://www.googleapis.com/auth/adwords",
            id_token: idToken(flow().clientId, nonce),
          },
        };
      }
      if (host === "openidconnect.googleapis.com" && path === "/v1/userinfo") {
        if (!tokens.has(bearer(request) ?? "")) return { status: 401, body: { error: "invalid_token" } };
        return { body: { sub: "110169484474386276334", email: "ada@example.com" } };
      }
      if (host === "googleads.googleapis.com") {
        // Google Ads answers a missing or wrong developer token with 401 and DEVELOPER_TOKEN_PARAMETER_MISSING or _INVALID.
        return api(request, tokens, "developer-token", DEVELOPER_TOKEN, () => ({ resourceNames: ["customers/1234567890"] }));
      }
      return { status: 404, body: {} };
    };
  }

  let flow: Flow;
  beforeAll(async () => {
    flow = await startFlow({
      provider: "google-ads",
      hosts: ["accounts.google.com", "oauth2.googleapis.com", "openidconnect.googleapis.com", "googleads.googleapis.com"],
      emulate: emulate(() => flow),
      overrides: { values: { developerToken: DEVELOPER_TOKEN } },
    });
  });
  afterAll(() => flow?.close());

  it("connects; the token request and userinfo carry no developer token, every API request does", async () => {
    const { connection } = await flow.connect();
    expect(connection.remoteUser).toBe("ada@example.com");
    for (const request of flow.requests.filter((r) => r.host !== "googleads.googleapis.com")) {
      expect(request.headers["developer-token"]).toBeUndefined();
      expect(request.body).not.toContain(DEVELOPER_TOKEN);
    }
    const res = await flow.call("POST", "/proxy", {
      toolkit: "google-ads",
      method: "GET",
      url: "https://googleads.googleapis.com/v25/customers:listAccessibleCustomers",
      connection_id: connection.id,
    });
    expect(res.json, res.text).toMatchObject({ successful: true, data: { resourceNames: ["customers/1234567890"] } });
    expect(flow.at("googleads.googleapis.com").at(-1)!.headers["developer-token"]).toBe(DEVELOPER_TOKEN);
  });

  it("redacts the developer token where the API echoes it, in POST /proxy and the passthrough", async () => {
    const proxied = await flow.call("POST", "/proxy", {
      toolkit: "google-ads",
      method: "GET",
      url: "https://googleads.googleapis.com/v25/echo",
    });
    expect(proxied.json.successful, proxied.text).toBe(true);
    expect(flow.at("googleads.googleapis.com", "/v25/echo").at(-1)!.headers["developer-token"]).toBe(DEVELOPER_TOKEN);
    expect(proxied.text).not.toContain(DEVELOPER_TOKEN);
    const passed = await flow.passthrough("google-ads/echo");
    expect(passed.status, passed.text).toBe(200);
    expect(passed.text).not.toContain(DEVELOPER_TOKEN);
    // The toolkit's description lists its modes, never a deployer's value.
    const described = await flow.call("GET", "/toolkit/google-ads");
    expect(described.json.authModes.map((mode: { mode: string }) => mode.mode)).toEqual(["oauth2", "jwtBearer"]);
    flow.assertNoLeaks([DEVELOPER_TOKEN, ...tokens, flow.clientSecret]);
  });

  it("without the developer token: listed as not configured, POST /auth a 400 naming the variable, nothing sent", async () => {
    let bare: Flow | undefined;
    bare = await startFlow({
      provider: "google-ads",
      hosts: ["accounts.google.com", "oauth2.googleapis.com", "openidconnect.googleapis.com", "googleads.googleapis.com"],
      emulate: emulate(() => bare!),
      overrides: { env: {} },
    });
    try {
      const res = await bare.call("POST", "/auth", { toolkit: "google-ads" });
      expect(res.status, res.text).toBe(400);
      expect(res.json.code).toBe("invalid_request");
      expect(res.json.error).toContain("TOOLS_PROXY_GOOGLE_ADS_DEVELOPER_TOKEN");
      const search = await bare.call("GET", "/search?keywords=google%20ads");
      expect(search.json.toolkits.find((t: { slug: string }) => t.slug === "google-ads")).toMatchObject({ configured: false });
      expect(bare.requests).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});

describe("Etsy: the keystring and the deployer's shared secret in x-api-key, also on the identify lookup", () => {
  const SHARED_SECRET = mint("shh");
  const tokens: Tokens = new Set();
  const codes = new Set<string>();
  let flow: Flow;

  beforeAll(async () => {
    flow = await startFlow({
      provider: "etsy",
      hosts: ["www.etsy.com", "api.etsy.com"],
      overrides: { env: { TOOLS_PROXY_ETSY_SHARED_SECRET: SHARED_SECRET } },
      emulate(request) {
        const { host, path } = request;
        if (host === "www.etsy.com" && path === "/oauth/connect") {
          if (!request.query.get("code_challenge")) return { status: 400, body: "code_challenge required" };
          return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
        }
        if (host === "api.etsy.com" && path === "/v3/public/oauth/token") {
          const fields = form(request);
          if (fields.client_id !== flow.clientId || !fields.code_verifier) return { status: 400, body: { error: "invalid_request" } };
          if (!codes.delete(fields.code ?? "")) return { status: 400, body: { error: "invalid_grant" } };
          const token = `12345678.${mint("")}`;
          tokens.add(token);
          return { body: { access_token: token, token_type: "Bearer", expires_in: 3600, refresh_token: `12345678.${mint("")}` } };
        }
        if (host === "api.etsy.com") {
          return api(request, tokens, "x-api-key", `${flow.clientId}:${SHARED_SECRET}`, () => ({ user_id: 12345678, shop_id: 5551234 }));
        }
        return { status: 404, body: {} };
      },
    });
  });
  afterAll(() => flow?.close());

  it("identifies the account at /application/users/me with x-api-key, then proxies with it", async () => {
    const { connection } = await flow.connect();
    expect(connection.remoteUser).toBe("12345678");
    expect(flow.at("api.etsy.com", "/v3/application/users/me")[0]!.headers["x-api-key"]).toBe(`${flow.clientId}:${SHARED_SECRET}`);
    const echoed = await flow.call("POST", "/proxy", { toolkit: "etsy", method: "GET", url: "https://api.etsy.com/v3/application/echo" });
    expect(echoed.json.successful, echoed.text).toBe(true);
    expect(echoed.text).toContain(flow.clientId);
    flow.assertNoLeaks([SHARED_SECRET, ...tokens]);
  });
});

describe("Blackbaud: the deployer's subscription key from its variable", () => {
  const SUBSCRIPTION_KEY = mint("bbkey");
  const tokens: Tokens = new Set();
  const codes = new Set<string>();
  let flow: Flow;

  beforeAll(async () => {
    flow = await startFlow({
      provider: "blackbaud",
      hosts: ["app.blackbaud.com", "oauth2.sky.blackbaud.com", "api.sky.blackbaud.com"],
      overrides: { env: { TOOLS_PROXY_BLACKBAUD_SUBSCRIPTION_KEY: SUBSCRIPTION_KEY } },
      emulate(request) {
        const { host, path } = request;
        if (host === "app.blackbaud.com" && path === "/oauth/authorize") {
          return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
        }
        if (host === "oauth2.sky.blackbaud.com" && path === "/token") {
          const pair = basicPair(request);
          if (pair?.[0] !== flow.clientId || pair[1] !== flow.clientSecret) return { status: 401, body: { error: "invalid_client" } };
          if (!codes.delete(form(request).code ?? "")) return { status: 400, body: { error: "invalid_grant" } };
          const token = mint("bb");
          tokens.add(token);
          return {
            body: { access_token: token, token_type: "Bearer", expires_in: 3600, refresh_token: mint("rt"), environment_id: "p-1" },
          };
        }
        if (host === "api.sky.blackbaud.com") {
          return api(request, tokens, "bb-api-subscription-key", SUBSCRIPTION_KEY, () => ({ count: 1, value: [{ id: "280" }] }));
        }
        return { status: 404, body: {} };
      },
    });
  });
  afterAll(() => flow?.close());

  it("proxies a constituent list with Bb-Api-Subscription-Key, and keeps it out of every answer", async () => {
    await flow.connect();
    const res = await flow.call("POST", "/proxy", {
      toolkit: "blackbaud",
      method: "GET",
      url: "https://api.sky.blackbaud.com/constituent/v1/constituents",
    });
    expect(res.json, res.text).toMatchObject({ successful: true, data: { count: 1 } });
    expect(flow.at("api.sky.blackbaud.com").at(-1)!.headers["bb-api-subscription-key"]).toBe(SUBSCRIPTION_KEY);
    const echoed = await flow.call("POST", "/proxy", { toolkit: "blackbaud", method: "GET", url: "https://api.sky.blackbaud.com/echo" });
    expect(echoed.json.successful, echoed.text).toBe(true);
    flow.assertNoLeaks([SUBSCRIPTION_KEY, ...tokens, flow.clientSecret]);
  });
});

describe("a JSON toolkit's OAuth mode with values and placements: a tool's ctx.fetch sends them", () => {
  const APP_KEY = mint("appkey");
  const tokens: Tokens = new Set();
  const codes = new Set<string>();
  let flow: Flow;

  beforeAll(async () => {
    flow = await startFlow({
      provider: "acme",
      hosts: ["auth.acme.test", "api.acme.test"],
      toolkit: ({ clientId, clientSecret }) =>
        defineJsonToolkit(
          {
            slug: "acme",
            name: "Acme",
            description: "Acme's API, which wants the deployer's app key and the client id on every request.",
            baseUrl: "https://api.acme.test/v1",
            auth: {
              type: "oauth2",
              authorizationUrl: "https://auth.acme.test/authorize",
              tokenUrl: "https://auth.acme.test/token",
              clientId,
              clientSecret,
              values: [{ name: "appKey", env: "ACME_APP_KEY" }],
              placements: [
                { in: "header", name: "X-App-Key", value: "{appKey}" },
                { in: "header", name: "X-Client", value: "client {clientId}" },
              ],
              identify: { url: "/me", remoteUser: "login" },
            },
            tools: [
              {
                slug: "ACME_GET_THING",
                name: "Get a thing",
                description: "Reads one thing.",
                method: "GET",
                path: "/things/{id}",
                inputParameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
              },
            ],
          },
          { env: { ACME_APP_KEY: APP_KEY } },
        ),
      emulate(request) {
        const { host, path } = request;
        if (host === "auth.acme.test" && path === "/authorize") {
          return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
        }
        if (host === "auth.acme.test" && path === "/token") {
          if (!codes.delete(form(request).code ?? "")) return { status: 400, body: { error: "invalid_grant" } };
          const token = mint("acme");
          tokens.add(token);
          return { body: { access_token: token, token_type: "Bearer", expires_in: 3600 } };
        }
        if (host === "api.acme.test") {
          if (request.headers["x-client"] !== `client ${flow.clientId}`) return { status: 401, body: { message: "x-client required" } };
          if (path === "/v1/things/missing")
            return { status: 404, body: { message: `no thing; you sent key ${request.headers["x-app-key"]}` } };
          return api(request, tokens, "x-app-key", APP_KEY, () => (path === "/v1/me" ? { login: "wile" } : { id: path.split("/").at(-1) }));
        }
        return { status: 404, body: {} };
      },
    });
  });
  afterAll(() => flow?.close());

  it("identifies with both headers, runs a tool with them, and an upstream error quoting the key is redacted", async () => {
    const { connection } = await flow.connect();
    expect(connection.remoteUser).toBe("wile");
    const ran = await flow.call("POST", "/execute", { tool: "ACME_GET_THING", arguments: { id: "t1" } });
    expect(ran.json, ran.text).toMatchObject({ successful: true, data: { id: "t1" } });
    const sent = flow.at("api.acme.test", "/v1/things/t1").at(-1)!;
    expect(sent.headers["x-app-key"]).toBe(APP_KEY);
    expect(sent.headers["x-client"]).toBe(`client ${flow.clientId}`);
    const failed = await flow.call("POST", "/execute", { tool: "ACME_GET_THING", arguments: { id: "missing" } });
    expect(failed.json.successful, failed.text).toBe(false);
    expect(failed.json.error).toContain("no thing");
    flow.assertNoLeaks([APP_KEY, ...tokens, flow.clientSecret]);
  });
});
