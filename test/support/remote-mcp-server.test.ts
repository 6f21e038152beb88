import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_MISSING, chromiumAvailable, keepBrowserLocal, launchChromium, signInAndConsent } from "./oidc-browser.js";
import { startOidcServer } from "./oidc-server.js";
import { connectSdkClient, DEFAULT_USERS, obtainToken, type RemoteMcp, startRemoteMcp } from "./remote-mcp-server.js";

const clients: Client[] = [];

/** An SDK client connected over Streamable HTTP (or HTTP+SSE) with a bearer token. */
async function connect(url: string, token: string | undefined, transport: "streamable-http" | "sse" = "streamable-http"): Promise<Client> {
  const requestInit = token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } };
  const client = new Client({ name: "fixture-test", version: "1.0.0" });
  await client.connect(
    transport === "sse" ? new SSEClientTransport(new URL(url), requestInit) : new StreamableHTTPClientTransport(new URL(url), requestInit),
  );
  clients.push(client);
  return client;
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function text(result: unknown): string {
  const content = (result as CallToolResult).content[0];
  return content?.type === "text" ? content.text : "";
}

function expOf(jwt: string): number {
  return (JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as { exp: number }).exp;
}

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
});

describe("remote MCP fixture with OAuth on the same origin", () => {
  let remote: RemoteMcp;
  beforeAll(async () => {
    remote = await startRemoteMcp();
  });
  afterAll(async () => remote.close());

  it("answers a request without a token with 401 naming its resource metadata, which names the authorization server", async () => {
    const before = remote.stats.unauthorized;
    const response = await fetch(remote.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    await response.body?.cancel();
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${remote.resourceMetadataUrl}"`);
    expect(remote.stats.unauthorized).toBe(before + 1);

    remote.setChallengeResourceMetadata(false);
    const bare = await fetch(remote.url, { method: "POST" });
    await bare.body?.cancel();
    remote.setChallengeResourceMetadata(true);
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).not.toContain("resource_metadata");

    const prm = (await (await fetch(remote.resourceMetadataUrl)).json()) as Record<string, unknown>;
    expect(prm).toMatchObject({ resource: remote.url, authorization_servers: [remote.origin], scopes_supported: ["mcp:tools"] });
    const rfc8414 = (await (await fetch(`${remote.origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    const openid = (await (await fetch(`${remote.origin}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    for (const metadata of [rfc8414, openid]) {
      expect(metadata).toMatchObject({ issuer: remote.origin, code_challenge_methods_supported: ["S256"] });
      expect(metadata.registration_endpoint).toBe(`${remote.origin}/reg`);
      expect(metadata.revocation_endpoint).toBe(`${remote.origin}/token/revocation`);
    }
  });

  it("lists and calls each user's own tools with a token from the real flow", async () => {
    const [aliceToken, bobToken] = await Promise.all([obtainToken(remote, { login: "alice" }), obtainToken(remote, { login: "bob" })]);
    expect(aliceToken.refreshToken).toBeTruthy();
    const alice = await connect(remote.url, aliceToken.accessToken);
    const bob = await connect(remote.url, bobToken.accessToken);

    const aliceTools = (await alice.listTools()).tools;
    expect(aliceTools.map((t) => t.name)).toEqual(DEFAULT_USERS.alice);
    expect((await bob.listTools()).tools.map((t) => t.name)).toEqual(["list_notes", "add_note", "echo"]);
    const listNotes = aliceTools.find((t) => t.name === "list_notes");
    expect(listNotes).toMatchObject({ title: "List notes", annotations: { readOnlyHint: true } });
    expect(listNotes?.outputSchema).toMatchObject({ type: "object" });

    const added = await alice.callTool({ name: "add_note", arguments: { title: "Buy milk" } });
    expect(added.structuredContent).toEqual({ id: "alice-2", title: "Buy milk" });
    const listed = await alice.callTool({ name: "list_notes", arguments: {} });
    expect(listed.structuredContent).toEqual({
      notes: [
        { id: "alice-1", title: "alice's first note" },
        { id: "alice-2", title: "Buy milk" },
      ],
    });
    expect((await bob.callTool({ name: "list_notes", arguments: {} })).structuredContent).toEqual({
      notes: [{ id: "bob-1", title: "bob's first note" }],
    });
    expect(await alice.callTool({ name: "echo", arguments: { text: "hi" } })).toMatchObject({
      structuredContent: { text: "hi", user: "alice" },
    });

    const failed = await alice.callTool({ name: "always_fails", arguments: {} });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toBe("the note service is unavailable");
    const thrown = await alice.callTool({ name: "throws", arguments: {} });
    expect(thrown.isError).toBe(true);
    expect(text(thrown)).toContain("the tool threw");
    const hidden = await bob.callTool({ name: "admin_report", arguments: {} });
    expect(hidden.isError).toBe(true);

    expect(remote.stats.toolCalls).toMatchObject({ add_note: 1, list_notes: 2, always_fails: 1, throws: 1, admin_report: 1, echo: 1 });
    expect(remote.stats.initializes).toBeGreaterThanOrEqual(2);
    expect(remote.sessions().map((s) => s.user)).toEqual(expect.arrayContaining(["alice", "bob"]));
    expect(remote.authorizationServer?.serverErrors).toEqual([]);
  });

  it("refuses another user's token on a session, and a token for another resource", async () => {
    const [aliceToken, bobToken, sseToken] = await Promise.all([
      obtainToken(remote, { login: "alice" }),
      obtainToken(remote, { login: "bob" }),
      obtainToken(remote, { login: "alice", transport: "sse" }),
    ]);
    const alice = await connect(remote.url, aliceToken.accessToken);
    await alice.listTools();
    const sessionId = (alice.transport as StreamableHTTPClientTransport).sessionId ?? "";
    const before = remote.stats.sessionUserMismatches;
    const stolen = await fetch(remote.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${bobToken.accessToken}`,
        "mcp-session-id": sessionId,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    await stolen.body?.cancel();
    expect(stolen.status).toBe(403);
    expect(remote.stats.sessionUserMismatches).toBe(before + 1);

    await expect(connect(remote.url, sseToken.accessToken)).rejects.toThrow();
    await expect(connect(remote.url, "not-a-token")).rejects.toThrow();
  });

  it("sends notifications/tools/list_changed to open sessions when a user's tools change", async () => {
    const token = await obtainToken(remote, { login: "dave" });
    const dave = await connect(remote.url, token.accessToken);
    expect((await dave.listTools()).tools).toEqual([]);
    let changed = 0;
    dave.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed += 1;
    });
    remote.setUserTools("dave", ["echo", "list_notes"]);
    await until(() => changed >= 2, "two list_changed notifications");
    expect((await dave.listTools()).tools.map((t) => t.name)).toEqual(["echo", "list_notes"]);
    remote.setUserTools("dave", ["list_notes"]);
    await until(() => changed >= 3, "a third list_changed notification");
    expect((await dave.listTools()).tools.map((t) => t.name)).toEqual(["list_notes"]);
    expect(remote.userTools("dave")).toEqual(["list_notes"]);
  });

  it("refuses an expired token, accepts the refreshed one, and refuses tokens of a revoked grant", async () => {
    remote.setAccessTokenTtl(1);
    const token = await obtainToken(remote, { login: "alice" });
    remote.setAccessTokenTtl(3600);
    const client = await connect(remote.url, token.accessToken);
    await until(() => Date.now() >= expOf(token.accessToken) * 1000, "the access token to expire", 5000);
    const before = remote.stats.unauthorized;
    await expect(client.listTools()).rejects.toThrow();
    expect(remote.stats.unauthorized).toBeGreaterThan(before);

    const refreshed = await token.refresh();
    expect(refreshed.accessToken).not.toBe(token.accessToken);
    const again = await connect(remote.url, refreshed.accessToken);
    expect((await again.listTools()).tools.length).toBeGreaterThan(0);

    const revoked = await fetch(remote.authorizationServer?.endpoints.revocation ?? "", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: refreshed.refreshToken ?? "", token_type_hint: "refresh_token", client_id: refreshed.clientId }),
    });
    expect(revoked.status).toBe(200);
    await expect(again.listTools()).rejects.toThrow();
    await expect(refreshed.refresh()).rejects.toThrow(/invalid_grant/);
  });

  it("serves the older HTTP+SSE transport behind the same bearer check", async () => {
    const response = await fetch(remote.sseUrl);
    await response.body?.cancel();
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain(`resource_metadata="${remote.sseResourceMetadataUrl}"`);

    const token = await obtainToken(remote, { login: "bob", transport: "sse" });
    const bob = await connect(remote.sseUrl, token.accessToken, "sse");
    expect((await bob.listTools()).tools.map((t) => t.name)).toEqual(["list_notes", "add_note", "echo"]);
    expect(await bob.callTool({ name: "echo", arguments: { text: "over sse" } })).toMatchObject({
      structuredContent: { text: "over sse", user: "bob" },
    });
    expect(remote.sessions().some((s) => s.transport === "sse" && s.user === "bob")).toBe(true);
  });

  it("shows carol tool names that collide once made to fit a slug", async () => {
    const token = await obtainToken(remote, { login: "carol" });
    const carol = await connect(remote.url, token.accessToken);
    const names = (await carol.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(["a.b", "a_b", "a b", "a/b", "long_".repeat(40)]);
    expect(text(await carol.callTool({ name: "a b", arguments: {} }))).toBe("called a b");
  });

  it("bends its resource metadata on demand: another authorization server, a resource that does not match", async () => {
    const other = await startOidcServer({ redirectUris: [], dynamicRegistration: true });
    try {
      remote.setResourceMetadata({ authorization_servers: [other.issuer] });
      expect(await (await fetch(remote.resourceMetadataUrl)).json()).toMatchObject({ authorization_servers: [other.issuer] });
      remote.setResourceMetadata({ resource: "https://elsewhere.example/mcp" });
      expect(await (await fetch(remote.resourceMetadataUrl)).json()).toMatchObject({
        resource: "https://elsewhere.example/mcp",
        authorization_servers: [remote.origin],
      });
    } finally {
      remote.setResourceMetadata(undefined);
      await other.close();
    }
    expect(await (await fetch(remote.resourceMetadataUrl)).json()).toMatchObject({ resource: remote.url });
  });

  it("lets the SDK's own OAuth client discover, register, authorize with resource and connect", async () => {
    const { client, oauth } = await connectSdkClient(remote, { login: "bob" });
    clients.push(client);
    expect(oauth?.tokens()?.refresh_token).toBeTruthy();
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["list_notes", "add_note", "echo"]);
    const sse = await connectSdkClient(remote, { login: "alice", transport: "sse" });
    clients.push(sse.client);
    expect(await sse.client.callTool({ name: "echo", arguments: { text: "sdk" } })).toMatchObject({ structuredContent: { user: "alice" } });
  });

  it("ends sessions on demand, after which their id is unknown", async () => {
    const token = await obtainToken(remote, { login: "bob" });
    const bob = await connect(remote.url, token.accessToken);
    await bob.listTools();
    await remote.closeSessions();
    expect(remote.sessions()).toEqual([]);
    await expect(bob.listTools()).rejects.toThrow(/404|Session not found/);
  });
});

describe("remote MCP fixture fault modes", () => {
  let remote: RemoteMcp;
  let client: Client;
  beforeAll(async () => {
    remote = await startRemoteMcp({ auth: { bearerTokens: { "alice-static-token": "alice" } } });
    client = await connect(remote.url, "alice-static-token");
  });
  afterAll(async () => remote.close());

  const call = () => client.callTool({ name: "echo", arguments: { text: "x" } }, undefined, { timeout: 2000 });

  it("answers a static-bearer 401 without resource metadata", async () => {
    expect(remote.authorizationServer).toBeUndefined();
    const response = await fetch(remote.url, { method: "POST", headers: { authorization: "Bearer wrong" } });
    await response.body?.cancel();
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).not.toContain("resource_metadata");
    expect(await call()).toMatchObject({ structuredContent: { user: "alice" } });
  });

  it("answers N megabytes", async () => {
    remote.setFault({ kind: "huge-response", bytes: 3 * 1024 * 1024, times: 1 });
    const result = await call();
    expect(text(result).length).toBeGreaterThan(3 * 1024 * 1024 - 200);
    expect(await call()).toMatchObject({ structuredContent: { text: "x" } });
  });

  it("answers what is not JSON, JSON that is not JSON-RPC, a JSON-RPC error and an HTTP error", async () => {
    for (const fault of [{ kind: "not-json" }, { kind: "not-jsonrpc" }, { kind: "http-status", status: 502 }] as const) {
      remote.setFault({ ...fault, times: 1 });
      const before = remote.stats.faults;
      await expect(call()).rejects.toThrow();
      expect(remote.stats.faults).toBe(before + 1);
    }
    remote.setFault({ kind: "jsonrpc-error", code: -32603, message: "upstream broke", times: 1 });
    await expect(call()).rejects.toThrow(/upstream broke/);
    const fresh = await connect(remote.url, "alice-static-token");
    expect(await fresh.callTool({ name: "echo", arguments: { text: "ok" } })).toMatchObject({ structuredContent: { text: "ok" } });
  });

  it("opens an SSE stream that never ends", async () => {
    remote.setFault({ kind: "endless-sse", methods: ["tools/list"], times: 1 });
    const response = await fetch(remote.url, {
      method: "POST",
      headers: {
        authorization: "Bearer alice-static-token",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain("never ends");
    const next = reader.read();
    const pending = await Promise.race([next.then(() => "ended"), new Promise((resolve) => setTimeout(resolve, 200, "open"))]);
    expect(pending).toBe("open");
    await reader.cancel();
  });
});

describe("remote MCP fixture variants", () => {
  it("runs stateless, with JSON answers, opaque tokens and its authorization server on another origin", async () => {
    const remote = await startRemoteMcp({
      stateless: true,
      jsonResponse: true,
      accessTokenFormat: "opaque",
      authorizationServer: "separate",
    });
    try {
      expect(remote.authorizationServer?.issuer).not.toBe(remote.origin);
      expect(await (await fetch(remote.resourceMetadataUrl)).json()).toMatchObject({
        authorization_servers: [remote.authorizationServer?.issuer],
      });
      const token = await obtainToken(remote, { login: "bob" });
      expect(token.accessToken.split(".")).toHaveLength(1);
      const bob = await connect(remote.url, token.accessToken);
      expect((await bob.listTools()).tools.map((t) => t.name)).toEqual(["list_notes", "add_note", "echo"]);
      expect((bob.transport as StreamableHTTPClientTransport).sessionId).toBeUndefined();
      expect(await bob.callTool({ name: "add_note", arguments: { title: "t" } })).toMatchObject({ structuredContent: { title: "t" } });
      expect(remote.sessions()).toEqual([]);
    } finally {
      await remote.close();
    }
  });

  it("runs without auth as one user", async () => {
    const remote = await startRemoteMcp({ auth: "none", anonymousUser: "bob" });
    try {
      const client = await connect(remote.url, undefined);
      expect(await client.callTool({ name: "echo", arguments: { text: "x" } })).toMatchObject({ structuredContent: { user: "bob" } });
    } finally {
      await remote.close();
    }
  });
});

const CHROMIUM_TEST = "signs in and consents in Chromium, then the SDK's client connects with the token";

describe("remote MCP fixture in Chromium", () => {
  // Without Chromium the test is skipped, and its name says why.
  it.skipIf(!chromiumAvailable)(chromiumAvailable ? CHROMIUM_TEST : `${CHROMIUM_TEST} (${CHROMIUM_MISSING})`, async () => {
    const remote = await startRemoteMcp();
    const browser = await launchChromium();
    try {
      const context = await browser.newContext();
      await keepBrowserLocal(context);
      const page = await context.newPage();
      const { client } = await connectSdkClient(remote, {
        login: "bob",
        authorize: async (url, login) => {
          await page.goto(url.href);
          return signInAndConsent(page, { login });
        },
      });
      clients.push(client);
      expect(await client.callTool({ name: "echo", arguments: { text: "browser" } })).toMatchObject({ structuredContent: { user: "bob" } });
    } finally {
      await browser.close();
      await remote.close();
    }
  });
});
