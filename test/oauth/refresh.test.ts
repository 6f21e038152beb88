/**
 * Token refresh against a real authorization server that rotates refresh tokens and revokes the
 * whole grant when one is reused: proactive refresh near expiry, one refresh and retry after a 401,
 * invalid_grant, one refresh for many concurrent callers in one handler and across handlers that
 * share only the store.
 */
import * as oauth from "oauth4webapi";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import { REFRESH_MARGIN_MS, refreshMargin } from "../../src/oauth/refresh.js";
import { CALLBACK_URL, createOAuthHarness, listConnections, type OAuthHarness, sleep, tokenCalls } from "../support/oauth-harness.js";
import { type OidcServer, startOidcServer } from "../support/oidc-server.js";

let as: OidcServer;
let h: OAuthHarness;
let key: string;
/** When set, every access token is revoked just before the handler calls the API. */
let revokeBeforeEachApiCall = false;
/** For every API call: whether the stored access token was the one being sent. */
const storedBeforeUse: boolean[] = [];

beforeAll(async () => {
  as = await startOidcServer({ redirectUris: [CALLBACK_URL] });
  h = await createOAuthHarness({
    as,
    beforeFetch: async (url, init) => {
      if (!url.startsWith(as.apiBaseUrl)) return;
      if (revokeBeforeEachApiCall) await as.revokeAccessTokens();
      const [connection] = (await h.store.listConnections({ workspaceId: "ws1" })).filter((c) => c.status === "active").slice(-1);
      if (connection) {
        const sent = new Headers(init?.headers).get("authorization")?.replace(/^Bearer /, "");
        storedBeforeUse.push((await h.credentialOf(connection.id)).accessToken === sent);
      }
    },
  });
  key = await h.issueAgentKey("agent-a");
});
afterEach(async () => {
  as.setAccessTokenTtl(3600);
  as.setTokenDelay(0);
  revokeBeforeEachApiCall = false;
  // One connection per test: delete the previous ones so execute picks the new one.
  for (const c of await listConnections(h, key)) await h.store.deleteConnection(c.id);
});
afterAll(async () => {
  h.assertNoLeaks();
  // Nothing ever reached the API without a bearer token.
  expect(as.apiRequests.filter((r) => !r.accessToken)).toEqual([]);
  expect(as.serverErrors).toEqual([]);
  await as.close();
});

const execute = () => h.call("POST", "/execute", { key, body: { tool: "NOTES_ME" } });
const proxy = () => h.call("POST", "/proxy", { key, body: { toolkit: "notes", method: "GET", url: `${as.apiBaseUrl}/me` } });
const refreshCalls = (from: number) => tokenCalls(as, from).filter(([grant]) => grant === "refresh_token");

/** Polls `condition` every 50 ms until it holds (the test's own timeout bounds the wait). */
async function waitFor(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await sleep(50);
}

/** Connects with access tokens that live `ttl` seconds; later tokens live an hour again. */
async function connectWithTtl(ttl: number) {
  as.setAccessTokenTtl(ttl);
  const { connectionId } = await h.connect(key);
  as.setAccessTokenTtl(3600);
  expect(connectionId).toMatch(/^conn_/);
  return { connectionId, first: await h.credentialOf(connectionId) };
}

/** Connects with a 2-second token and waits until it is within its refresh margin, so the next call refreshes first. */
async function connectDueForRefresh() {
  const connected = await connectWithTtl(2);
  const expiresAt = (await h.store.getConnection(connected.connectionId))!.credentialsExpireAt!.getTime();
  await waitFor(() => expiresAt - Date.now() < refreshMargin(2));
  return connected;
}

/** Asks the token endpoint directly to refresh with `refreshToken`. */
async function refreshDirectly(refreshToken: string) {
  const server: oauth.AuthorizationServer = { issuer: as.issuer, token_endpoint: as.endpoints.token };
  const response = await oauth.refreshTokenGrantRequest(
    server,
    { client_id: as.clientId },
    oauth.ClientSecretBasic(as.clientSecret),
    refreshToken,
    {
      [oauth.allowInsecureRequests]: true,
    },
  );
  return oauth.processRefreshTokenResponse(server, { client_id: as.clientId }, response);
}

describe("refresh", () => {
  it("refreshes before the call once the access token is within a quarter of its lifetime of expiry, and rotates the refresh token", async () => {
    const { connectionId, first } = await connectWithTtl(6);
    const before = (await h.store.getConnection(connectionId))!.credentialsExpireAt!.getTime();
    // A 6 s token is refreshed in its last 1.5 s: wait for that window, while it still works.
    await waitFor(() => before - Date.now() < refreshMargin(6));
    const mark = as.tokenRequests.length;
    const apiMark = as.apiRequests.length;

    const res = await execute();
    expect(await as.isAccessTokenActive(first.accessToken)).toBe(true);
    expect(res.json).toMatchObject({ successful: true, data: { sub: "alice" } });
    expect(refreshCalls(mark)).toEqual([["refresh_token", 200]]);
    const second = await h.credentialOf(connectionId);
    expect(second.accessToken).not.toBe(first.accessToken);
    // One API call, with the new token: the refresh came first (the old token still worked).
    expect(as.apiRequests.slice(apiMark).map((r) => [r.accessToken, r.status])).toEqual([[second.accessToken, 200]]);
    expect((await h.store.getConnection(connectionId))!.credentialsExpireAt!.getTime() - Date.now()).toBeGreaterThan(3500_000);
    expect(await h.eventsOf("token.refreshed")).toContainEqual({
      connectionId,
      toolkit: "notes",
      expiresAt: expect.any(Date),
      rotated: true,
    });

    // Rotation: the new refresh token is stored, and the old one is dead at the provider.
    expect(second.refreshToken).toBeTruthy();
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect((await execute()).json.successful).toBe(true);
    expect(refreshCalls(mark)).toHaveLength(1);
    await expect(refreshDirectly(first.refreshToken!)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("refreshes once after an upstream 401 and retries the call once, for execute and for proxy", async () => {
    const { connectionId, first } = await connectWithTtl(3600);
    expect((await execute()).json.successful).toBe(true);
    await as.revokeAccessTokens();
    const mark = as.tokenRequests.length;
    const apiMark = as.apiRequests.length;

    expect((await execute()).json).toMatchObject({ successful: true, data: { sub: "alice" } });
    const second = await h.credentialOf(connectionId);
    expect(as.apiRequests.slice(apiMark).map((r) => [r.accessToken, r.status])).toEqual([
      [first.accessToken, 401],
      [second.accessToken, 200],
    ]);
    expect(refreshCalls(mark)).toEqual([["refresh_token", 200]]);

    await as.revokeAccessTokens();
    const res = await proxy();
    expect(res.json).toMatchObject({ successful: true, status: 200, data: { sub: "alice" } });
    expect(refreshCalls(mark)).toHaveLength(2);
    expect((await h.credentialOf(connectionId)).refreshToken).not.toBe(second.refreshToken);
  });

  it("the passthrough refreshes once after a 401 and retries a request without a body; one with a body gets the 401", async () => {
    const { connectionId, first } = await connectWithTtl(3600);
    const pass = (method: string, body?: unknown) => h.call(method, "/passthrough/notes/me", { key, body });
    await as.revokeAccessTokens();
    const mark = as.tokenRequests.length;
    const apiMark = as.apiRequests.length;

    const res = await pass("GET");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ sub: "alice" });
    const second = await h.credentialOf(connectionId);
    expect(as.apiRequests.slice(apiMark).map((r) => [r.accessToken, r.status])).toEqual([
      [first.accessToken, 401],
      [second.accessToken, 200],
    ]);
    expect(refreshCalls(mark)).toEqual([["refresh_token", 200]]);

    // A streamed body cannot be sent twice: the 401 is the answer, and nothing was refreshed for it.
    await as.revokeAccessTokens();
    const posted = await pass("POST", { streamed: true });
    expect(posted.status).toBe(401);
    expect(refreshCalls(mark)).toHaveLength(1);
  });

  it("retries only once: a second 401 is the call's answer", async () => {
    await connectWithTtl(3600);
    revokeBeforeEachApiCall = true;
    const mark = as.tokenRequests.length;
    const apiMark = as.apiRequests.length;
    const res = await execute();
    expect(res.json).toMatchObject({ successful: false, upstreamStatus: 401 });
    expect(as.apiRequests.slice(apiMark).map((r) => r.status)).toEqual([401, 401]);
    expect(refreshCalls(mark)).toEqual([["refresh_token", 200]]);
    const proxied = await proxy();
    expect(proxied.json).toMatchObject({ successful: false, status: 401 });
    expect(refreshCalls(mark)).toHaveLength(2);
  });

  it("saves the new tokens before the new access token is used", async () => {
    await connectDueForRefresh();
    storedBeforeUse.length = 0;
    await execute();
    await as.revokeAccessTokens();
    await execute();
    expect(storedBeforeUse).toEqual([true, true, true]);
  });

  it("a transient token endpoint failure answers 503 and keeps the connection active", async () => {
    const { connectionId, first } = await connectDueForRefresh();
    as.failNextTokenRequests(1, { status: 500, error: "server_error", grantType: "refresh_token" });
    const res = await execute();
    expect(res.status).toBe(503);
    expect(res.json.code).toBe("unavailable");
    expect(res.headers.get("retry-after")).toBeTruthy();
    expect((await listConnections(h, key)).find((c) => c.id === connectionId)).toMatchObject({ status: "active" });
    expect((await h.credentialOf(connectionId)).refreshToken).toBe(first.refreshToken);
    expect((await execute()).json.successful).toBe(true);
  });
});

describe("short-lived tokens (the margin is relative to the lifetime)", () => {
  it("the margin is a quarter of the lifetime, at most 60 s; a token saved without its lifetime gets 60 s", () => {
    expect([
      refreshMargin(3),
      refreshMargin(60),
      refreshMargin(240),
      refreshMargin(3600),
      refreshMargin(0),
      refreshMargin(undefined),
    ]).toEqual([750, 15_000, REFRESH_MARGIN_MS, REFRESH_MARGIN_MS, 0, REFRESH_MARGIN_MS]);
  });

  it("a fresh 3-second token is used as it is: no refresh on each call (a fixed 60 s margin refreshed every time)", async () => {
    as.setAccessTokenTtl(3);
    const { connectionId } = await h.connect(key);
    const mark = as.tokenRequests.length;
    for (let i = 0; i < 3; i++) expect((await execute()).json.successful).toBe(true);
    const expiresAt = (await h.store.getConnection(connectionId))!.credentialsExpireAt!.getTime();
    // Only meaningful while the token had more than its margin left; on a very slow run, say so.
    expect(expiresAt - Date.now() > refreshMargin(3) ? refreshCalls(mark) : []).toEqual([]);
  });

  it("20 concurrent calls after a 3-second token expired refresh exactly once, and the next calls reuse the new token", async () => {
    as.setAccessTokenTtl(3); // the refreshed tokens live 3 s too
    const { connectionId } = await h.connect(key);
    const first = await h.credentialOf(connectionId);
    await waitFor(async () => !(await as.isAccessTokenActive(first.accessToken)));
    as.setTokenDelay(150);
    const mark = as.tokenRequests.length;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 4 === 3 ? proxy() : execute())));
    expect(results.map((r) => r.json.successful || r.text)).toEqual(Array(20).fill(true));
    const after = await Promise.all(Array.from({ length: 5 }, () => execute()));
    expect(after.map((r) => r.json.successful)).toEqual(Array(5).fill(true));
    expect(refreshCalls(mark)).toEqual([["refresh_token", 200]]);
  });

  it("two handlers sharing the store: 20 concurrent calls after expiry refresh exactly once between them", async () => {
    const store = memoryStore();
    const a = await createOAuthHarness({ as, store });
    const b = await createOAuthHarness({ as, store });
    const agentKey = await a.issueAgentKey("agent-short");
    as.setAccessTokenTtl(3);
    const { connectionId } = await a.connect(agentKey);
    const first = await a.credentialOf(connectionId);
    await waitFor(async () => !(await as.isAccessTokenActive(first.accessToken)));
    as.setTokenDelay(150);
    const mark = as.tokenRequests.length;
    const call = (i: number) => (i % 2 ? a : b).call("POST", "/execute", { key: agentKey, body: { tool: "NOTES_ME" } });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i)));
    expect(results.map((r) => r.json?.successful ?? r.text)).toEqual(Array(20).fill(true));
    expect((await Promise.all([call(0), call(1)])).map((r) => r.json.successful)).toEqual([true, true]);
    expect(refreshCalls(mark)).toEqual([["refresh_token", 200]]);
    a.assertNoLeaks();
    b.assertNoLeaks();
  });
});

describe("invalid_grant", () => {
  it("before a call: the connection expires with the reason, the call is a 409, nothing is sent upstream", async () => {
    const { connectionId } = await connectDueForRefresh();
    await as.invalidateRefreshTokens();
    const apiMark = as.apiRequests.length;

    const res = await execute();
    expect(res.status).toBe(409);
    expect(res.json).toEqual({ code: "connection_required", error: expect.stringMatching(/invalid_grant.*Reconnect/) });
    const listed = (await listConnections(h, key)).find((c) => c.id === connectionId)!;
    expect(listed.status).toBe("expired");
    expect(listed.statusReason).toMatch(/refused the refresh token \(invalid_grant/);
    expect(await h.eventsOf("connection.expired")).toContainEqual({ connectionId, toolkit: "notes", reason: listed.statusReason });

    const mark = as.tokenRequests.length;
    expect((await execute()).json.code).toBe("connection_required");
    expect((await h.call("POST", "/execute", { key, body: { tool: "NOTES_ME", connection_id: connectionId } })).json.code).toBe(
      "connection_required",
    );
    expect((await proxy()).status).toBe(409);
    expect(tokenCalls(as, mark)).toEqual([]);
    expect(as.apiRequests.slice(apiMark)).toEqual([]);
  });

  it("after a 401: the tool call fails with connection_required, the proxy call is a 409", async () => {
    const { connectionId } = await connectWithTtl(3600);
    await as.revokeAccessTokens();
    await as.invalidateRefreshTokens();
    const apiMark = as.apiRequests.length;
    const res = await execute();
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      successful: false,
      code: "connection_required",
      error: expect.stringMatching(/expired.*invalid_grant/),
    });
    expect(as.apiRequests.slice(apiMark).map((r) => r.status)).toEqual([401]);
    expect((await listConnections(h, key)).find((c) => c.id === connectionId)).toMatchObject({ status: "expired" });
  });
});

describe("concurrency", () => {
  it("many simultaneous calls on an expired access token share exactly one refresh, and all succeed", async () => {
    // Long enough for the connect flow's own use of it on a loaded machine; then waited out.
    const { first } = await connectWithTtl(3);
    await waitFor(async () => !(await as.isAccessTokenActive(first.accessToken)));
    as.setTokenDelay(150);
    const mark = as.tokenRequests.length;
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 4 === 3 ? proxy() : execute())));
    expect(results.map((r) => r.json.successful)).toEqual(Array(40).fill(true));
    expect(tokenCalls(as, mark)).toEqual([["refresh_token", 200]]);
  });

  it("many simultaneous calls that all get a 401 share exactly one refresh, and all succeed on the retry", async () => {
    const { first } = await connectWithTtl(3600);
    await as.revokeAccessTokens();
    as.setTokenDelay(100);
    const mark = as.tokenRequests.length;
    const apiMark = as.apiRequests.length;
    const results = await Promise.all(Array.from({ length: 20 }, () => execute()));
    expect(results.map((r) => r.json.successful)).toEqual(Array(20).fill(true));
    expect(tokenCalls(as, mark)).toEqual([["refresh_token", 200]]);
    const refused = as.apiRequests.slice(apiMark).filter((r) => r.status === 401);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((r) => r.accessToken === first.accessToken)).toBe(true);
  });

  it("two handlers sharing only the store refresh once between them (the store's lease)", async () => {
    const store = memoryStore();
    const a = await createOAuthHarness({ as, store });
    const b = await createOAuthHarness({ as, store });
    const agentKey = await a.issueAgentKey("agent-x");
    as.setAccessTokenTtl(3);
    const { connectionId } = await a.connect(agentKey);
    as.setAccessTokenTtl(3600);
    const first = await a.credentialOf(connectionId);
    await waitFor(async () => !(await as.isAccessTokenActive(first.accessToken)));
    as.setTokenDelay(200);
    const mark = as.tokenRequests.length;
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).call("POST", "/execute", { key: agentKey, body: { tool: "NOTES_ME" } })),
    );
    expect(results.map((r) => r.json?.successful ?? r.text)).toEqual(Array(30).fill(true));
    expect(tokenCalls(as, mark)).toEqual([["refresh_token", 200]]);
    expect((await a.store.getConnection(connectionId))!.status).toBe("active");
    a.assertNoLeaks();
    b.assertNoLeaks();
  });
});
