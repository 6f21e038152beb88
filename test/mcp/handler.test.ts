/**
 * The MCP server at {basePath}/mcp, called in process by the MCP SDK's own client (its
 * Streamable HTTP transport, whose fetch is the handler): both modes, pagination, tool results
 * and tool errors, the connect URL of a missing connection, keys, Origin, and the limits hook.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  apiKey,
  createToolsHandler,
  defineTool,
  defineToolkit,
  issueApiKey,
  type LimitsHook,
  memoryStore,
  none,
  oauth2,
  stagedFile,
  type ToolkitRegistry,
  ToolRunError,
  type ToolsEvents,
} from "../../src/index.js";

const PUBLIC_URL = "https://app.test";
const SECRET = "mcp-test-secret-of-at-least-thirty-two-bytes";

const many = defineToolkit({
  slug: "many",
  name: "Many",
  description: "A toolkit with more tools than a page.",
  icon: "https://icons.test/many.svg",
  auth: none(),
  tools: Array.from({ length: 130 }, (_, i) =>
    defineTool({
      slug: `MANY_${String(i).padStart(3, "0")}`,
      name: `Tool ${i}`,
      description: `Tool number ${i}.`,
      input: z.object({ n: z.number() }),
      annotations: { readOnly: i % 2 === 0, destructive: i % 3 === 0 },
      run: ({ n }) => ({ doubled: n * 2, tool: i }),
    }),
  ),
});

const misc = defineToolkit({
  slug: "misc",
  name: "Misc",
  description: "Odd slugs, failures and files.",
  auth: none(),
  tools: [
    defineTool({ slug: "misc.dotted", name: "Dotted", description: "A slug with a dot.", input: z.object({}), run: () => ["a", "b"] }),
    defineTool({
      slug: "misc_dotted",
      name: "Underscored",
      description: "The dotted slug's plain form.",
      input: z.object({}),
      run: () => "plain",
    }),
    defineTool({
      slug: "MISC_FAIL",
      name: "Fail",
      description: "Fails as an upstream 503 would.",
      input: z.object({}),
      run: () => {
        throw new ToolRunError("Upstream answered 503 Service Unavailable.", {
          code: "upstream_error",
          retryable: true,
          upstreamStatus: 503,
          retryAfterMs: 2000,
        });
      },
    }),
    defineTool({
      slug: "MISC_FILE",
      name: "File size",
      description: "Reads a staged file.",
      input: z.object({ file: stagedFile() }),
      run: async ({ file }, ctx) => ({ size: (await ctx.files.get(file)).size }),
    }),
  ],
});

const notes = defineToolkit({
  slug: "notes",
  name: "Notes",
  description: "An OAuth toolkit.",
  baseUrl: "https://notes.test/api",
  auth: oauth2({
    authorizationUrl: "https://auth.notes.test/authorize",
    tokenUrl: "https://auth.notes.test/token",
    clientId: "notes-client",
    clientSecret: "notes-secret",
    scopes: ["read"],
  }),
  tools: [defineTool({ slug: "NOTES_LIST", name: "List notes", description: "Lists notes.", input: z.object({}), run: () => [] })],
});

const keyed = defineToolkit({
  slug: "keyed",
  name: "Keyed",
  description: "An API-key toolkit.",
  baseUrl: "https://keyed.test/api",
  auth: apiKey({ in: "header", name: "X-Key" }),
  tools: [defineTool({ slug: "KEYED_LIST", name: "List", description: "Lists.", input: z.object({}), run: () => [] })],
});

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

async function setup(options: { limits?: LimitsHook } = {}) {
  const store = memoryStore();
  const events: ToolsEvents["tool.executed"][] = [];
  const tools = createToolsHandler({
    store,
    secret: SECRET,
    publicUrl: PUBLIC_URL,
    toolkits: [many, misc, notes, keyed],
    limits: options.limits,
    hooks: { "tool.executed": (event) => void events.push(event) },
  });
  const { key } = await issueApiKey(store, { workspaceId: "w", agentId: "agent-1" });
  const service = (await issueApiKey(store, { kind: "service", workspaceId: "w" })).key;
  const fetchVia = (url: string | URL | Request, init?: RequestInit) => tools(new Request(url, init));
  async function connect(query = "", headers: Record<string, string> = { authorization: `Bearer ${key}` }) {
    const client = new Client({ name: "test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`http://tools.test/proxy/tools/mcp${query}`), {
      fetch: fetchVia,
      requestInit: { headers },
    });
    await client.connect(transport);
    opened.push(client);
    return client;
  }
  const post = (body: unknown, headers: Record<string, string>) =>
    tools(
      new Request("http://tools.test/proxy/tools/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(body),
      }),
    );
  return { tools, store, key, service, events, connect, post };
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

describe("MCP server, default mode", () => {
  it("negotiates the latest protocol and lists the six meta-tools", async () => {
    const { connect } = await setup();
    const client = await connect();
    expect(client.getServerVersion()).toMatchObject({ name: "tools-proxy" });
    expect(client.getInstructions()).toMatch(/search_toolkits/);
    const { tools, nextCursor } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "search_toolkits",
      "search_tools",
      "get_tool",
      "list_connections",
      "connect_toolkit",
      "execute_tool",
    ]);
    expect(nextCursor).toBeUndefined();
    expect(tools.find((t) => t.name === "search_tools")!.inputSchema).toMatchObject({ type: "object", required: ["toolkit"] });
  });

  it("searches toolkits and tools, reads a schema, and executes a tool as POST /execute does", async () => {
    const { connect, events } = await setup();
    const client = await connect();
    const found = await client.callTool({ name: "search_toolkits", arguments: { keywords: "oauth" } });
    expect(found.structuredContent).toMatchObject({
      toolkits: [{ slug: "notes", connected: false, authScheme: "oauth2" }],
      nextCursor: null,
    });
    const tools = await client.callTool({ name: "search_tools", arguments: { toolkit: "misc", query: "fail" } });
    expect((tools.structuredContent as { tools: Array<{ slug: string }> }).tools.map((t) => t.slug)).toEqual(["MISC_FAIL"]);
    const schema = await client.callTool({ name: "get_tool", arguments: { tool: "MISC_FILE" } });
    expect(schema.structuredContent).toMatchObject({ toolkit: "misc", inputParameters: { required: ["file"] } });
    expect((schema.structuredContent as { description: string }).description).toMatch(/POST https:\/\/app\.test\/proxy\/tools\/upload/);

    const run = await client.callTool({ name: "execute_tool", arguments: { tool: "MANY_007", arguments: { n: 21 } } });
    expect(run.isError).toBeFalsy();
    expect(run.structuredContent).toEqual({ doubled: 42, tool: 7 });
    expect(JSON.parse((run.content as Array<{ text: string }>)[0]!.text)).toEqual({ doubled: 42, tool: 7 });
    expect(events).toEqual([expect.objectContaining({ tool: "MANY_007", toolkit: "many", successful: true })]);
  });

  it("answers bad arguments, an unknown tool slug in execute_tool, and a failed call as tool errors", async () => {
    const { connect } = await setup();
    const client = await connect();
    const bad = await client.callTool({ name: "execute_tool", arguments: { tool: "MANY_001", arguments: { n: "two" } } });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ code: "invalid_request" });
    expect((bad.content as Array<{ text: string }>)[0]!.text).toMatch(/arguments\.n/);
    const missing = await client.callTool({ name: "get_tool", arguments: {} });
    expect(missing.isError).toBe(true);
    const unknown = await client.callTool({ name: "execute_tool", arguments: { tool: "NO_SUCH_TOOL" } });
    expect(unknown).toMatchObject({ isError: true, structuredContent: { code: "not_found" } });
    const failed = await client.callTool({ name: "execute_tool", arguments: { tool: "MISC_FAIL" } });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toEqual({
      error: "Upstream answered 503 Service Unavailable.",
      code: "upstream_error",
      retryable: true,
      retryAfterMs: 2000,
      upstreamStatus: 503,
    });
    expect((failed.content as Array<{ text: string }>)[0]!.text).toMatch(/code upstream_error.*retried after 2 seconds/);
  });

  it("connects an OAuth toolkit with the authorization URL of POST /auth", async () => {
    const { connect, store } = await setup();
    const client = await connect();
    const started = await client.callTool({ name: "connect_toolkit", arguments: { toolkit: "notes" } });
    expect(started.isError).toBeFalsy();
    const { authorizationUrl, authorizationId } = started.structuredContent as { authorizationUrl: string; authorizationId: string };
    const url = new URL(authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe("https://auth.notes.test/authorize");
    expect(url.searchParams.get("redirect_uri")).toBe(`${PUBLIC_URL}/proxy/tools/auth/callback`);
    expect((started.content as Array<{ text: string }>)[0]!.text).toContain(authorizationUrl);
    expect(await store.getAuthorization(authorizationId)).toMatchObject({ agentId: "agent-1", toolkit: "notes", status: "pending" });
  });

  it("answers a call that needs a connection with isError, the connect URL and what to tell the user", async () => {
    const { connect, store } = await setup();
    const client = await connect();
    const result = await client.callTool({ name: "execute_tool", arguments: { tool: "NOTES_LIST" } });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    const url = /(https:\/\/auth\.notes\.test\/authorize\?\S+)/.exec(text)?.[1];
    expect(url, text).toBeDefined();
    expect(text).toMatch(/Tell the user/);
    expect(result.structuredContent).toMatchObject({ code: "connection_required", authorizationUrl: url });
    const state = new URL(url!).searchParams.get("state");
    expect(state).toBeTruthy();
    const pending = await store.listConnections({ workspaceId: "w", agentId: "agent-1" });
    expect(pending).toEqual([]);
  });

  it("answers a call to an API-key toolkit without a connection with a connect link, and connect_toolkit makes one too", async () => {
    const { connect, store, tools } = await setup();
    const client = await connect();
    const result = await client.callTool({ name: "execute_tool", arguments: { tool: "KEYED_LIST" } });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    const url = /(https:\/\/app\.test\/proxy\/tools\/connect\/[A-Za-z0-9_.-]+)/.exec(text)?.[1];
    expect(url, text).toBeDefined();
    expect(text).toContain("(it works once, for 30 minutes)");
    expect(result.structuredContent).toMatchObject({ code: "connection_required", authorizationUrl: url });
    const page = await tools(new Request(url!));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<h1>Connect Keyed</h1>");

    const started = await client.callTool({ name: "connect_toolkit", arguments: { toolkit: "keyed" } });
    const { authorizationUrl, authorizationId } = started.structuredContent as { authorizationUrl: string; authorizationId: string };
    expect(authorizationUrl).toMatch(/^https:\/\/app\.test\/proxy\/tools\/connect\/auth_/);
    expect(await store.getAuthorization(authorizationId)).toMatchObject({ agentId: "agent-1", toolkit: "keyed", status: "pending" });
  });

  it("refuses an unknown tool name with the JSON-RPC error -32602", async () => {
    const { connect } = await setup();
    const client = await connect();
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Unknown tool/),
    });
  });
});

describe("MCP server, ?toolkits=", () => {
  it("lists the toolkits' tools by slug, paginated with signed cursors, with schemas, hints, title and icon", async () => {
    const { connect } = await setup();
    const client = await connect("?toolkits=many,misc");
    const first = await client.listTools();
    expect(first.tools).toHaveLength(100);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await client.listTools({ cursor: first.nextCursor });
    expect(second.nextCursor).toBeUndefined();
    const all = [...first.tools, ...second.tools];
    expect(all).toHaveLength(134);
    const names = all.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    // misc_dotted keeps its own name; misc.dotted gets the plain form with a hash.
    expect(names).toContain("misc_dotted");
    expect(names.find((n) => n.startsWith("misc_dotted_"))).toMatch(/^misc_dotted_[0-9a-f]{8}$/);
    const zero = all.find((t) => t.name === "MANY_000")!;
    expect(zero).toMatchObject({
      title: "Tool 0",
      description: "Tool number 0.",
      inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      annotations: { readOnlyHint: true, destructiveHint: true },
      icons: [{ src: "https://icons.test/many.svg", mimeType: "image/svg+xml" }],
    });
    expect(all.find((t) => t.name === "MISC_FILE")!.description).toMatch(/staging key.*POST https:\/\/app\.test\/proxy\/tools\/upload/);
    await expect(client.listTools({ cursor: "forged.cursor" })).rejects.toMatchObject({ code: -32602 });
  });

  it("calls a tool by its MCP name, mapped ones too; structured content of a non-object is { value }", async () => {
    const { connect } = await setup();
    const client = await connect("?toolkits=misc,many");
    const dotted = (await client.listTools()).tools.find((t) => t.name.startsWith("misc_dotted_"))!;
    expect(await client.callTool({ name: dotted.name, arguments: {} })).toMatchObject({ structuredContent: { value: ["a", "b"] } });
    expect(await client.callTool({ name: "misc_dotted", arguments: {} })).toMatchObject({ structuredContent: { value: "plain" } });
    expect(await client.callTool({ name: "MANY_129", arguments: { n: 1 } })).toMatchObject({
      structuredContent: { doubled: 2, tool: 129 },
    });
    const bad = await client.callTool({ name: "MANY_129", arguments: {} });
    expect(bad).toMatchObject({ isError: true, structuredContent: { code: "invalid_request" } });
    const file = await client.callTool({ name: "MISC_FILE", arguments: { file: `stg_${"A".repeat(43)}` } });
    expect(file).toMatchObject({ isError: true, structuredContent: { code: "invalid_request" } });
    expect((file.content as Array<{ text: string }>)[0]!.text).toMatch(/upload it again with POST \/proxy\/tools\/upload/);
    // A tool of a toolkit not in ?toolkits= is unknown here.
    await expect(client.callTool({ name: "NOTES_LIST", arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await expect(client.callTool({ name: "execute_tool", arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it("answers a call needing a connection with the connect URL", async () => {
    const { connect } = await setup();
    const client = await connect("?toolkits=notes");
    const result = await client.callTool({ name: "NOTES_LIST", arguments: {} });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/https:\/\/auth\.notes\.test\/authorize\?/);
  });

  it("refuses an unknown toolkit with a 400 that names it", async () => {
    const { tools, key } = await setup();
    const bad = await tools(
      new Request("http://tools.test/proxy/tools/mcp?toolkits=many,nope", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-api-key": key },
        body: JSON.stringify(INITIALIZE),
      }),
    );
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ code: "invalid_request", error: expect.stringMatching(/No toolkit "nope" \(from \?toolkits=\)/) });
  });
});

describe("MCP server: keys, Origin, methods and limits", () => {
  it("answers 401 with WWW-Authenticate without a key or with a wrong one", async () => {
    const { post } = await setup();
    for (const headers of [{}, { authorization: `Bearer pak_${"x".repeat(43)}` }] as Record<string, string>[]) {
      const res = await post(INITIALIZE, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expect(await res.json()).toMatchObject({ code: "unauthorized" });
    }
  });

  it("the SDK client fails to connect with a wrong key", async () => {
    const { connect } = await setup();
    await expect(connect("", { authorization: `Bearer pak_${"y".repeat(43)}` })).rejects.toThrow(/401|nauthorized/);
  });

  it("needs x-agent-id with a service key, and acts for that agent with it", async () => {
    const { post, service, connect, store } = await setup();
    const without = await post(INITIALIZE, { "x-api-key": service });
    expect(without.status).toBe(400);
    expect((await without.json()).error).toMatch(/x-agent-id/);
    const client = await connect("", { "x-api-key": service, "x-agent-id": "agent-2" });
    const started = await client.callTool({ name: "connect_toolkit", arguments: { toolkit: "notes" } });
    const { authorizationId } = started.structuredContent as { authorizationId: string };
    expect(await store.getAuthorization(authorizationId)).toMatchObject({ agentId: "agent-2" });
  });

  it("refuses a browser Origin other than the app's with 403, and takes the app's own or none", async () => {
    const { post, key } = await setup();
    const foreign = await post(INITIALIZE, { "x-api-key": key, origin: "https://evil.test" });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
    expect((await post(INITIALIZE, { "x-api-key": key, origin: PUBLIC_URL })).status).toBe(200);
    expect((await post(INITIALIZE, { "x-api-key": key })).status).toBe(200);
  });

  it("answers GET and DELETE with 405 (a stateless server has no stream or session)", async () => {
    const { tools, key } = await setup();
    for (const method of ["GET", "DELETE"]) {
      const res = await tools(new Request("http://tools.test/proxy/tools/mcp", { method, headers: { "x-api-key": key } }));
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST, OPTIONS");
    }
  });

  it("asks the limits hook once per message, with the REST route a tool call stands for, and answers its refusal", async () => {
    const asked: string[] = [];
    let refuse = false;
    const { connect } = await setup({
      limits: (request) => {
        asked.push(request.route);
        if (refuse) return { allow: false, reason: "rate_limited", retryAfterSeconds: 7 };
      },
    });
    const client = await connect();
    await client.listTools();
    await client.callTool({ name: "search_toolkits", arguments: {} });
    await client.callTool({ name: "execute_tool", arguments: { tool: "MANY_001", arguments: { n: 1 } } });
    const direct = await connect("?toolkits=many");
    await direct.callTool({ name: "MANY_001", arguments: { n: 1 } });
    expect(asked.filter((r) => r !== "POST /mcp")).toEqual(["GET /search", "POST /execute", "POST /execute"]);
    expect(asked).toContain("POST /mcp");
    refuse = true;
    await expect(direct.callTool({ name: "MANY_001", arguments: { n: 1 } })).rejects.toMatchObject({
      code: 429,
      message: expect.stringMatching(/rate_limited/),
    });
  });
});

describe("a registry that changes its toolkits", () => {
  it("tools/list and tools/call follow the registry's current toolkit, not a copy made for an earlier request", async () => {
    let version = 1;
    const current = () =>
      defineToolkit({
        slug: "live",
        name: "Live",
        description: "Its tools change.",
        auth: { type: "none" },
        tools: [
          defineTool({
            slug: `LIVE_V${version}`,
            name: `Version ${version}`,
            description: "Answers its version.",
            inputParameters: { type: "object", properties: {} },
            run: () => ({ version }),
          }),
        ],
      });
    const registry: ToolkitRegistry = {
      list: () => [current()],
      get: (slug) => (slug === "live" ? current() : null),
      getTool: (slug) => {
        const toolkit = current();
        const tool = toolkit.tools.find((t) => t.slug === slug);
        return tool ? { toolkit, tool } : null;
      },
    };
    const store = memoryStore();
    const tools = createToolsHandler({ store, secret: SECRET, publicUrl: PUBLIC_URL, toolkits: registry });
    const { key } = await issueApiKey(store, { workspaceId: "w", agentId: "agent-1" });
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://tools.test/proxy/tools/mcp?toolkits=live"), {
        fetch: (url, init) => tools(new Request(url, init)),
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    opened.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["LIVE_V1"]);
    version = 2;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["LIVE_V2"]);
    const result = await client.callTool({ name: "LIVE_V2", arguments: {} });
    expect(result.structuredContent).toEqual({ version: 2 });
  });
});
