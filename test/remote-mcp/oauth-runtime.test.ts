/**
 * A remote MCP toolkit connected by the MCP authorization spec's OAuth, used end to end over real
 * HTTP (the SDK's server behind node-oidc-provider, test/support/remote-mcp-server.ts): its tools
 * listed for the connection, calls with arguments, and a token that must be renewed while 20 calls
 * run at once, which renews it once: before it expires, and after the server refuses it (401).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolsHandler, defineToolkit, issueApiKey, memoryStore, type ToolsHandler, type ToolsStore } from "../../src/index.js";
import { type RemoteMcp, startRemoteMcp } from "../support/remote-mcp-server.js";

const SECRET = "remote-mcp-oauth-runtime-secret-of-at-least-thirty-two-bytes";
/** Access tokens this short are renewed in the last quarter of their life: 1 s before they expire. */
const TTL_SECONDS = 4;
let remote: RemoteMcp;
let tools: ToolsHandler;
let store: ToolsStore;
let key: string;
let connectionId: string;

const api = async (method: string, path: string, body?: unknown) => {
  const response = await tools(
    new Request(`https://app.test/proxy/tools${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null, text };
};

const refreshes = () => remote.authorizationServer!.tokenRequests.filter((r) => r.grantType === "refresh_token" && r.status === 200).length;

beforeAll(async () => {
  remote = await startRemoteMcp({ accessTokenTtl: TTL_SECONDS });
  store = memoryStore();
  tools = createToolsHandler({
    store,
    secret: SECRET,
    publicUrl: "https://app.test",
    allowPrivateNetworks: true,
    toolkits: [defineToolkit({ slug: "notes", name: "Notes", description: "A remote MCP server with OAuth.", mcp: remote.url })],
  });
  key = (await issueApiKey(store, { workspaceId: "w", agentId: `agent-${Date.now()}` })).key;
  const started = await api("POST", "/auth", { toolkit: "notes" });
  expect(started.status, started.text).toBe(200);
  const callback = await remote.authorizationServer!.authorizeWithFetch(started.json.authorizationUrl, { login: "alice" });
  const done = await tools(new Request(callback, { headers: { accept: "application/json" } }));
  expect(done.status, await done.clone().text()).toBeLessThan(400);
  const connections = await api("GET", "/connections");
  connectionId = connections.json.connections[0].id;
}, 60_000);

afterAll(async () => {
  await remote?.close();
});

describe("a remote MCP toolkit connected with OAuth", () => {
  it("lists the user's tools and calls one with arguments", async () => {
    const details = await api("GET", "/toolkit/notes?limit=50");
    expect(details.status, details.text).toBe(200);
    expect(details.json.tools.map((t: { slug: string }) => t.slug)).toContain("notes.add_note");
    const added = await api("POST", "/execute", { tool: "notes.add_note", arguments: { title: "from the proxy" } });
    expect(added.json, added.text).toMatchObject({ successful: true, data: { title: "from the proxy" } });
  });

  it("renews a token about to expire once for 20 calls at once", async () => {
    // Wait until the token is in the last quarter of its life (the connection says when it expires).
    await expect
      .poll(async () => (await store.getConnection(connectionId))!.credentialsExpireAt!.getTime() - Date.now(), {
        timeout: TTL_SECONDS * 1000 + 5000,
        interval: 50,
      })
      .toBeLessThan((TTL_SECONDS * 1000) / 4 - 100);
    const before = refreshes();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api("POST", "/execute", { tool: "notes.echo", arguments: { text: `n${i}` } })),
    );
    expect(results.map((r) => r.json.successful)).toEqual(Array(20).fill(true));
    expect(refreshes() - before).toBe(1);
  }, 30_000);

  it("renews a token the server refuses (401) once for 20 calls at once", async () => {
    remote.setAccessTokenTtl(3600);
    // A token that lives long, so that only the server's refusal makes the proxy renew it.
    const fresh = await api("POST", "/execute", { tool: "notes.echo", arguments: { text: "renew" } });
    expect(fresh.json.successful, fresh.text).toBe(true);
    remote.setFault({ kind: "http-status", status: 401, methods: ["tools/call"], times: 20 });
    const before = refreshes();
    const faults = remote.stats.faults;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api("POST", "/execute", { tool: "notes.echo", arguments: { text: `m${i}` } })),
    );
    expect(results.map((r) => r.json.successful)).toEqual(Array(20).fill(true));
    expect(remote.stats.faults - faults).toBeGreaterThan(0);
    expect(refreshes() - before).toBe(1);
  }, 30_000);
});
