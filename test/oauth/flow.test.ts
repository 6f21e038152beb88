/**
 * The OAuth 2 authorization-code flow against a real authorization server (node-oidc-provider):
 * POST /auth, the provider's sign-in and consent pages, GET /auth/callback, GET /auth/{id}, and
 * every way the callback must fail without creating a connection.
 */
import * as oauth from "oauth4webapi";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../../src/util/encoding.js";
import {
  CALLBACK_URL,
  createOAuthHarness,
  listConnections,
  notesToolkit,
  type OAuthHarness,
  RETURN_ORIGIN,
  SCOPES,
  tokenCalls,
} from "../support/oauth-harness.js";
import { type OidcServer, startOidcServer } from "../support/oidc-server.js";

let as: OidcServer;
let h: OAuthHarness;
let alice: string;
let bob: string;

beforeAll(async () => {
  as = await startOidcServer({ redirectUris: [CALLBACK_URL] });
  h = await createOAuthHarness({
    as,
    toolkits: [
      notesToolkit(as),
      notesToolkit(as, { slug: "notes-email", prefix: "EMAIL", auth: { remoteUserField: "email" } }),
      notesToolkit(as, { slug: "notes-idtoken", prefix: "IDTOKEN", auth: { userInfoUrl: undefined } }),
      notesToolkit(as, {
        slug: "notes-identify",
        prefix: "IDENTIFY",
        auth: {
          identify: async ({ accessToken, fetch }) => {
            const me = await fetch(`${as.apiBaseUrl}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
            return `api:${((await me.json()) as { sub: string }).sub}`;
          },
        },
      }),
      notesToolkit(as, { slug: "notes-badsecret", prefix: "BADSECRET", auth: { clientSecret: "not-the-client-secret-0123456789" } }),
    ],
  });
  alice = await h.issueAgentKey("agent-alice");
  bob = await h.issueAgentKey("agent-bob");
});
afterEach(() => vi.useRealTimers());
afterAll(async () => {
  h.assertNoLeaks();
  expect(as.serverErrors).toEqual([]);
  await as.close();
});

const statusOf = async (id: string, key = alice) => (await h.call("GET", `/auth/${id}`, { key })).json;
const connectionCount = async () => (await listConnections(h, alice)).length + (await listConnections(h, bob)).length;

describe("POST /auth for an OAuth 2 toolkit", () => {
  it("starts a PKCE S256 flow with a single-use state bound to the agent, toolkit, label and return URL", async () => {
    const before = Date.now();
    const started = await h.startAuth(alice, { label: "Work", returnUrl: `${RETURN_ORIGIN}/done` });
    expect(Object.keys(started).sort()).toEqual(["authorizationId", "authorizationUrl", "expiresAt"]);
    const url = new URL(started.authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(as.endpoints.authorization);
    const q = Object.fromEntries(url.searchParams);
    expect(q).toMatchObject({
      response_type: "code",
      client_id: as.clientId,
      redirect_uri: CALLBACK_URL,
      scope: SCOPES.join(" "),
      code_challenge_method: "S256",
    });
    expect(q.state).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(q.nonce).toBeTruthy();
    expect(Date.parse(started.expiresAt) - before).toBeGreaterThanOrEqual(10 * 60_000 - 1000);
    expect(Date.parse(started.expiresAt) - before).toBeLessThanOrEqual(10 * 60_000 + 1000);

    const stored = (await h.store.getAuthorization(started.authorizationId))!;
    expect(stored).toMatchObject({
      agentId: "agent-alice",
      workspaceId: "ws1",
      toolkit: "notes",
      label: "Work",
      returnUrl: `${RETURN_ORIGIN}/done`,
      status: "pending",
      consumedAt: null,
    });
    expect(stored.stateHash).toBe(await sha256Hex(q.state!));
    const secrets = JSON.parse(await h.cipher.decrypt(stored.secrets, stored.id)) as { codeVerifier: string; nonce: string };
    expect(q.code_challenge).toBe(await oauth.calculatePKCECodeChallenge(secrets.codeVerifier));
    const raw = JSON.stringify(stored);
    for (const secret of [q.state!, secrets.codeVerifier, secrets.nonce]) expect(raw).not.toContain(secret);
    // The state travels in the authorization URL by design; the verifier must never leave.
    h.addSecret(secrets.codeVerifier);
  });

  it("refuses a returnUrl whose origin is not allowed, and accepts publicUrl's own origin", async () => {
    const res = await h.call("POST", "/auth", { key: alice, body: { toolkit: "notes", returnUrl: "https://evil.test/done" } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ code: "invalid_request", error: expect.stringMatching(/returnUrl.*allowedReturnOrigins/) });
    await h.startAuth(alice, { returnUrl: "https://app.test/settings" });
  });
});

describe("GET /auth/callback", () => {
  it("exchanges the code, identifies the account by userinfo, and 303s to the return URL", async () => {
    const started = await h.startAuth(alice, { label: "Work", returnUrl: `${RETURN_ORIGIN}/done?tab=apps` });
    expect(await statusOf(started.authorizationId)).toEqual({ status: "pending" });
    const mark = as.tokenRequests.length;
    const res = await h.callback(await as.authorizeWithFetch(started.authorizationUrl), "text/html");
    expect(tokenCalls(as, mark)).toEqual([["authorization_code", 200]]);

    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(`${RETURN_ORIGIN}/done`);
    expect(location.searchParams.get("tab")).toBe("apps");
    expect(location.searchParams.get("status")).toBe("connected");
    const connectionId = location.searchParams.get("connection_id")!;
    expect(await statusOf(started.authorizationId)).toEqual({ status: "connected", connectionId });
    const listed = (await listConnections(h, alice)).find((c) => c.id === connectionId);
    expect(listed).toMatchObject({ toolkit: "notes", label: "Work", remoteUser: "alice", status: "active", statusReason: null });
    expect(await h.eventsOf("auth.completed")).toContainEqual({
      authorizationId: started.authorizationId,
      toolkit: "notes",
      agentId: "agent-alice",
      connectionId,
    });
    expect(await h.eventsOf("connection.created")).toContainEqual({
      workspaceId: expect.any(String),
      agentId: "agent-alice",
      connectionId,
      toolkit: "notes",
    });
    // The stored token works against the API.
    const exec = await h.call("POST", "/execute", { key: alice, body: { tool: "NOTES_ME", connection_id: connectionId } });
    expect(exec.json).toMatchObject({ successful: true, data: { sub: "alice", clientId: as.clientId } });
  });

  it.each([
    ["userinfo's remoteUserField (email, which the ID token of a code flow does not carry)", "notes-email", "carol", "carol@example.test"],
    ["the ID token when there is no userinfo endpoint", "notes-idtoken", "dave", "dave"],
    ["the toolkit's identify() function", "notes-identify", "erin", "api:erin"],
  ])("identifies the account through %s", async (_how, toolkit, login, remoteUser) => {
    const { connectionId } = await h.connect(alice, { toolkit }, { login });
    const listed = (await listConnections(h, alice)).find((c) => c.id === connectionId);
    expect(listed).toMatchObject({ toolkit, remoteUser, status: "active" });
  });

  it("without a returnUrl, shows a small HTML page to a browser and JSON to a script", async () => {
    const page = await h.callback(await as.authorizeWithFetch((await h.startAuth(alice)).authorizationUrl), "text/html");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
    expect(page.text).toMatch(/<h1>Connected<\/h1>/);

    const started = await h.startAuth(alice);
    const json = await h.callback(await as.authorizeWithFetch(started.authorizationUrl));
    expect(json.status).toBe(200);
    expect(json.json).toEqual({ status: "connected", connectionId: expect.stringMatching(/^conn_/) });
    expect((await statusOf(started.authorizationId)).connectionId).toBe(json.json.connectionId);
  });

  it("binds the connection to the agent that started the flow, whoever opens the callback", async () => {
    const { started, connectionId } = await h.connect(alice, { label: "Alice's" });
    expect((await listConnections(h, alice)).map((c) => c.id)).toContain(connectionId);
    expect(await listConnections(h, bob)).toEqual([]);
    expect((await h.call("GET", `/auth/${started.authorizationId}`, { key: bob })).status).toBe(404);
    const exec = await h.call("POST", "/execute", { key: bob, body: { tool: "NOTES_ME", connection_id: connectionId } });
    expect(exec.json.code).toBe("not_found");
  });
});

describe("a callback that fails creates no connection and says why", () => {
  /** Runs `attempt`, then checks that no agent gained a connection. */
  async function expectNoConnection(attempt: () => Promise<void>) {
    const before = await connectionCount();
    await attempt();
    expect(await connectionCount()).toBe(before);
  }
  const expectFailed = async (authorizationId: string, error: RegExp) => {
    expect(await statusOf(authorizationId)).toEqual({ status: "failed", error: expect.stringMatching(error) });
    expect(await h.eventsOf("auth.failed")).toContainEqual({
      authorizationId,
      toolkit: expect.any(String),
      agentId: "agent-alice",
      error: expect.stringMatching(error),
    });
  };

  it("denied consent: a 303 to the return URL with status=failed and the error, and no code exchange", async () => {
    await expectNoConnection(async () => {
      const started = await h.startAuth(alice, { returnUrl: `${RETURN_ORIGIN}/done` });
      const mark = as.tokenRequests.length;
      const res = await h.callback(await as.authorizeWithFetch(started.authorizationUrl, { decision: "deny" }), "text/html");
      expect(res.status).toBe(303);
      const location = new URL(res.headers.get("location")!);
      expect(location.searchParams.get("status")).toBe("failed");
      expect(location.searchParams.get("error")).toMatch(/denied/);
      expect(location.searchParams.has("connection_id")).toBe(false);
      expect(tokenCalls(as, mark)).toEqual([]);
      await expectFailed(started.authorizationId, /Access was denied/);
    });
  });

  it("a replayed callback URL: the second use is a 400 page and makes no token request", async () => {
    const { callbackUrl } = await h.connect(alice);
    await expectNoConnection(async () => {
      const mark = as.tokenRequests.length;
      const replay = await h.callback(callbackUrl, "text/html");
      expect(replay.status).toBe(400);
      expect(replay.text).toMatch(/invalid, expired or already used/);
      expect(tokenCalls(as, mark)).toEqual([]);
      const json = await h.callback(callbackUrl);
      expect(json.json).toEqual({ code: "invalid_request", error: expect.stringMatching(/already used/) });
    });
  });

  it("an expired state: valid until 10 minutes, then the callback is refused and the status is expired", async () => {
    const started = await h.startAuth(alice);
    const callbackUrl = await as.authorizeWithFetch(started.authorizationUrl);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 10 * 60_000 - 5_000 });
    expect(await statusOf(started.authorizationId)).toEqual({ status: "pending" });
    vi.setSystemTime(Date.now() + 10_000);
    expect(await statusOf(started.authorizationId)).toEqual({ status: "expired" });
    await expectNoConnection(async () => {
      const res = await h.callback(callbackUrl, "text/html");
      expect(res.status).toBe(400);
      expect(res.text).toMatch(/expired/);
    });
    expect(await statusOf(started.authorizationId)).toEqual({ status: "expired" });
  });

  it("a tampered state is refused and leaves the real authorization untouched", async () => {
    const started = await h.startAuth(alice);
    const callbackUrl = await as.authorizeWithFetch(started.authorizationUrl);
    const tampered = new URL(callbackUrl);
    const state = tampered.searchParams.get("state")!;
    tampered.searchParams.set("state", `${state.slice(0, -1)}${state.endsWith("A") ? "B" : "A"}`);
    await expectNoConnection(async () => {
      expect((await h.callback(tampered)).status).toBe(400);
      const missing = new URL(callbackUrl);
      missing.searchParams.delete("state");
      expect((await h.callback(missing)).status).toBe(400);
    });
    expect(await statusOf(started.authorizationId)).toEqual({ status: "pending" });
    expect((await h.callback(callbackUrl)).json.status).toBe("connected");
  });

  it("a foreign state (started by another handler with its own store) is refused", async () => {
    const other = await createOAuthHarness({ as });
    const started = await other.startAuth(await other.issueAgentKey("agent-alice"));
    const callbackUrl = await as.authorizeWithFetch(started.authorizationUrl);
    await expectNoConnection(async () => {
      const mark = as.tokenRequests.length;
      expect((await h.callback(callbackUrl)).status).toBe(400);
      expect(tokenCalls(as, mark)).toEqual([]);
    });
    expect((await other.callback(callbackUrl)).json.status).toBe("connected");
    other.assertNoLeaks();
  });

  it.each([
    ["a mismatched iss", (url: URL) => url.searchParams.set("iss", "http://127.0.0.1:1")],
    ["a missing iss (the issuer is configured)", (url: URL) => url.searchParams.delete("iss")],
  ])("%s fails before the code exchange, and burns the state", async (_name, forge) => {
    const started = await h.startAuth(alice);
    const callbackUrl = await as.authorizeWithFetch(started.authorizationUrl);
    const forged = new URL(callbackUrl);
    forge(forged);
    await expectNoConnection(async () => {
      const mark = as.tokenRequests.length;
      const res = await h.callback(forged, "text/html");
      expect(res.status).toBe(400);
      expect(res.text).toMatch(/did not match this authorization/);
      expect(tokenCalls(as, mark)).toEqual([]);
      expect((await h.callback(callbackUrl)).status).toBe(400);
    });
    await expectFailed(started.authorizationId, /issuer or state/);
  });

  it("a code exchange the provider refuses (invalid_grant)", async () => {
    const started = await h.startAuth(alice, { returnUrl: `${RETURN_ORIGIN}/done` });
    const callbackUrl = await as.authorizeWithFetch(started.authorizationUrl);
    as.failNextTokenRequests(1, { grantType: "authorization_code" });
    await expectNoConnection(async () => {
      const res = await h.callback(callbackUrl);
      expect(res.status).toBe(303);
      expect(new URL(res.headers.get("location")!).searchParams.get("error")).toMatch(/refused the code exchange \(invalid_grant\)/);
    });
    await expectFailed(started.authorizationId, /invalid_grant/);
  });

  it("a code exchange with a wrong client secret", async () => {
    const started = await h.startAuth(alice, { toolkit: "notes-badsecret" });
    const mark = as.tokenRequests.length;
    await expectNoConnection(async () => {
      const res = await h.callback(await as.authorizeWithFetch(started.authorizationUrl));
      expect(res.json).toEqual({ code: "invalid_request", error: expect.stringMatching(/could not be exchanged/) });
    });
    expect(tokenCalls(as, mark)).toEqual([["authorization_code", 401]]);
    await expectFailed(started.authorizationId, /could not be exchanged/);
  });
});

describe("secrets at rest and in events", () => {
  it("stores no token, code or code_verifier readably, and hooks carry none", async () => {
    // Its own completed and failed flows, so that the check has material when the test runs alone.
    await h.callback(await as.authorizeWithFetch((await h.startAuth(alice)).authorizationUrl, { decision: "deny" }));
    const { connectionId } = await h.connect(alice);
    const credential = await h.credentialOf(connectionId);
    expect(credential.accessToken && credential.refreshToken && credential.idToken).toBeTruthy();
    const secrets = h.secrets();
    for (const token of [credential.accessToken, credential.refreshToken!, credential.idToken!]) expect(secrets).toContain(token);

    const connections = await h.store.listConnections({ workspaceId: "ws1" });
    const authorizations = await Promise.all(h.authorizationIds.map((id) => h.store.getAuthorization(id)));
    expect(connections.length).toBeGreaterThan(0);
    expect(authorizations.length).toBeGreaterThan(1);
    const atRest = JSON.stringify([connections, authorizations]);
    const found = secrets.filter((secret) => atRest.includes(secret));
    expect(found).toEqual([]);
    // The token-bearing events were recorded, and assertNoLeaks (afterAll) checks them all.
    expect((await h.eventsOf("auth.completed")).length).toBeGreaterThan(0);
    expect((await h.eventsOf("auth.failed")).length).toBeGreaterThan(0);
  });
});
