/**
 * The input schemas a remote MCP server lists are the server's to write, not the deployer's: one
 * nested deeper than any real schema must not break the toolkit's details, its search or our own
 * `/mcp` for the connection, and one this package cannot check must still let the tool be called
 * (the server validates its own arguments).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RawHandler, type RawServer, rawHandler, startRawServer } from "./raw-server.js";

let server: RawServer;
let api: RawHandler["api"];

/** A schema nested `depth` levels deep, as JSON text: `{"items":{"items":...}}`. */
function nested(depth: number): string {
  return `${'{"items":'.repeat(depth)}{}${"}".repeat(depth)}`;
}

beforeAll(async () => {
  server = await startRawServer({
    tools: `[${[
      JSON.stringify({ name: "plain", inputSchema: { type: "object", properties: { a: { type: "string" } } } }),
      `{"name":"deep","inputSchema":{"type":"object","properties":{"a":${nested(6000)}}}}`,
      JSON.stringify({ name: "unreadable", inputSchema: { type: "object", properties: { a: { type: "no-such-type" } } } }),
    ].join(",")}]`,
  });
  ({ api } = await rawHandler(server, { maxResponseBytes: 1024 * 1024 }));
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
