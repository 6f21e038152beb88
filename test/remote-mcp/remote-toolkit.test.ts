/**
 * A remote MCP server as a toolkit, end to end over real HTTP: the SDK's server (test/remote-mcp/server.ts)
 * takes a static bearer token and lists tools by token; the handler connects to it with each
 * connection's token and serves its tools through toolkit details, search, `POST /execute` and
 * our own `/mcp`, called in process.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createToolsHandler, defineToolkit, issueApiKey, memoryStore, type ToolsHandler } from "../../src/index.js";
import { type RemoteServer, startRemoteServer } from "./server.js";

const SECRET = "remote-mcp-test-secret-of-at-least-thirty-two-bytes";
const MAX_BYTES = 64 * 1024;

let remote: RemoteServer;
let tools: ToolsHandler;
let storeOf: ReturnType<typeof memoryStore>;
let keyA: string;
let keyB: string;
let keyNone: string;
let keyTwo: string;
const logged: string[] = [];
let serviceKey: string;
let connectionA: string;

const api = async (key: string, method: string, path: string, body?: unknown) => {
  const response = await tools(
    new Request(`http://tools.test/proxy/tools${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null, text };
};
const execute = (key: string, tool: string, args: unknown = {}) => api(key, "POST", "/execute", { tool, arguments: args });

beforeAll(async () => {
  remote = await startRemoteServer({ hugeBytes: 4 * MAX_BYTES });
  const store = memoryStore();
  storeOf = store;
  tools = createToolsHandler({
    store,
    secret: SECRET,
    publicUrl: "https://app.test",
    allowPrivateNetworks: true,
    maxResponseBytes: MAX_BYTES,
    logger: {
      warn: (message, fields) => void logged.push(`${message} ${JSON.stringify(fields)}`),
      error: (message, fields) => void logged.push(`${message} ${JSON.stringify(fields)}`),
    },
    toolkits: [
      defineToolkit({ slug: "remote", name: "Remote", description: "A remote MCP server.", mcp: remote.url, auth: bearer() }),
      defineToolkit({
        slug: "legacy",
        name: "Legacy",
        description: "The same server over HTTP+SSE.",
        mcp: { url: remote.sseUrl, transport: "sse" },
        auth: bearer(),
      }),
    ],
  });
  keyA = (await issueApiKey(store, { workspaceId: "w", agentId: "agent-a" })).key;
  keyB = (await issueApiKey(store, { workspaceId: "w", agentId: "agent-b" })).key;
  keyNone = (await issueApiKey(store, { workspaceId: "w", agentId: "agent-none" })).key;
  keyTwo = (await issueApiKey(store, { workspaceId: "w", agentId: "agent-two" })).key;
  serviceKey = (await issueApiKey(store, { kind: "service", workspaceId: "w" })).key;
  await api(keyTwo, "POST", "/auth", { toolkit: "remote", label: "a", credentials: { token: remote.tokenA } });
  const a = await api(keyA, "POST", "/auth", { toolkit: "remote", credentials: { token: remote.tokenA } });
  expect(a.status).toBe(201);
  connectionA = a.json.connection.id;
  expect((await api(keyB, "POST", "/auth", { toolkit: "remote", credentials: { token: remote.tokenB } })).status).toBe(201);
  expect((await api(keyA, "POST", "/auth", { toolkit: "legacy", credentials: { token: remote.tokenA } })).status).toBe(201);
}, 30_000);

afterAll(async () => {
  await remote?.close();
});

describe("a remote MCP server as a toolkit", () => {
  it("lists the connection's tools in the toolkit's details, with schemas, titles and annotations", async () => {
    const details = await api(keyA, "GET", "/toolkit/remote?limit=200");
    expect(details.status).toBe(200);
    expect(details.json.baseUrls).toEqual([new URL(remote.url).origin]);
    const add = details.json.tools.find((t: { slug: string }) => t.slug === "remote.add");
    expect(add).toMatchObject({
      name: "Add numbers",
      description: "Adds two numbers.",
      inputParameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
      annotations: { readOnly: true, idempotent: true, openWorld: false },
    });
    // Names that collide once made slugs: the one that needed no change keeps its plain slug.
    const slugs = details.json.tools.map((t: { slug: string }) => t.slug);
    expect(slugs).toContain("remote.a_b");
    expect(slugs.filter((s: string) => s.startsWith("remote.a_b_"))).toHaveLength(1);
    expect(slugs).not.toContain("remote.only_b");
  });

  it("shows each connection its own tools, never another's", async () => {
    const b = await api(keyB, "GET", "/toolkit/remote");
    expect(b.json.tools.map((t: { slug: string }) => t.slug)).toEqual(["remote.only_b"]);
    expect((await execute(keyB, "remote.add", { a: 1, b: 2 })).status).toBe(404);
    const a = await api(keyA, "GET", `/toolkit/remote/search?query=add&connection_id=${connectionA}`);
    expect(a.json.tools[0].slug).toBe("remote.add");
  });

  it("lists no tools to a caller without a connection, and execute answers 409 with how to connect", async () => {
    const details = await api(keyNone, "GET", "/toolkit/remote");
    expect(details.status).toBe(200);
    expect(details.json.tools).toEqual([]);
    const run = await execute(keyNone, "remote.add", { a: 1, b: 2 });
    expect(run.status).toBe(409);
    expect(run.json.code).toBe("connection_required");
    expect(run.json.error).toContain('POST /proxy/tools/auth {"toolkit":"remote"}');
  });

  it("lets an agent with two connections choose one by connection_id", async () => {
    const two = (await api(keyTwo, "POST", "/auth", { toolkit: "remote", label: "b", credentials: { token: remote.tokenB } })).json
      .connection.id;
    expect((await api(keyTwo, "GET", "/toolkit/remote")).json.tools).toEqual([]);
    const ambiguous = await execute(keyTwo, "remote.only_b");
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.json.code).toBe("connection_ambiguous");
    const chosen = await api(keyTwo, "GET", `/toolkit/remote?connection_id=${two}`);
    expect(chosen.json.tools.map((t: { slug: string }) => t.slug)).toEqual(["remote.only_b"]);
    const run = await api(keyTwo, "POST", "/execute", { tool: "remote.only_b", arguments: {}, connection_id: two });
    expect(run.json).toMatchObject({ successful: true, data: "b" });
    // A service key reads a connection's tools by its id.
    const service = await api(serviceKey, "GET", `/toolkit/remote?connection_id=${two}`);
    expect(service.json.tools.map((t: { slug: string }) => t.slug)).toEqual(["remote.only_b"]);
  });

  it("counts the tools known for the caller in search", async () => {
    await api(keyA, "GET", "/toolkit/remote");
    const found = await api(keyA, "GET", "/search?keywords=remote");
    expect(found.json.toolkits[0]).toMatchObject({ slug: "remote", toolCount: expect.any(Number), connected: true });
    expect(found.json.toolkits[0].toolCount).toBeGreaterThan(5);
    const none = await api(keyNone, "GET", "/search?keywords=remote");
    expect(none.json.toolkits[0].toolCount).toBe(0);
  });

  it("executes a tool: structured content is the data", async () => {
    const run = await execute(keyA, "remote.add", { a: 2, b: 3 });
    expect(run.status).toBe(200);
    expect(run.json).toEqual({ data: { sum: 5 }, error: null, successful: true });
    const greet = await execute(keyA, "remote.greet", { name: "Ada" });
    expect(greet.json.data).toBe("Hello, Ada.\nBye.");
  });

  it("reuses one MCP session for the connection's calls", async () => {
    await execute(keyA, "remote.add", { a: 1, b: 1 });
    const before = remote.initialized();
    await Promise.all(Array.from({ length: 10 }, (_, i) => execute(keyA, "remote.add", { a: i, b: i })));
    expect(remote.initialized()).toBe(before);
  });

  it("reports a tool's isError answer as a failed result with its text", async () => {
    const run = await execute(keyA, "remote.fail");
    expect(run.status).toBe(200);
    expect(run.json).toMatchObject({ successful: false, code: "tool_failed", retryable: false });
    expect(run.json.error).toContain("the widget is locked");
  });

  it("refuses arguments that do not fit the remote schema with a 400, and an unknown tool with a 404", async () => {
    const bad = await execute(keyA, "remote.add", { a: "two" });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe("invalid_request");
    expect(bad.json.error).toContain("arguments.a");
    const unknown = await execute(keyA, "remote.nope");
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toContain("remote.nope");
  });

  it("caps a huge answer at maxResponseBytes", async () => {
    const run = await execute(keyA, "remote.huge");
    expect(run.json).toMatchObject({ successful: false, code: "response_too_large" });
  });

  it("fails a call whose answer is not JSON, or not JSON-RPC, without a 500", async () => {
    for (const tool of ["remote.malformed", "remote.not_rpc"]) {
      const run = await execute(keyA, tool);
      expect(run.status).toBe(200);
      expect(run.json).toMatchObject({ successful: false, code: "upstream_error" });
    }
    // The session still serves the next call.
    expect((await execute(keyA, "remote.add", { a: 1, b: 2 })).json.data).toEqual({ sum: 3 });
  });

  it("redacts the connection's token from what the server echoes", async () => {
    const run = await execute(keyA, "remote.echo_auth");
    expect(run.json.successful).toBe(true);
    expect(run.text).not.toContain(remote.tokenA);
    expect(remote.seen).toContain(`Bearer ${remote.tokenA}`);
  });

  it("answers 409 with how to reconnect when the server refuses the connection's token", async () => {
    const key = (await issueApiKey(storeOf, { workspaceId: "w", agentId: "agent-wrong" })).key;
    const wrong = `${remote.tokenA}-revoked`;
    expect((await api(key, "POST", "/auth", { toolkit: "remote", credentials: { token: wrong } })).status).toBe(201);
    const run = await execute(key, "remote.add", { a: 1, b: 2 });
    expect(run.status).toBe(409);
    expect(run.json.code).toBe("connection_required");
    expect(run.text).not.toContain(wrong);
    expect((await api(key, "GET", "/toolkit/remote")).status).toBe(409);
  });

  it("redacts the token from a failure that quotes it, in the answer and the log", async () => {
    const run = await execute(keyA, "remote.fail_echo");
    expect(run.json).toMatchObject({ successful: false, code: "tool_failed" });
    expect(run.json.error).toContain("refused Bearer");
    expect(run.text).not.toContain(remote.tokenA);
    expect(logged.some((line) => line.includes("remote.fail_echo"))).toBe(true);
  });

  it("logs no token", () => {
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) {
      expect(line).not.toContain(remote.tokenA);
      expect(line).not.toContain(remote.tokenB);
    }
  });

  it("drops the tool list when the server says it changed", async () => {
    const slugs = async () => (await api(keyA, "GET", "/toolkit/remote?limit=200")).json.tools.map((t: { slug: string }) => t.slug);
    expect(await slugs()).not.toContain("remote.added");
    expect((await execute(keyA, "remote.add_tool")).json.successful).toBe(true);
    await expect.poll(slugs, { timeout: 10_000 }).toContain("remote.added");
    expect((await execute(keyA, "remote.added")).json.data).toBe("new");
  });
});

describe("a server with only the older HTTP+SSE transport", () => {
  it("lists and calls its tools", async () => {
    const details = await api(keyA, "GET", "/toolkit/legacy?limit=200");
    expect(details.status).toBe(200);
    expect(details.json.tools.map((t: { slug: string }) => t.slug)).toContain("legacy.add");
    expect((await execute(keyA, "legacy.add", { a: 20, b: 22 })).json).toMatchObject({ successful: true, data: { sum: 42 } });
    expect((await execute(keyA, "legacy.fail")).json).toMatchObject({ successful: false, code: "tool_failed" });
  });
});

describe("the remote toolkit through our /mcp", () => {
  const connect = async (query: string) => {
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://tools.test/proxy/tools/mcp${query}`), {
        fetch: (url, init) => tools(new Request(url, init)),
        requestInit: { headers: { authorization: `Bearer ${keyA}` } },
      }),
    );
    return client;
  };

  it("lists and calls the connection's remote tools with ?toolkits=", async () => {
    const client = await connect("?toolkits=remote");
    try {
      const listed = await client.listTools();
      const add = listed.tools.find((t) => t.title === "Add numbers")!;
      expect(add.annotations).toMatchObject({ readOnlyHint: true });
      const result = await client.callTool({ name: add.name, arguments: { a: 4, b: 5 } });
      expect(result.structuredContent).toEqual({ sum: 9 });
    } finally {
      await client.close();
    }
  });

  it("finds and executes a remote tool with the meta-tools", async () => {
    const client = await connect("");
    try {
      const found = await client.callTool({ name: "search_tools", arguments: { toolkit: "remote", query: "add numbers" } });
      expect((found.structuredContent as { tools: Array<{ slug: string }> }).tools[0]!.slug).toBe("remote.add");
      const got = await client.callTool({ name: "get_tool", arguments: { tool: "remote.add" } });
      expect((got.structuredContent as { inputParameters: unknown }).inputParameters).toMatchObject({ required: ["a", "b"] });
      const run = await client.callTool({ name: "execute_tool", arguments: { tool: "remote.add", arguments: { a: 1, b: 1 } } });
      expect(run.structuredContent).toEqual({ sum: 2 });
    } finally {
      await client.close();
    }
  });
});

describe("a remote server on a private address, without allowPrivateNetworks", () => {
  it("is refused before anything is sent, without a 500", async () => {
    const store = memoryStore();
    const guarded = createToolsHandler({
      store,
      secret: SECRET,
      publicUrl: "https://app.test",
      toolkits: [defineToolkit({ slug: "remote", name: "Remote", description: "", mcp: remote.url, auth: bearer() })],
    });
    const key = (await issueApiKey(store, { workspaceId: "w", agentId: "agent-p" })).key;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await guarded(
        new Request(`http://tools.test/proxy/tools${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
      return { status: response.status, json: await response.json() };
    };
    expect((await call("POST", "/auth", { toolkit: "remote", credentials: { token: remote.tokenA } })).status).toBe(201);
    const before = remote.seen.length;
    const details = await call("GET", "/toolkit/remote");
    expect(details.status).toBe(503);
    expect(details.json.error).toContain("non-public address");
    expect(remote.seen.length).toBe(before);
  });
});
