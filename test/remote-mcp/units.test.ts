/**
 * The parts of remote MCP toolkits that need no server: the `mcp` entry of `defineToolkit` and of
 * JSON toolkits, the registry's rule on a remote toolkit's prefix, tool slugs, and how an answer
 * or a failure of a remote call becomes an ExecutionResult.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolsError } from "../../src/core/errors.js";
import type { ToolRunError } from "../../src/core/tool-error.js";
import { bearer, createToolkitRegistry, defineJsonToolkit, defineTool, defineToolkit, none } from "../../src/index.js";
import { remoteToolSlugs } from "../../src/remote-mcp/names.js";
import { remoteFailure, remoteResultData } from "../../src/remote-mcp/results.js";
import { checkedStreamAnswer } from "../../src/remote-mcp/stream-answer.js";
import { type RemoteTool, remoteTools } from "../../src/remote-mcp/tools.js";

const base = { slug: "lin", name: "Linear", description: "Linear's MCP server." };

describe("defineToolkit with mcp", () => {
  it("makes the server's origin the base URL, with no tools, and the MCP authorization mode without auth", () => {
    const toolkit = defineToolkit({ ...base, mcp: "https://mcp.linear.app/mcp", clientId: "cid", scopes: ["read"] });
    expect(toolkit.remote).toEqual({ url: "https://mcp.linear.app/mcp", transport: "streamable-http", authorizationServers: [] });
    expect(toolkit.baseUrls).toEqual(["https://mcp.linear.app"]);
    expect(toolkit.tools).toEqual([]);
    expect(toolkit.auth).toMatchObject({
      type: "oauth2",
      pkce: true,
      clientId: "cid",
      scopes: ["read"],
      discovery: { resource: "https://mcp.linear.app/mcp" },
    });
  });

  it("keeps a declared auth, the transport and the authorization servers' origins", () => {
    const toolkit = defineToolkit({
      ...base,
      mcp: { url: "https://mcp.test/sse", transport: "sse", authorizationServers: ["https://auth.test/tenant"] },
      auth: bearer(),
    });
    expect(toolkit.authModes).toEqual([bearer()]);
    expect(toolkit.remote).toEqual({ url: "https://mcp.test/sse", transport: "sse", authorizationServers: ["https://auth.test"] });
  });

  it.each([
    ["ftp://mcp.test/", "must use http or https"],
    ["https://user:pw@mcp.test/mcp", "must not contain credentials"],
    ["https://mcp.test/mcp?key=1", "a query or a fragment"],
    ["https://mcp.test/mcp#x", "a query or a fragment"],
    ["mcp.test", "is not an absolute URL"],
  ])("refuses the URL %s", (url, message) => {
    expect(() => defineToolkit({ ...base, mcp: url })).toThrow(message);
  });

  it("still requires auth of a toolkit that is not a remote MCP server, and refuses tools beside mcp", () => {
    expect(() => defineToolkit({ ...base, baseUrl: "https://api.test", tools: [] } as never)).toThrow("declare auth");
    expect(() => defineToolkit({ ...base, mcp: "https://mcp.test/mcp", baseUrl: "https://mcp.test" })).toThrow("leave out baseUrl");
  });
});

describe("a JSON toolkit with mcp", () => {
  it("is a remote MCP toolkit", () => {
    const toolkit = defineJsonToolkit({ mcp: "https://mcp.test/mcp", slug: "m", name: "M", clientId: "c" });
    expect(toolkit.remote?.url).toBe("https://mcp.test/mcp");
    expect(toolkit.auth).toMatchObject({ type: "oauth2", clientId: "c" });
  });

  it("names what is wrong", () => {
    expect(() => defineJsonToolkit({ mcp: "nope", slug: "m", name: "M" })).toThrow("mcp: must be an absolute http(s) URL");
    expect(() => defineJsonToolkit({ mcp: { url: "https://m.test/", transport: "ws" }, slug: "m", name: "M" })).toThrow("mcp:");
    expect(() => defineJsonToolkit({ mcp: "https://m.test/", slug: "m", name: "M", baseUrl: "https://m.test" })).toThrow(
      "baseUrl: must be left out beside mcp",
    );
    expect(() => defineJsonToolkit({ slug: "m", name: "M", auth: { type: "none" } })).toThrow("baseUrl: is required");
    expect(() => defineJsonToolkit({ slug: "m", name: "M", baseUrl: "https://m.test", auth: { type: "none" }, clientId: "c" })).toThrow(
      "clientId: is read only beside mcp",
    );
  });
});

describe("the registry", () => {
  it("refuses another toolkit's tool slug under a remote toolkit's prefix", () => {
    const remote = defineToolkit({ ...base, mcp: "https://mcp.test/mcp", auth: none() });
    const other = defineToolkit({
      slug: "other",
      name: "Other",
      description: "",
      auth: none(),
      tools: [defineTool({ slug: "lin.create_issue", name: "x", description: "", input: z.object({}), run: () => null })],
    });
    expect(() => createToolkitRegistry([remote, other])).toThrow('starts with "lin."');
    expect(() => createToolkitRegistry([other])).not.toThrow();
  });
});

describe("remote tool slugs", () => {
  it("prefixes the toolkit and makes each name fit", () => {
    const slugs = remoteToolSlugs("gh", ["create_issue", "list repos", "-x", "é"]);
    expect(slugs.get("create_issue")).toBe("gh.create_issue");
    expect(slugs.get("list repos")).toBe("gh.list_repos");
    expect(slugs.get("-x")).toBe("gh.t-x");
    expect([...slugs.values()].every((slug) => /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(slug))).toBe(true);
  });

  it("gives colliding names a stable hash suffix, the unchanged name keeping its plain slug", () => {
    const one = remoteToolSlugs("t", ["a b", "a_b", "a-b", "a/b"]);
    const two = remoteToolSlugs("t", ["a/b", "a_b", "a b", "a-b"]);
    expect(one.get("a_b")).toBe("t.a_b");
    expect(one.get("a-b")).toBe("t.a-b");
    expect(one.get("a b")).toMatch(/^t\.a_b_[0-9a-z]{6}$/);
    expect(new Set(one.values()).size).toBe(4);
    expect(two).toEqual(one);
  });

  it("keeps a long name within 128 characters", () => {
    const [slug] = remoteToolSlugs("t", ["x".repeat(300), `${"x".repeat(300)}!`]).values();
    expect(slug!.length).toBeLessThanOrEqual(128);
  });

  it("maps a listed tool's title, schema and hints, and skips one without an object schema", () => {
    const [tool, ...rest] = remoteTools("t", [
      {
        name: "add",
        title: "Add",
        inputSchema: { type: "object", properties: { a: { type: "number" } } },
        annotations: { readOnlyHint: true, destructiveHint: false },
      },
      { name: "broken", inputSchema: "nope" as never },
    ]);
    expect(rest).toEqual([]);
    expect(tool).toMatchObject({
      slug: "t.add",
      remoteName: "add",
      name: "Add",
      description: "",
      annotations: { readOnly: true, destructive: false },
    });
  });
});

describe("answers and failures of remote calls", () => {
  const tool = { slug: "t.x", annotations: {} } as RemoteTool;

  it("takes structured content, else the text, else the blocks", () => {
    expect(remoteResultData(tool, { content: [{ type: "text", text: "{}" }], structuredContent: { a: 1 } })).toEqual({ a: 1 });
    expect(
      remoteResultData(tool, {
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toBe("a\nb");
    const image = { type: "image", data: "AAAA", mimeType: "image/png" };
    expect(remoteResultData(tool, { content: [image] })).toEqual([image]);
  });

  it("turns isError into a tool failure with the tool's text", () => {
    expect(() => remoteResultData(tool, { content: [{ type: "text", text: "locked" }], isError: true })).toThrow(
      "The tool t.x failed: locked",
    );
  });

  it("classifies HTTP statuses, retrying only what is safe", () => {
    class StreamableHTTPError extends Error {
      constructor(readonly code: number) {
        super("Streamable HTTP error");
      }
    }
    const status = (code: number, annotations = {}) =>
      remoteFailure(new StreamableHTTPError(code), { ...tool, annotations }) as ToolRunError;
    expect(status(503)).toMatchObject({ code: "upstream_error", upstreamStatus: 503, retryable: true });
    expect(status(500)).toMatchObject({ upstreamStatus: 500, retryable: false });
    expect(status(500, { idempotent: true })).toMatchObject({ retryable: true });
    expect(status(401).message).toContain("reconnect");
  });

  it("keeps its own errors, and names a JSON-RPC error, a timeout and a malformed answer", () => {
    const own = new ToolsError("connection_required", "reconnect");
    expect(remoteFailure(own, tool)).toBe(own);
    const mcpError = Object.assign(new Error("MCP error -32602: bad"), { name: "McpError", code: -32602 });
    expect(remoteFailure(mcpError, tool)).toMatchObject({ code: "upstream_error", message: "The MCP server refused the tool t.x: bad" });
    expect(remoteFailure(Object.assign(new Error("t"), { name: "McpError", code: -32001 }), tool)).toMatchObject({ code: "timeout" });
    expect(remoteFailure(new SyntaxError("Unexpected end"), tool)).toMatchObject({ code: "upstream_error" });
  });

  it("fails a stream answer that holds no response to the request sent", () => {
    const sent = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call" });
    const ok = new TextEncoder().encode(`event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{}}\n\n`);
    expect(() => checkedStreamAnswer(ok, sent)).not.toThrow();
    const broken = new TextEncoder().encode("event: message\ndata: {oops\n\n");
    expect(() => checkedStreamAnswer(broken, sent)).toThrow("no valid JSON-RPC response");
    expect(() => checkedStreamAnswer(broken, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))).not.toThrow();
  });
});
