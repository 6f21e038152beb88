/**
 * Remote MCP toolkits fed bad input, end to end over real HTTP (see end-to-end.test.ts): server
 * URLs the URL policy refuses, an authorization server on another origin, huge and malformed
 * JSON-RPC answers, a stream that never answers, tool names that collide. Each is refused or
 * fails with a sentence; none crashes the handler or answers a 500, and no token, refresh token,
 * client secret or key appears in any answer, log line or event.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, defineToolkit, parseToolkitFile, type Toolkit } from "../../src/index.js";
import { type E2e, startE2e, uniqueName } from "../support/remote-mcp-e2e.js";
import { DEFAULT_USERS, type RemoteMcp, type RemoteMcpFault, startRemoteMcp } from "../support/remote-mcp-server.js";

/** Every handler and server a test started: each handler is checked for 500s and leaks at the end. */
const handlers: E2e[] = [];
const servers: RemoteMcp[] = [];

afterAll(async () => {
  for (const e of handlers) {
    e.assertNo500();
    e.assertNoLeaks();
  }
  for (const remote of servers) expect(remote.authorizationServer?.serverErrors ?? []).toEqual([]);
  await Promise.all(handlers.map((e) => e.close()));
  await Promise.all(servers.map((remote) => remote.close()));
});

async function remoteServer(options: Parameters<typeof startRemoteMcp>[0] = {}): Promise<RemoteMcp> {
  const remote = await startRemoteMcp(options);
  servers.push(remote);
  return remote;
}

async function handler(toolkits: Toolkit[], options: Omit<Parameters<typeof startE2e>[0], "toolkits"> = {}): Promise<E2e> {
  const e = await startE2e({ toolkits, ...options });
  handlers.push(e);
  return e;
}

const notes = (mcp: Parameters<typeof defineToolkit>[0]["mcp"], extra: Partial<Parameters<typeof defineToolkit>[0]> = {}) =>
  defineToolkit({ slug: uniqueName("notes"), name: "Fixture notes", description: "The fixture's notes MCP server.", mcp, ...extra });

describe("a server URL that fails the URL policy", () => {
  const refused = [
    ["not a URL", "mcp.example.com/mcp"],
    ["another scheme", "ftp://mcp.example.com/mcp"],
    ["credentials in the URL", "https://user:pass@mcp.example.com/mcp"],
    ["a query", "https://mcp.example.com/mcp?token=abc"],
    ["a fragment", "https://mcp.example.com/mcp#x"],
  ];

  it.each(refused)("defineToolkit refuses %s", (_what, url) => {
    expect(() => notes(url)).toThrow(TypeError);
    expect(() => notes({ url, transport: "streamable-http" })).toThrow(TypeError);
  });

  it.each(refused)("a JSON toolkit file refuses %s", (_what, url) => {
    const file = JSON.stringify({ slug: uniqueName("json"), name: "JSON notes", mcp: url });
    expect(() => parseToolkitFile(file, { source: "notes.json" })).toThrow(/notes\.json/);
  });

  it("defineToolkit refuses an unknown transport, and authorization servers that are not http(s) URLs", () => {
    expect(() => notes({ url: "https://mcp.example.com/mcp", transport: "websocket" as never })).toThrow(/transport/);
    expect(() => notes({ url: "https://mcp.example.com/mcp", authorizationServers: ["javascript:alert(1)"] })).toThrow(
      /authorizationServers/,
    );
  });

  it("a JSON toolkit file with a good mcp URL is a remote toolkit whose base URL is the server's origin", () => {
    const [toolkit] = parseToolkitFile(
      JSON.stringify({ slug: uniqueName("json"), name: "JSON notes", mcp: "https://mcp.example.com/v1/mcp" }),
    );
    expect(toolkit!.remote).toMatchObject({ url: "https://mcp.example.com/v1/mcp", transport: "streamable-http" });
    expect(toolkit!.baseUrls).toEqual(["https://mcp.example.com"]);
  });

  it("a server on a private address is refused at call time without allowPrivateNetworks, and nothing reaches it", async () => {
    const token = `static-token-${uniqueName("t")}-0123456789`;
    const remote = await remoteServer({ auth: { bearerTokens: { [token]: "alice" } } });
    const keyed = notes(remote.url, { auth: bearer() });
    const e = await handler([keyed], { allowPrivateNetworks: false });
    e.addSecret(token);
    const key = await e.issueAgentKey();

    const connected = await e.call("POST", "/auth", { key, body: { toolkit: keyed.slug, credentials: { token } } });
    expect(connected.status, connected.text).toBe(201);
    const listing = await e.call("GET", `/toolkit/${keyed.slug}`, { key });
    expect(listing.status, listing.text).toBe(503);
    expect(listing.json.error).toMatch(/127\.0\.0\.1 is a non-public address.*allowPrivateNetworks/);
    const call = await e.execute(key, `${keyed.slug}.echo`, { text: "hi" });
    expect(call.status, call.text).toBe(503);
    expect(call.json.error).toMatch(/allowPrivateNetworks/);
    expect(remote.stats.requests).toBe(0);
    expect(remote.stats.unauthorized).toBe(0);
  });

  it("the MCP authorization of a server on a private address is refused without allowPrivateNetworks, before anything is sent to it", async () => {
    const remote = await remoteServer();
    const toolkit = notes(remote.url);
    const e = await handler([toolkit], { allowPrivateNetworks: false });
    const key = await e.issueAgentKey();
    const auth = await e.call("POST", "/auth", { key, body: { toolkit: toolkit.slug } });
    expect(auth.status, auth.text).toBe(400);
    expect(auth.json.error).toMatch(/127\.0\.0\.1 is not on a public address \(it is loopback\).*allowPrivateNetworks/);
    // Neither the discovery's unauthenticated request nor anything else reached the server.
    expect(remote.stats.unauthorized).toBe(0);
    expect(remote.stats.requests).toBe(0);
  });

  it("the same server with allowPrivateNetworks works with the static bearer token", async () => {
    const token = `static-token-${uniqueName("t")}-0123456789`;
    const remote = await remoteServer({ auth: { bearerTokens: { [token]: "bob" } } });
    const keyed = notes(remote.url, { auth: bearer() });
    const e = await handler([keyed]);
    e.addSecret(token);
    const key = await e.issueAgentKey();
    const connected = await e.call("POST", "/auth", { key, body: { toolkit: keyed.slug, credentials: { token } } });
    expect(connected.status, connected.text).toBe(201);
    const call = await e.execute(key, `${keyed.slug}.echo`, { text: "hi" });
    expect(call.json, call.text).toMatchObject({ successful: true, data: { text: "hi", user: "bob" } });
  });
});

describe("resource metadata that names an authorization server on another origin", () => {
  let remote: RemoteMcp;
  beforeAll(async () => {
    remote = await remoteServer({ authorizationServer: "separate" });
  });

  it("is refused unless the entry lists it in authorizationServers, before anything is sent there", async () => {
    const toolkit = notes(remote.url);
    const e = await handler([toolkit]);
    const key = await e.issueAgentKey();
    const as = remote.authorizationServer!;
    expect(new URL(as.issuer).origin).not.toBe(remote.origin);
    const tokens = as.tokenRequests.length;
    const res = await e.call("POST", "/auth", { key, body: { toolkit: toolkit.slug } });
    expect(res.status, res.text).toBe(400);
    expect(res.json).toMatchObject({ code: "invalid_request" });
    // The sentence names the origin to list, if the deployer trusts it.
    expect(res.json.error).toContain(new URL(as.issuer).origin);
    expect(res.json.error).toMatch(/authorizationServers/);
    expect(as.tokenRequests.length).toBe(tokens);
  });

  it("is used when listed: the whole flow and a call work", async () => {
    const as = remote.authorizationServer!;
    const toolkit = notes({ url: remote.url, authorizationServers: [as.issuer] });
    const e = await handler([toolkit]);
    const key = await e.issueAgentKey();
    const { authorizationUrl } = await e.connect(key, toolkit.slug, "alice");
    expect(authorizationUrl.origin).toBe(new URL(as.issuer).origin);
    const call = await e.execute(key, `${toolkit.slug}.echo`, { text: "separate" });
    expect(call.json, call.text).toMatchObject({ successful: true, data: { text: "separate", user: "alice" } });
  });

  it("a same-origin server whose metadata is bent to name the other origin is refused too", async () => {
    const same = await remoteServer();
    const other = remote.authorizationServer!;
    same.setResourceMetadata({ authorization_servers: [other.issuer] });
    const toolkit = notes(same.url);
    const e = await handler([toolkit]);
    const key = await e.issueAgentKey();
    const res = await e.call("POST", "/auth", { key, body: { toolkit: toolkit.slug } });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toContain(new URL(other.issuer).origin);
  });
});

describe("a server answering huge or malformed JSON-RPC", () => {
  const MAX_RESPONSE_BYTES = 256 * 1024;
  let remote: RemoteMcp;
  let e: E2e;
  let toolkit: Toolkit;
  let key: string;

  beforeAll(async () => {
    remote = await remoteServer();
    // A short timeout for the endless stream; generous enough for a loaded machine's listing.
    toolkit = notes(remote.url, { timeoutMs: 4000 });
    e = await handler([toolkit], { maxResponseBytes: MAX_RESPONSE_BYTES });
    key = await e.issueAgentKey();
    await e.connect(key, toolkit.slug, "alice");
    const warm = await e.execute(key, `${toolkit.slug}.echo`, { text: "warm" });
    expect(warm.json, warm.text).toMatchObject({ successful: true });
  }, 60_000);

  const faults: Array<[string, RemoteMcpFault, string, RegExp]> = [
    [
      "a valid answer far above maxResponseBytes",
      { kind: "huge-response", bytes: 4 * 1024 * 1024 },
      "response_too_large",
      new RegExp(`larger than ${MAX_RESPONSE_BYTES} bytes`),
    ],
    ["a body that is not JSON", { kind: "not-json" }, "upstream_error", /not valid JSON-RPC/],
    ["JSON that is not JSON-RPC", { kind: "not-jsonrpc" }, "upstream_error", /not valid JSON-RPC/],
    [
      "a JSON-RPC error",
      { kind: "jsonrpc-error", code: -32603, message: "the server broke" },
      "upstream_error",
      /refused .*: the server broke/,
    ],
    ["an HTTP 502", { kind: "http-status", status: 502 }, "upstream_error", /HTTP 502/],
    ["an SSE stream that never answers (the toolkit's timeoutMs)", { kind: "endless-sse" }, "timeout", /Timed out after 4000 ms/],
  ];

  it.each(faults)("%s: the call fails with a sentence, and the next call works", async (_what, fault, code, sentence) => {
    const calls = remote.stats.toolCalls.echo ?? 0;
    remote.setFault({ ...fault, times: 1 });
    const res = await e.execute(key, `${toolkit.slug}.echo`, { text: "faulted" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ successful: false, code, error: expect.stringMatching(sentence) });
    expect(res.text.length).toBeLessThan(2000);
    expect(remote.stats.toolCalls.echo).toBeGreaterThan(calls);
    const again = await e.execute(key, `${toolkit.slug}.echo`, { text: "after" });
    expect(again.json, again.text).toMatchObject({ successful: true, data: { text: "after", user: "alice" } });
  });

  it("a huge answer to tools/list is a failed listing with a sentence, and the next listing works", async () => {
    const other = await e.issueAgentKey();
    await e.connect(other, toolkit.slug, "bob");
    remote.setFault({ kind: "huge-response", bytes: 4 * 1024 * 1024, methods: ["tools/list"], times: 1 });
    const res = await e.call("GET", `/toolkit/${toolkit.slug}`, { key: other });
    expect(res.status, res.text).toBeGreaterThanOrEqual(400);
    expect(res.status).not.toBe(500);
    expect(res.json.error).toEqual(expect.any(String));
    const again = await e.call("GET", `/toolkit/${toolkit.slug}`, { key: other });
    expect(again.status, again.text).toBe(200);
    expect(again.json.tools.map((t: { slug: string }) => t.slug).sort()).toEqual(
      DEFAULT_USERS.bob!.map((n) => `${toolkit.slug}.${n}`).sort(),
    );
  });
});

describe("tool names that collide once made to fit a slug", () => {
  it("get distinct, valid, stable slugs, and each call sends the tool's own name", async () => {
    const remote = await remoteServer();
    const toolkit = notes(remote.url);
    const e = await handler([toolkit]);
    const key = await e.issueAgentKey();
    await e.connect(key, toolkit.slug, "carol");
    const res = await e.call("GET", `/toolkit/${toolkit.slug}`, { key });
    expect(res.status, res.text).toBe(200);
    const slugs: string[] = res.json.tools.map((t: { slug: string }) => t.slug);
    expect(slugs).toHaveLength(DEFAULT_USERS.carol!.length);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const slug of slugs) {
      expect(slug.startsWith(`${toolkit.slug}.`)).toBe(true);
      expect(slug.slice(toolkit.slug.length + 1)).toMatch(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/);
      expect(slug.length).toBeLessThanOrEqual(128 + toolkit.slug.length + 1);
    }
    // The names that fit already keep them.
    expect(slugs).toEqual(expect.arrayContaining([`${toolkit.slug}.a.b`, `${toolkit.slug}.a_b`]));

    // Each slug calls its own tool, by the name the server gave it.
    for (const slug of slugs) {
      const call = await e.execute(key, slug);
      expect(call.json, call.text).toMatchObject({ successful: true, data: expect.stringMatching(/^called /) });
    }
    expect(Object.keys(remote.stats.toolCalls).sort()).toEqual([...DEFAULT_USERS.carol!].sort());
    expect(Object.values(remote.stats.toolCalls)).toEqual(DEFAULT_USERS.carol!.map(() => 1));

    // Another connection (another session, another listing) gets the same slugs.
    const other = await e.issueAgentKey();
    await e.connect(other, toolkit.slug, "carol");
    const again = await e.call("GET", `/toolkit/${toolkit.slug}`, { key: other });
    expect(again.json.tools.map((t: { slug: string }) => t.slug).sort()).toEqual([...slugs].sort());
  });
});
