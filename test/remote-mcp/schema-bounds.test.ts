/**
 * The input schemas a remote MCP server lists are the server's to write, not the deployer's: one
 * nested deeper than any real schema must not break the toolkit's details, its search or our own
 * `/mcp` for the connection, and one this package cannot check must still let the tool be called
 * (the server validates its own arguments).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolsHandler, defineToolkit, issueApiKey, memoryStore, none, type ToolsHandler } from "../../src/index.js";
import { type RawServer, startRawServer } from "./raw-server.js";

const SECRET = "remote-mcp-schema-bounds-secret-of-at-least-thirty-two-bytes";
let server: RawServer;
let tools: ToolsHandler;
let key: string;

/** A schema nested `depth` levels deep, as JSON text: `{"items":{"items":...}}`. */
function nested(depth: number): string {
  return `${'{"items":'.repeat(depth)}{}${"}".repeat(depth)}`;
}

const api = async (method: string, path: string, body?: unknown) => {
  const response = await tools(
    new Request(`http://tools.test/proxy/tools${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  return { status: response.status, json: (await response.json()) as any };
};

beforeAll(async () => {
  server = await startRawServer({
    tools: `[${[
      JSON.stringify({ name: "plain", inputSchema: { type: "object", properties: { a: { type: "string" } } } }),
      `{"name":"deep","inputSchema":{"type":"object","properties":{"a":${nested(6000)}}}}`,
      JSON.stringify({ name: "unreadable", inputSchema: { type: "object", properties: { a: { type: "no-such-type" } } } }),
    ].join(",")}]`,
  });
  const store = memoryStore();
  tools = createToolsHandler({
    store,
    secret: SECRET,
    publicUrl: "https://app.test",
    allowPrivateNetworks: true,
    maxResponseBytes: 1024 * 1024,
    toolkits: [defineToolkit({ slug: "raw", name: "Raw", description: "A hand-written MCP server.", mcp: server.url, auth: none() })],
  });
  key = (await issueApiKey(store, { workspaceId: "w", agentId: "agent" })).key;
}, 30_000);

afterAll(async () => {
  await server?.close();
});

describe("the input schemas of a remote MCP server's tools", () => {
  it("leaves out a tool whose schema is nested too deep, and serves the others", async () => {
    const details = await api("GET", "/toolkit/raw?limit=50");
    expect(details.status).toBe(200);
    const slugs = details.json.tools.map((t: { slug: string }) => t.slug);
    expect(slugs).toContain("raw.plain");
    expect(slugs).not.toContain("raw.deep");
    expect((await api("GET", "/toolkit/raw/search?query=deep")).status).toBe(200);
  });

  it("calls a tool whose schema it cannot check, leaving the check to the server", async () => {
    const result = await api("POST", "/execute", { tool: "raw.unreadable", arguments: { a: 1 } });
    expect(result.json).toMatchObject({ successful: true });
    expect(JSON.parse(result.json.data)).toEqual({ name: "unreadable", arguments: { a: 1 } });
  });
});
