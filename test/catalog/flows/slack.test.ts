import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadToolkitFile } from "../../../src/catalog/index.js";
import { oauthMode } from "../../../src/toolkits/define.js";
import { authorize, basicPair, type EmulatedAnswer, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * Slack, as its documentation describes an app installed with OAuth v2:
 * - https://docs.slack.dev/authentication/installing-with-oauth (scopes and user_scope, comma-separated,
 *   on https://slack.com/oauth/v2/authorize)
 * - https://docs.slack.dev/reference/methods/oauth.v2.access (client id and secret preferably as HTTP
 *   Basic; the answer's top level holds the bot token with token_type "bot" and team.id, the user
 *   token sits under authed_user; errors come as HTTP 200 with { ok: false, error })
 * - https://docs.slack.dev/authentication/using-token-rotation (with rotation on, the answer adds
 *   expires_in and refresh_token; oauth.v2.access with grant_type=refresh_token gives a new access
 *   token and a new refresh token, the old one is revoked). That an expired token is answered like
 *   other errors, 200 with token_expired, is this emulation's assumption (the entry lists it as
 *   unconfirmed); the handler must refresh from expires_in before use, as no 401 ever comes.
 * - https://docs.slack.dev/reference/methods/auth.test (who a token belongs to; url is the workspace)
 * - https://docs.slack.dev/reference/methods/auth.revoke (revokes the token it is called with)
 * - https://docs.slack.dev/authentication/using-pkce (PKCE is an app setting, off unless the app
 *   turns it on, which makes the app a public client and limits its refresh tokens to 30 days; once
 *   on, code_challenge, code_challenge_method and code_verifier may be sent). How Slack answers PKCE
 *   parameters from an app that has not turned it on is not documented: this emulation refuses them,
 *   the strictest reading, so that a handler sending them by default fails here.
 */

let flow: Flow;
const codes = new Set<string>();
/** Access token → when it stops working (ms since epoch, Infinity without rotation). */
const tokens = new Map<string, number>();
const refreshTokens = new Set<string>();
const userTokens: string[] = [];
const revoked: string[] = [];
const pasted = mint("xoxb-");
tokens.set(pasted, Number.POSITIVE_INFINITY);
/** Token rotation is a per-app setting: tests switch it on. */
let rotation = false;
/** The lifetime Slack gives a rotating token (12 hours); shortened so that a test sees it end. */
let lifetimeSeconds = 43200;
/** Code → the PKCE challenge its authorization request carried (S256), for an app with PKCE on. */
const challenges = new Map<string, string>();

async function s256(verifier: string): Promise<string> {
  return Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))).toString("base64url");
}

function issue(): Record<string, unknown> {
  const accessToken = rotation ? mint("xoxe.xoxb-1-") : mint("xoxb-");
  tokens.set(accessToken, rotation ? Date.now() + lifetimeSeconds * 1000 : Number.POSITIVE_INFINITY);
  if (!rotation) return { access_token: accessToken };
  const refreshToken = mint("xoxe-1-");
  refreshTokens.add(refreshToken);
  return { access_token: accessToken, expires_in: lifetimeSeconds, refresh_token: refreshToken };
}

/** Slack as one app sees it: `app()` is the flow whose client the app is, with PKCE on or off in its settings. */
const emulateFor = (app: () => { flow: Flow; pkce: boolean }) =>
  async function emulate(request: EmulatedRequest): Promise<EmulatedAnswer> {
    const { flow, pkce } = app();
    return slack(request, flow, pkce);
  };

async function slack(request: EmulatedRequest, flow: Flow, pkce: boolean): Promise<EmulatedAnswer> {
  const { host, method, path } = request;
  if (host !== "slack.com") return { status: 404, body: "not found" };
  if (path === "/oauth/v2/authorize") {
    const challenge = request.query.get("code_challenge");
    if ((challenge !== null || request.query.has("code_challenge_method")) && !pkce) {
      return { status: 400, body: "PKCE is not enabled for this app" };
    }
    if (challenge !== null && request.query.get("code_challenge_method") !== "S256")
      return { status: 400, body: "bad code_challenge_method" };
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => {
      codes.add(code);
      if (challenge !== null) challenges.set(code, challenge);
    });
  }
  if (method === "POST" && path === "/api/oauth.v2.access") {
    const fields = form(request);
    if (fields.code_verifier !== undefined && !pkce) return { body: { ok: false, error: "invalid_code_verifier" } };
    const pair = basicPair(request);
    if (!pair || pair[0] !== flow.clientId || pair[1] !== flow.clientSecret) return { body: { ok: false, error: "invalid_client_id" } };
    if (fields.grant_type === "refresh_token") {
      if (!refreshTokens.delete(fields.refresh_token ?? "")) return { body: { ok: false, error: "invalid_refresh_token" } };
      return { body: { ok: true, ...issue(), token_type: "bot", scope: "channels:read,chat:write", team: { id: "T9TK3CUKW" } } };
    }
    // Slack's documented answer to a wrong or used code: status 200, ok false.
    if (!codes.delete(fields.code ?? "")) return { body: { ok: false, error: "invalid_code" } };
    const challenge = challenges.get(fields.code!);
    if (challenge !== undefined && (fields.code_verifier === undefined || (await s256(fields.code_verifier)) !== challenge)) {
      return { body: { ok: false, error: "invalid_code_verifier" } };
    }
    if (fields.redirect_uri !== flow.callbackUrl) return { body: { ok: false, error: "bad_redirect_uri" } };
    const userToken = mint("xoxp-");
    userTokens.push(userToken);
    tokens.set(userToken, Number.POSITIVE_INFINITY);
    return {
      body: {
        ok: true,
        ...issue(),
        token_type: "bot",
        scope: "channels:read,channels:history,chat:write",
        bot_user_id: "U0KRQLJ9H",
        app_id: "A0KRD7HC3",
        team: { name: "Slack Softball Team", id: "T9TK3CUKW" },
        enterprise: null,
        authed_user: { id: "U1234", scope: "search:read", access_token: userToken, token_type: "user" },
      },
    };
  }
  // Every Web API method answers 200; a bad token is { ok: false, error }.
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
  const until = tokens.get(token);
  if (until === undefined) return { body: { ok: false, error: "invalid_auth" } };
  if (until < Date.now()) return { body: { ok: false, error: "token_expired" } };
  if (path === "/api/auth.test") {
    return {
      body: {
        ok: true,
        url: "https://softball.slack.com/",
        team: "Slack Softball Team",
        user: "bot",
        team_id: "T9TK3CUKW",
        user_id: "U0KRQLJ9H",
      },
    };
  }
  if (path === "/api/auth.revoke") {
    tokens.delete(token);
    revoked.push(token);
    return { body: { ok: true, revoked: true } };
  }
  if (path === "/api/conversations.list") return { body: { ok: true, channels: [{ id: "C012AB3CD", name: "general" }] } };
  // search.messages: user tokens only (https://docs.slack.dev/reference/methods/search.messages).
  if (path === "/api/search.messages") {
    if (!token.startsWith("xoxp-")) return { body: { ok: false, error: "not_allowed_token_type" } };
    return {
      body: {
        ok: true,
        query: request.query.get("query") ?? form(request).query,
        messages: { total: 1, matches: [{ ts: "1.2", text: "lunch?" }] },
      },
    };
  }
  // api.test echoes what it was given (https://docs.slack.dev/reference/methods/api.test); here the
  // Authorization too, a worst case, to prove that both tokens are redacted.
  if (path === "/api/api.test") return { body: { ok: true, args: { authorization: request.headers.authorization } } };
  return { body: { ok: false, error: "unknown_method" } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "slack", hosts: ["slack.com"], emulate: emulateFor(() => ({ flow, pkce: false })) });
});
afterAll(() => flow?.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function listChannels(connectionId: string) {
  return flow.call("POST", "/proxy", {
    toolkit: "slack",
    method: "GET",
    url: "https://slack.com/api/conversations.list",
    connection_id: connectionId,
  });
}

describe("Slack OAuth v2, end to end", () => {
  let connectionId: string;
  let botToken: string;

  it("connects: comma-joined scopes and user_scope, Basic client auth, the bot token kept, team.id in config", async () => {
    const { authorizationUrl, connection } = await flow.connect();
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe("https://slack.com/oauth/v2/authorize");
    expect(authorizationUrl.searchParams.get("scope")).toBe(
      "channels:read,channels:history,groups:read,groups:history,im:history,chat:write,users:read,reactions:write,files:write",
    );
    expect(authorizationUrl.searchParams.get("user_scope")).toBe("search:read");
    const exchange = flow.at("slack.com", "/api/oauth.v2.access").at(-1)!;
    expect(basicPair(exchange)).toEqual([flow.clientId, flow.clientSecret]);
    expect(form(exchange)).toMatchObject({ grant_type: "authorization_code", redirect_uri: flow.callbackUrl });
    expect(form(exchange).client_secret).toBeUndefined();
    // PKCE is off for Slack: the app has not turned it on (docs.slack.dev, "Using PKCE").
    for (const name of ["code_challenge", "code_challenge_method"]) expect(authorizationUrl.searchParams.has(name)).toBe(false);
    expect(form(exchange).code_verifier).toBeUndefined();
    expect(connection.remoteUser).toBe("https://softball.slack.com/");
    expect(connection.config).toEqual({ teamId: "T9TK3CUKW" });
    // auth.test was asked with the new bot token, the way the toolkit sends it.
    const lookup = flow.at("slack.com", "/api/auth.test").at(-1)!;
    botToken = /^Bearer (xoxb-.+)$/.exec(lookup.headers.authorization ?? "")![1]!;
    expect(lookup.method).toBe("POST");
    connectionId = connection.id;
  });

  it("proxies with the bot token (token_type bot), not the user token under authed_user", async () => {
    const res = await listChannels(connectionId);
    expect(res.json).toMatchObject({ successful: true, data: { ok: true, channels: [{ name: "general" }] } });
    const sent = flow.at("slack.com", "/api/conversations.list").at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${botToken}`);
    expect(userTokens).not.toContain(botToken);
  });

  it("keeps the user token (authed_user) beside the bot token: x-tools-proxy-token: user uses it, on the proxy and the passthrough", async () => {
    const userToken = userTokens.at(-1)!;
    const proxied = await flow.call("POST", "/proxy", {
      toolkit: "slack",
      method: "GET",
      url: "https://slack.com/api/search.messages?query=lunch",
      headers: { "x-tools-proxy-token": "user" },
      connection_id: connectionId,
    });
    expect(proxied.json).toMatchObject({ successful: true, data: { ok: true, messages: { total: 1 } } });
    const sent = flow.at("slack.com", "/api/search.messages").at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${userToken}`);
    expect(sent.headers["x-tools-proxy-token"]).toBeUndefined();
    const passed = await flow.passthrough("slack/api/search.messages?query=lunch", {
      headers: { "x-connection-id": connectionId, "x-tools-proxy-token": "user" },
    });
    expect(passed.status, passed.text).toBe(200);
    expect(flow.at("slack.com", "/api/search.messages").at(-1)!.headers.authorization).toBe(`Bearer ${userToken}`);
    // Without the header, the bot token, which search.messages refuses.
    const asBot = await flow.passthrough("slack/api/search.messages?query=lunch", { headers: { "x-connection-id": connectionId } });
    expect(JSON.parse(asBot.text)).toEqual({ ok: false, error: "not_allowed_token_type" });
  });

  it("the search tool declares credential user and runs with the user token", async () => {
    const res = await flow.call("POST", "/execute", {
      tool: "SLACK_SEARCH_MESSAGES",
      arguments: { query: "lunch" },
      connection_id: connectionId,
    });
    expect(res.json, res.text).toMatchObject({ successful: true, data: { total: 1, matches: [{ text: "lunch?" }] } });
    expect(flow.at("slack.com", "/api/search.messages").at(-1)!.headers.authorization).toBe(`Bearer ${userTokens.at(-1)}`);
  });

  it("redacts both tokens where Slack echoes them, and refuses a token name the connection does not keep", async () => {
    for (const choice of [{}, { "x-tools-proxy-token": "user" }]) {
      const res = await flow.call("POST", "/proxy", {
        toolkit: "slack",
        method: "POST",
        url: "https://slack.com/api/api.test",
        headers: choice,
        connection_id: connectionId,
      });
      expect(res.json.successful, res.text).toBe(true);
      for (const token of [botToken, userTokens.at(-1)!]) expect(res.text).not.toContain(token);
    }
    const before = flow.requests.length;
    const unknown = await flow.call("POST", "/proxy", {
      toolkit: "slack",
      method: "GET",
      url: "https://slack.com/api/auth.test",
      headers: { "x-tools-proxy-token": "admin" },
      connection_id: connectionId,
    });
    expect(unknown.status, unknown.text).toBe(400);
    expect(unknown.json.error).toBe("x-tools-proxy-token names a token this connection does not keep; its tokens: user.");
    expect(flow.requests.length).toBe(before);
  });

  it("Slack's 200 with ok: false for a used code ends the authorization without a connection", async () => {
    const started = await flow.call("POST", "/auth", { toolkit: "slack" });
    const first = await flow.consent(started.json.authorizationUrl);
    expect(first.status).toBe(200);
    const before = (await flow.call("GET", "/connections?toolkit=slack")).json.connections.length;
    const again = await flow.call("POST", "/auth", { toolkit: "slack" });
    const replay = new URL(first.callback);
    replay.searchParams.set("state", new URL(again.json.authorizationUrl).searchParams.get("state")!);
    const res = await fetch(replay, { headers: { accept: "application/json" } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      code: "invalid_request",
      error: "The provider refused the code exchange (invalid_code). Start the connection again.",
    });
    expect((await flow.call("GET", `/auth/${again.json.authorizationId}`)).json.status).toBe("failed");
    expect((await flow.call("GET", "/connections?toolkit=slack")).json.connections.length).toBe(before);
  });

  it("with token rotation, an expiring token is refreshed at oauth.v2.access before use, and the refresh token rotates", async () => {
    rotation = true;
    lifetimeSeconds = 1;
    try {
      const { connection } = await flow.connect();
      const exchangeAnswerTokens = [...tokens.keys()].filter((t) => t.startsWith("xoxe.xoxb-"));
      const firstRefresh = [...refreshTokens][0]!;
      await sleep(1100); // The token has expired: Slack would answer token_expired (HTTP 200).
      const res = await listChannels(connection.id);
      expect(res.json, res.text).toMatchObject({ successful: true, data: { ok: true } });
      const refreshes = flow.at("slack.com", "/api/oauth.v2.access").filter((r) => form(r).grant_type === "refresh_token");
      expect(refreshes).toHaveLength(1);
      expect(basicPair(refreshes[0]!)).toEqual([flow.clientId, flow.clientSecret]);
      expect(form(refreshes[0]!)).toEqual({ grant_type: "refresh_token", refresh_token: firstRefresh });
      const sent = flow.at("slack.com", "/api/conversations.list").at(-1)!;
      expect(exchangeAnswerTokens).not.toContain(/^Bearer (.+)$/.exec(sent.headers.authorization!)![1]);

      // The second refresh must use the refresh token the first one returned: the old one is gone.
      const secondRefresh = [...refreshTokens][0]!;
      expect(secondRefresh).not.toBe(firstRefresh);
      await sleep(1100);
      expect((await listChannels(connection.id)).json).toMatchObject({ successful: true });
      const again = flow.at("slack.com", "/api/oauth.v2.access").filter((r) => form(r).grant_type === "refresh_token");
      expect(again.map((r) => form(r).refresh_token)).toEqual([firstRefresh, secondRefresh]);
      expect((await flow.call("DELETE", `/connections/${connection.id}`)).status).toBe(204);
    } finally {
      rotation = false;
      lifetimeSeconds = 43200;
    }
  });

  it("deleting the connection calls auth.revoke with the token itself, then with the user token", async () => {
    revoked.length = 0;
    const userToken = flow.at("slack.com", "/api/search.messages").at(-1)!.headers.authorization!.slice("Bearer ".length);
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    expect(revoked).toEqual([botToken, userToken]);
    const calls = flow.at("slack.com", "/api/auth.revoke").slice(-2);
    expect(calls.map((call) => call.method)).toEqual(["POST", "POST"]);
    expect(calls.map((call) => call.headers.authorization)).toEqual([`Bearer ${botToken}`, `Bearer ${userToken}`]);
  });

  it("a pasted token is checked with auth.test: Slack's 200 with invalid_auth refuses it", async () => {
    const bad = await flow.call("POST", "/auth", { toolkit: "slack", mode: "bearer", credentials: { token: mint("xoxb-") } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe("Slack refused these credentials (401 or 403). Check them and send them again.");
    const good = await flow.call("POST", "/auth", { toolkit: "slack", credentials: { token: pasted } });
    expect(good.status, good.text).toBe(201);
    expect(good.json.connection.remoteUser).toBe("https://softball.slack.com/");
    expect((await listChannels(good.json.connection.id)).json).toMatchObject({ successful: true });
  });

  it("an app that turned PKCE on sets pkce: true in its entry: S256 challenge, and the verifier Slack checks", async () => {
    const entry = loadToolkitFile(JSON.stringify({ provider: "slack", clientId: "cid", pkce: true }))[0]!;
    expect(oauthMode(entry)?.pkce).toBe(true);
    const pkceFlow: Flow = await startFlow({
      provider: "slack",
      hosts: ["slack.com"],
      overrides: { pkce: true },
      emulate: emulateFor(() => ({ flow: pkceFlow, pkce: true })),
    });
    try {
      const { authorizationUrl, connection } = await pkceFlow.connect();
      expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
      const exchange = pkceFlow.at("slack.com", "/api/oauth.v2.access").at(-1)!;
      expect(await s256(form(exchange).code_verifier!)).toBe(authorizationUrl.searchParams.get("code_challenge"));
      expect(connection.config).toEqual({ teamId: "T9TK3CUKW" });
      expect((await pkceFlow.call("DELETE", `/connections/${connection.id}`)).status).toBe(204);
    } finally {
      await pkceFlow.close();
    }
  });

  it("nothing secret reached an answer or a log line", () => {
    flow.assertNoLeaks([...tokens.keys(), ...revoked, ...userTokens, ...refreshTokens, flow.clientSecret, ...codes]);
  });
});
