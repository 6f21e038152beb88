/**
 * The long-lived stream of server messages (the GET of Streamable HTTP, the event stream of the
 * older HTTP+SSE transport) has no deadline, but one message on it is read only up to the
 * handler's `maxResponseBytes`: a server that sends one endless event must not grow the proxy's
 * memory without bound. The proxy cuts that stream, and calls still work.
 */
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RawHandler, type RawServer, rawHandler, startRawServer } from "./raw-server.js";

const MAX_BYTES = 64 * 1024;
/** Where the endless event gives up on its own, so that a broken proxy fails the test instead of the machine. */
const GIVE_UP = 256 * 1024 * 1024;

let server: RawServer;
let api: RawHandler["api"];
const ended: number[] = [];

/** Writes one event that never ends (`data: xxxx...`, no blank line), as fast as the client reads, until it is cut. */
function endlessEvent(response: ServerResponse): void {
  const chunk = "x".repeat(16 * 1024);
  let written = 0;
  let closed = false;
  response.on("close", () => {
    closed = true;
    ended.push(written);
  });
  response.write("data: ");
  const pump = () => {
    while (!closed && written < GIVE_UP) {
      written += chunk.length;
      if (!response.write(chunk)) return void response.once("drain", pump);
    }
    if (!closed) response.end();
  };
  pump();
}

beforeAll(async () => {
  server = await startRawServer({
    tools: JSON.stringify([{ name: "echo", inputSchema: { type: "object" } }]),
    stream: endlessEvent,
  });
  ({ api } = await rawHandler(server, { maxResponseBytes: MAX_BYTES }));
}, 30_000);

afterAll(async () => {
  await server?.close();
});

describe("the stream of server messages", () => {
  it("cuts an event larger than maxResponseBytes, and calls still work", async () => {
    const response = await api("POST", "/execute", { tool: "raw.echo", arguments: { a: 1 } });
    expect(response.json).toMatchObject({ successful: true });
    await expect.poll(() => ended.length, { timeout: 20_000, interval: 50 }).toBeGreaterThan(0);
    // What was read before the cut: the cap, and what the sockets buffer on the way.
    expect(ended[0]).toBeLessThan(MAX_BYTES + 8 * 1024 * 1024);
  }, 30_000);
});
