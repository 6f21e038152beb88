/**
 * Deleting a connection to a remote MCP toolkit ends its session with the server at once: the
 * stream of server messages the session keeps open with the connection's credential is closed,
 * instead of living on until the session goes idle.
 */
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer } from "../../src/index.js";
import { type RawHandler, type RawServer, rawHandler, startRawServer } from "./raw-server.js";

let server: RawServer;
let api: RawHandler["api"];
const open = new Set<ServerResponse>();

beforeAll(async () => {
  server = await startRawServer({
    tools: JSON.stringify([{ name: "echo", inputSchema: { type: "object" } }]),
    // A stream that stays open and quiet, as a server's usually does.
    stream: (response) => {
      open.add(response);
      response.on("close", () => open.delete(response));
      response.write(": open\n\n");
    },
  });
  ({ api } = await rawHandler(server, { auth: bearer() }));
}, 30_000);

afterAll(async () => {
  await server?.close();
});

describe("a deleted connection", () => {
  it("has its session with the remote server closed", async () => {
    const connected = await api("POST", "/auth", { toolkit: "raw", credentials: { token: `raw-token-${Date.now()}` } });
    expect(connected.status).toBe(201);
    expect((await api("POST", "/execute", { tool: "raw.echo", arguments: {} })).json).toMatchObject({ successful: true });
    await expect.poll(() => open.size, { timeout: 10_000 }).toBe(1);

    expect((await api("DELETE", `/connections/${connected.json.connection.id}`)).status).toBe(204);
    await expect.poll(() => open.size, { timeout: 10_000 }).toBe(0);
    expect((await api("GET", "/search")).json.toolkits.find((t: { slug: string }) => t.slug === "raw").toolCount).toBe(0);
  }, 30_000);
});
