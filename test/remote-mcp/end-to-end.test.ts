/**
 * A remote MCP server as a toolkit, end to end over real HTTP: the handler on node:http (its
 * OAuth callback served there too), the fixture's MCP server (the official SDK's server over
 * Streamable HTTP, and HTTP+SSE) behind node-oidc-provider with dynamic registration, resource
 * indicators and rotating refresh tokens (test/support/remote-mcp-server.ts), all on loopback.
 *
 * Discovery, registration and the code flow as a browser runs it; tools listed per connection; a
 * call with arguments and a structured result; a failing call; a token that expires mid-session
 * and is refreshed once for 20 concurrent calls; a server that changes its tool list; a deleted
 * connection; the older HTTP+SSE transport. No answer is a 500 and no token leaks.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineToolkit, type Toolkit } from "../../src/index.js";
import { type E2e, startE2e, uniqueName, waitFor } from "../support/remote-mcp-e2e.js";
import { DEFAULT_USERS, type RemoteMcp, startRemoteMcp } from "../support/remote-mcp-server.js";

let remote: RemoteMcp;
let toolkit: Toolkit;
let sse: Toolkit;
let e: E2e;
let alice: string;
let bob: string;
let aliceConnection: string;
let bobConnection: string;

beforeAll(async () => {
  remote = await startRemoteMcp();
  toolkit = defineToolkit({
    slug: uniqueName("notes"),
    name: "Fixture notes",
    description: "The fixture's notes MCP server.",
    mcp: remote.url,
  });
  sse = defineToolkit({
    slug: uniqueName("notes-sse"),
    name: "Fixture notes (SSE)",
    description: "The fixture's notes MCP server over HTTP+SSE.",
    mcp: { url: remote.sseUrl, transport: "sse" },
  });
  e = await startE2e({ toolkits: [toolkit, sse], timeouts: { toolMs: 30_000 } });
  alice = await e.issueAgentKey();
  bob = await e.issueAgentKey();
}, 60_000);

afterAll(async () => {
  e.assertNo500();
  e.assertNoLeaks();
  // The leak check had tokens to look for: the handler sent bearer tokens to the server.
  expect(e.bearerTokensSent.length).toBeGreaterThan(0);
  expect(remote.authorizationServer?.serverErrors).toEqual([]);
  await e?.close();
  await remote?.close();
});

const as = () => remote.authorizationServer!;
/** The fixture's token requests from index `from` on, as `[grant type, status]`. */
const tokenCalls = (from: number) =>
  as()
    .tokenRequests.slice(from)
    .map((r) => [r.grantType, r.status]);
/** The client `clientId` as the authorization server registered it (oidc-provider's Client model). */
const registeredClient = (clientId: string) =>
  (
    as().provider as unknown as { Client: { find(id: string): Promise<{ redirectUris: string[]; grantTypes: string[] } | undefined> } }
  ).Client.find(clientId);
const slugsOf = (user: string) => DEFAULT_USERS[user]!.map((name) => `${toolkit.slug}.${name}`).sort();
const listed = async (key: string, connectionId?: string) => {
  const res = await e.call("GET", `/toolkit/${toolkit.slug}${connectionId ? `?connection_id=${connectionId}` : ""}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.json as {
    slug: string;
    tools: Array<{ slug: string; name: string; description: string; inputParameters: any; annotations?: any }>;
  };
};

describe("connecting a remote MCP server (the MCP authorization spec, over HTTP)", () => {
  it("discovers the server's authorization server, registers a client once, and runs the PKCE code flow with resource", async () => {
    const tokenMark = as().tokenRequests.length;
    const unauthorizedBefore = remote.stats.unauthorized;

    const first = await e.connect(alice, toolkit.slug, "alice");
    aliceConnection = first.connectionId;
    // Discovery began with the server's 401 challenge.
    expect(remote.stats.unauthorized).toBeGreaterThan(unauthorizedBefore);
    const url = first.authorizationUrl;
    expect(`${url.origin}${url.pathname}`).toBe(as().endpoints.authorization);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: "code",
      resource: remote.url,
      code_challenge_method: "S256",
      scope: remote.scope,
      redirect_uri: `${e.baseUrl}/auth/callback`,
    });
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The client was registered dynamically at the fixture's authorization server (RFC 7591).
    const clientId = url.searchParams.get("client_id")!;
    const client = await registeredClient(clientId);
    expect(client?.redirectUris).toEqual([`${e.baseUrl}/auth/callback`]);
    expect(client?.grantTypes).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
    // The callback exchanged the code, once.
    expect(tokenCalls(tokenMark)).toEqual([["authorization_code", 200]]);

    // A second person's connection reuses the registered client.
    const second = await e.connect(bob, toolkit.slug, "bob");
    bobConnection = second.connectionId;
    expect(second.authorizationUrl.searchParams.get("client_id")).toBe(clientId);
    expect(tokenCalls(tokenMark)).toEqual([
      ["authorization_code", 200],
      ["authorization_code", 200],
    ]);

    const connections = await e.call("GET", "/connections", { key: alice });
    expect(connections.json.connections).toEqual([
      expect.objectContaining({ id: aliceConnection, toolkit: toolkit.slug, status: "active" }),
    ]);
  });
});

describe("tools listed per connection", () => {
  it("alice's and bob's connections each see their own tools, with the server's schemas and hints", async () => {
    const aliceTools = await listed(alice);
    expect(aliceTools.tools.map((t) => t.slug).sort()).toEqual(slugsOf("alice"));
    const bobTools = await listed(bob);
    expect(bobTools.tools.map((t) => t.slug).sort()).toEqual(slugsOf("bob"));
    // Listed from the server in each person's own session.
    expect(remote.stats.sessionUserMismatches).toBe(0);
    expect(new Set(remote.sessions().map((s) => s.user))).toEqual(new Set(["alice", "bob"]));

    const add = aliceTools.tools.find((t) => t.slug === `${toolkit.slug}.add_note`)!;
    expect(add).toMatchObject({
      name: "Add a note",
      description: "Adds a note for the caller and returns it.",
      inputParameters: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
      annotations: { readOnly: false, destructive: false, idempotent: false },
    });
    // The search of the toolkit's tools searches the caller's list.
    const search = await e.call("GET", `/toolkit/${toolkit.slug}/search?query=admin%20report`, { key: bob });
    expect(search.status, search.text).toBe(200);
    expect(search.json.tools.map((t: { slug: string }) => t.slug)).not.toContain(`${toolkit.slug}.admin_report`);
    const aliceSearch = await e.call("GET", `/toolkit/${toolkit.slug}/search?query=admin%20report`, { key: alice });
    expect(aliceSearch.json.tools.map((t: { slug: string }) => t.slug)).toContain(`${toolkit.slug}.admin_report`);
  });

  it("an agent with bob's connection cannot call alice's admin_report: a 404, and nothing reaches the server", async () => {
    const before = remote.stats.toolCalls.admin_report ?? 0;
    const res = await e.execute(bob, `${toolkit.slug}.admin_report`);
    expect(res.status, res.text).toBe(404);
    expect(res.json).toMatchObject({ code: "not_found" });
    const explicit = await e.execute(bob, `${toolkit.slug}.admin_report`, {}, bobConnection);
    expect(explicit.status, explicit.text).toBe(404);
    // Naming alice's connection does not help bob.
    const other = await e.execute(bob, `${toolkit.slug}.admin_report`, {}, aliceConnection);
    expect(other.status, other.text).toBe(404);
    expect(remote.stats.toolCalls.admin_report ?? 0).toBe(before);
    // And alice's own call works.
    const own = await e.execute(alice, `${toolkit.slug}.admin_report`);
    expect(own.json, own.text).toMatchObject({ successful: true, data: "report for alice: 1 notes" });
  });

  it("one agent with both connections sees each connection's tools by connection_id", async () => {
    const both = await e.issueAgentKey();
    const a = await e.connect(both, toolkit.slug, "alice");
    const b = await e.connect(both, toolkit.slug, "bob");
    expect((await listed(both, a.connectionId)).tools.map((t) => t.slug).sort()).toEqual(slugsOf("alice"));
    expect((await listed(both, b.connectionId)).tools.map((t) => t.slug).sort()).toEqual(slugsOf("bob"));
    const echo = await e.execute(both, `${toolkit.slug}.echo`, { text: "whose?" }, b.connectionId);
    expect(echo.json, echo.text).toMatchObject({ successful: true, data: { text: "whose?", user: "bob" } });
    const refused = await e.execute(both, `${toolkit.slug}.admin_report`, {}, b.connectionId);
    expect(refused.status, refused.text).toBe(404);
  });
});

describe("calls", () => {
  it("a call with arguments gets the tool's structured result", async () => {
    const title = `note ${uniqueName("t")}`;
    const res = await e.execute(alice, `${toolkit.slug}.add_note`, { title, body: "from the end-to-end test" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ successful: true, data: { id: expect.stringMatching(/^alice-\d+$/), title } });
    expect(remote.notes("alice").map((n) => n.title)).toContain(title);
    expect(remote.notes("bob").map((n) => n.title)).not.toContain(title);
    const list = await e.execute(alice, `${toolkit.slug}.list_notes`, { limit: 1 });
    expect(list.json, list.text).toMatchObject({ successful: true, data: { notes: [{ id: res.json.data.id, title }] } });
  });

  it("arguments that do not fit the tool's schema are refused here, before any call upstream", async () => {
    const before = remote.stats.toolCalls.add_note ?? 0;
    const res = await e.execute(alice, `${toolkit.slug}.add_note`, { title: 42 });
    expect(res.status, res.text).toBe(400);
    expect(res.json).toMatchObject({ code: "invalid_request" });
    expect(remote.stats.toolCalls.add_note ?? 0).toBe(before);
  });

  it("a tool that fails answers successful: false with the tool's own sentence", async () => {
    const res = await e.execute(alice, `${toolkit.slug}.always_fails`);
    expect(res.json, res.text).toMatchObject({ successful: false, error: expect.stringContaining("the note service is unavailable") });
    expect(res.status).not.toBe(500);
    const threw = await e.execute(alice, `${toolkit.slug}.throws`);
    expect(threw.json, threw.text).toMatchObject({ successful: false, error: expect.stringContaining("the tool threw") });
  });
});

describe("a token that expires mid-session", () => {
  it("is refreshed once for 20 concurrent calls (the server rotates refresh tokens and revokes a reused one)", {
    timeout: 60_000,
  }, async () => {
    const key = await e.issueAgentKey();
    remote.setAccessTokenTtl(2);
    let connectionId: string;
    try {
      connectionId = (await e.connect(key, toolkit.slug, "alice")).connectionId;
      // The session opens with the short-lived token (or one refreshed as short, on a slow machine).
      const opening = await e.execute(key, `${toolkit.slug}.echo`, { text: "open" });
      expect(opening.json, opening.text).toMatchObject({ successful: true });
    } finally {
      remote.setAccessTokenTtl(3600);
    }
    const initializes = remote.stats.initializes;
    // Wait until the token the session holds has expired.
    const expiry = async () => (await e.store.getConnection(connectionId))!.credentialsExpireAt!.getTime();
    await waitFor("the access token to expire", async () => Date.now() > (await expiry()) + 50);
    const tokenMark = as().tokenRequests.length;

    const texts = Array.from({ length: 20 }, (_, i) => `call ${i}`);
    const answers = await Promise.all(texts.map((text) => e.execute(key, `${toolkit.slug}.echo`, { text })));
    expect(answers.map((a) => a.json)).toEqual(
      texts.map((text) => expect.objectContaining({ successful: true, data: { text, user: "alice" } })),
    );
    expect(tokenCalls(tokenMark)).toEqual([["refresh_token", 200]]);
    expect(await expiry()).toBeGreaterThan(Date.now() + 600_000);
    // The MCP session went on with the new token: no new initialize.
    expect(remote.stats.initializes).toBe(initializes);
    const connection = await e.call("GET", "/connections", { key });
    expect(connection.json.connections).toEqual([expect.objectContaining({ id: connectionId, status: "active" })]);
  });
});

describe("a server that changes its tool list", () => {
  it("the next listing shows the change (notifications/tools/list_changed), and a removed tool is a 404", { timeout: 60_000 }, async () => {
    await listed(bob); // bob's session is open and his list is kept
    const sent = remote.stats.listChangedSent;
    remote.setUserTools("bob", ["list_notes", "echo", "slow"]);
    try {
      expect(remote.stats.listChangedSent).toBeGreaterThan(sent);
      const expected = ["echo", "list_notes", "slow"].map((name) => `${toolkit.slug}.${name}`);
      // Well within the list's TTL (minutes): only the notification can have dropped it.
      await waitFor("bob's listing to show the change", async () => {
        const tools = (await listed(bob)).tools.map((t) => t.slug).sort();
        return JSON.stringify(tools) === JSON.stringify(expected);
      });
      const removed = await e.execute(bob, `${toolkit.slug}.add_note`, { title: "gone" });
      expect(removed.status, removed.text).toBe(404);
      const added = await e.execute(bob, `${toolkit.slug}.slow`, { ms: 1 });
      expect(added.json, added.text).toMatchObject({ successful: true, data: "waited 1 ms" });
      // Alice's list did not change.
      expect((await listed(alice)).tools.map((t) => t.slug).sort()).toEqual(slugsOf("alice"));
    } finally {
      remote.setUserTools("bob", [...DEFAULT_USERS.bob!]);
    }
  });
});

describe("a deleted connection", () => {
  it("is revoked at the authorization server, its token stops working, and the next call is refused here without a call upstream", {
    timeout: 60_000,
  }, async () => {
    const key = await e.issueAgentKey();
    const { connectionId } = await e.connect(key, toolkit.slug, "alice");
    const echo = await e.execute(key, `${toolkit.slug}.echo`, { text: "before" });
    expect(echo.json, echo.text).toMatchObject({ successful: true });
    const token = e.bearerTokensSent.at(-1)!;
    const revocations = as().revocations.length;

    const deleted = await e.call("DELETE", `/connections/${connectionId}`, { key });
    expect(deleted.status, deleted.text).toBeLessThan(300);
    // The refresh token (and with it the grant) was revoked at the authorization server.
    await waitFor("the revocation", () =>
      as()
        .revocations.slice(revocations)
        .some((r) => r.status === 200),
    );
    const direct = await fetch(remote.url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    await direct.body?.cancel();
    expect(direct.status).toBe(401);

    const requests = remote.stats.requests;
    const named = await e.execute(key, `${toolkit.slug}.echo`, { text: "after" }, connectionId);
    expect(named.status, named.text).toBe(404);
    const unnamed = await e.execute(key, `${toolkit.slug}.echo`, { text: "after" });
    expect(unnamed.status, unnamed.text).toBe(409);
    expect(unnamed.json).toMatchObject({ code: "connection_required" });
    expect(remote.stats.requests).toBe(requests);
  });
});

describe("a deleted connection's MCP session", () => {
  it("is ended at the server, and its kept tool list no longer counted for the agent", { timeout: 60_000 }, async () => {
    const key = await e.issueAgentKey();
    const { connectionId } = await e.connect(key, toolkit.slug, "alice");
    const before = new Set(remote.sessions().map((s) => s.id));
    const echo = await e.execute(key, `${toolkit.slug}.echo`, { text: "open a session" });
    expect(echo.json, echo.text).toMatchObject({ successful: true });
    const opened = remote.sessions().filter((s) => !before.has(s.id));
    expect(opened).toHaveLength(1);

    expect((await e.call("DELETE", `/connections/${connectionId}`, { key })).status).toBeLessThan(300);
    // The session holds a revoked credential: it should end (HTTP DELETE with its Mcp-Session-Id), not idle for minutes.
    await waitFor(
      "the deleted connection's session to end at the server",
      () => !remote.sessions().some((s) => s.id === opened[0]!.id),
      10_000,
    );
    const search = await e.call("GET", `/search?keywords=${encodeURIComponent(toolkit.name)}`, { key });
    expect(search.json.toolkits.find((t: { slug: string }) => t.slug === toolkit.slug)).toMatchObject({ connected: false, toolCount: 0 });
  });
});

describe("the older HTTP+SSE transport", () => {
  it("connects, lists and calls over GET /sse and POST /messages", async () => {
    const key = await e.issueAgentKey();
    const { authorizationUrl } = await e.connect(key, sse.slug, "alice");
    expect(authorizationUrl.searchParams.get("resource")).toBe(remote.sseUrl);
    const tools = await e.call("GET", `/toolkit/${sse.slug}`, { key });
    expect(tools.json.tools.map((t: { slug: string }) => t.slug).sort(), tools.text).toEqual(
      DEFAULT_USERS.alice!.map((name) => `${sse.slug}.${name}`).sort(),
    );
    const echo = await e.execute(key, `${sse.slug}.echo`, { text: "over sse" });
    expect(echo.json, echo.text).toMatchObject({ successful: true, data: { text: "over sse", user: "alice" } });
    expect(remote.sessions().some((s) => s.transport === "sse" && s.user === "alice")).toBe(true);
  });
});

describe("a deployer's own confidential client", () => {
  it("is used instead of a registration; its secret goes only to the token and revocation endpoints, never out", {
    timeout: 60_000,
  }, async () => {
    let clientSecret = "";
    let clientId = "";
    const toolkitSlug = uniqueName("confidential");
    const configured = await startE2e({
      toolkits: async (baseUrl) => {
        // Registered beforehand, as a deployer would, with this handler's callback URL.
        const response = await fetch(as().endpoints.registration, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            client_name: "deployer's client",
            redirect_uris: [`${baseUrl}/auth/callback`],
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"],
            token_endpoint_auth_method: "client_secret_basic",
          }),
        });
        const client = (await response.json()) as { client_id: string; client_secret: string };
        expect(response.status).toBe(201);
        clientId = client.client_id;
        clientSecret = client.client_secret;
        return [defineToolkit({ slug: toolkitSlug, name: "Notes, own client", description: "", mcp: remote.url, clientId, clientSecret })];
      },
    });
    try {
      configured.addSecret(clientSecret);
      const key = await configured.issueAgentKey();
      const tokenMark = as().tokenRequests.length;
      const { authorizationUrl, connectionId } = await configured.connect(key, toolkitSlug, "alice");
      expect(authorizationUrl.searchParams.get("client_id")).toBe(clientId);
      expect(
        as()
          .tokenRequests.slice(tokenMark)
          .map((r) => [r.grantType, r.authMethod, r.status]),
      ).toEqual([["authorization_code", "client_secret_basic", 200]]);
      const echo = await configured.execute(key, `${toolkitSlug}.echo`, { text: "own client" });
      expect(echo.json, echo.text).toMatchObject({ successful: true, data: { text: "own client", user: "alice" } });
      const revocations = as().revocations.length;
      expect((await configured.call("DELETE", `/connections/${connectionId}`, { key })).status).toBeLessThan(300);
      await waitFor("the revocation", () =>
        as()
          .revocations.slice(revocations)
          .some((r) => r.status === 200),
      );
      expect(
        as()
          .revocations.slice(revocations)
          .every((r) => r.authMethod === "client_secret_basic"),
      ).toBe(true);
      configured.assertNo500();
      configured.assertNoLeaks();
      expect(configured.secrets()).toContain(clientSecret);
    } finally {
      await configured.close();
    }
  });
});

describe("the leak check", () => {
  it("fails on a token in an answer or a log line (so its silence means something)", () => {
    const token = e.bearerTokensSent.at(-1)!;
    expect(e.secrets()).toContain(token);
    e.logs.push({ level: "warn", message: "probe", fields: { nested: { error: new Error(`refused ${token}`) } } });
    expect(() => e.assertNoLeaks()).toThrow(/secrets leaked/);
    e.logs.pop();
    e.answers.push({ what: "GET /probe", status: 200, headers: { "x-probe": token }, text: "" });
    expect(() => e.assertNoLeaks()).toThrow(/secrets leaked/);
    e.answers.pop();
    e.assertNoLeaks();
  });
});
