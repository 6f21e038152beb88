/**
 * A remote MCP server that forgot the proxy's session (it restarted, or expired the session)
 * answers 404 to the session's id: the next request opens a new session, for a listing of tools
 * as for a call, so that the connection's tools do not stay unavailable.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { TOOL_LIST_TTL_MS } from "../../src/remote-mcp/pool.js";
import { type RawHandler, type RawServer, rawHandler, startRawServer } from "./raw-server.js";

let server: RawServer;
let api: RawHandler["api"];

const details = () => api("GET", "/toolkit/raw");

beforeAll(async () => {
  server = await startRawServer({ tools: JSON.stringify([{ name: "echo", inputSchema: { type: "object" } }]) });
  ({ api } = await rawHandler(server));
}, 30_000);

afterEach(() => {
  vi.useRealTimers();
});

afterAll(async () => {
  await server?.close();
});

describe("a session the server forgot", () => {
  it("is opened again when the tool list is listed anew", async () => {
    const first = await details();
    expect(first.status).toBe(200);
    expect(first.json.tools.map((t: { slug: string }) => t.slug)).toEqual(["raw.echo"]);
    expect(server.sessions()).toBe(1);

    server.forgetSessions();
    // The kept list is past its TTL: the next details list the tools again, in the forgotten session.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + TOOL_LIST_TTL_MS + 1000 });
    const again = await details();
    expect(again.status, JSON.stringify(again.json)).toBe(200);
    expect(again.json.tools.map((t: { slug: string }) => t.slug)).toEqual(["raw.echo"]);
    expect(server.sessions()).toBe(2);
  });
});
