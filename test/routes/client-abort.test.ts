/**
 * A client that goes away mid-body (through the Node adapter, on a real socket) is not a server
 * fault: nothing is logged above debug, and no 500 is produced.
 */
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/node.js";
import { createToolsHandler, issueApiKey, memoryStore, type ToolsHandler } from "../../src/index.js";

const logs: Array<{ level: string; message: string }> = [];
const answered: number[] = [];
let server: Server;
let port: number;
let key: string;

beforeAll(async () => {
  const store = memoryStore();
  key = (await issueApiKey(store, { workspaceId: "ws", agentId: "agent" })).key;
  const record = (level: string) => (message: string) => void logs.push({ level, message });
  const tools: ToolsHandler = createToolsHandler({
    store,
    secret: "client-abort-test-secret-0123456789abcdef",
    logger: { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") },
  });
  server = createServer(
    toNodeHandler(async (request) => {
      const response = await tools(request);
      answered.push(response.status);
      return response;
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** Sends the head and part of a body that says it is longer, then closes the socket. */
async function abortMidBody(path: string, contentType: string, partial: string): Promise<void> {
  const before = answered.length;
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\nContent-Type: ${contentType}\r\nContent-Length: 100000\r\n\r\n${partial}`,
  );
  // Let the handler start reading the body before the client goes away.
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.destroy();
  while (answered.length === before) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("a client that aborts mid-body", () => {
  it("a JSON route: a 4xx for nobody, logged at debug at most", async () => {
    await abortMidBody("/proxy/tools/execute", "application/json", '{"tool":"CALC_ADD","arguments":{"a":');
    expect(answered.at(-1)).toBe(400);
    expect(logs.filter((l) => l.level !== "debug")).toEqual([]);
    expect(logs).toContainEqual({ level: "debug", message: "request aborted by the client" });
  });

  it("an upload", async () => {
    await abortMidBody(
      "/proxy/tools/upload",
      "multipart/form-data; boundary=b",
      '--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nsome bytes',
    );
    expect(answered.at(-1)).toBeLessThan(500);
    expect(logs.filter((l) => l.level !== "debug")).toEqual([]);
  });
});
