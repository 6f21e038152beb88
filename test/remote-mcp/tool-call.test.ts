/**
 * A remote tool's call is one POST in the MCP session, its answer read once: a hand-written server
 * (plain node:http on 127.0.0.1, a free port, no auth) answers each tool in a way the SDK's
 * server never does: events before the response, a stream left open after it, a batch, a
 * response to another id, a stream that never answers, a session it forgets.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolsHandler, defineToolkit, issueApiKey, memoryStore, none, type ToolsHandler } from "../../src/index.js";

const RUN = Math.random().toString(36).slice(2, 10);
const TIMEOUT_MS = 1500;
const TOOLS = ["events", "batch", "other_id", "rpc_error", "never", "forget"].map((name) => ({ name, inputSchema: { type: "object" } }));

interface Seen {
  method: string;
  sessionId: string | undefined;
  protocolVersion: string | undefined;
}

let url: string;
let close: () => Promise<void>;
let tools: ToolsHandler;
let key: string;
const seen: Seen[] = [];
/** Responses still open after the answer to the call was written in them. */
const open = new Set<ServerResponse>();
let session = 0;
let known = new Set<string>();

function startServer(): Promise<void> {
  const server = createServer((request, response) => {
    if (request.method === "GET") return void response.writeHead(405).end();
    if (request.method === "DELETE") return void response.writeHead(200).end();
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => answer(request, response, JSON.parse(Buffer.concat(chunks).toString("utf8"))));
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      close = () =>
        new Promise((done) => {
          server.closeAllConnections();
          server.close(() => done());
        });
      resolve();
    }),
  );
}

function answer(request: IncomingMessage, response: ServerResponse, message: { id?: string | number; method: string; params?: any }): void {
  const sessionId = request.headers["mcp-session-id"] as string | undefined;
  const version = request.headers["mcp-protocol-version"] as string | undefined;
  seen.push({ method: message.method, sessionId, protocolVersion: version });
  if (sessionId !== undefined && !known.has(sessionId)) return void response.writeHead(404).end();
  if (message.id === undefined) return void response.writeHead(202).end();
  const reply = (result: unknown) => ({ jsonrpc: "2.0", id: message.id, result });
  if (message.method === "initialize") {
    const id = `session-${RUN}-${++session}`;
    known.add(id);
    const init = {
      protocolVersion: message.params.protocolVersion,
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: "raw", version: "1" },
    };
    return void response.writeHead(200, { "content-type": "application/json", "mcp-session-id": id }).end(JSON.stringify(reply(init)));
  }
  if (message.method === "tools/list") {
    return void response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply({ tools: TOOLS })));
  }
  const text = (value: string) => ({ content: [{ type: "text", text: value }] });
  switch (message.params.name) {
    case "events": {
      // A notification, a response to another id and an event that is not JSON come first; the stream stays open after the answer.
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(`event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n`);
      response.write(`data: {"jsonrpc":"2.0","id":"elsewhere","result":{}}\r\n\r\n: a comment\ndata: not json\n\n`);
      response.write(`event: other\ndata: ${JSON.stringify(reply(text("wrong event type")))}\n\n`);
      response.write(`data: ${JSON.stringify(reply(text("from the stream")))}\r`);
      response.write("\n\r\n");
      open.add(response);
      return;
    }
    case "batch":
      return void response
        .writeHead(200, { "content-type": "application/json" })
        .end(
          JSON.stringify([
            { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hi" } },
            reply(text("batched")),
          ]),
        );
    case "other_id":
      return void response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...reply(text("x")), id: 999 }));
    case "rpc_error":
      return void response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32000, message: "the widget is locked" } }));
    case "never":
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(": waiting\n\n");
      open.add(response);
      return;
    case "forget":
      // The server forgets every session: the call's next POST carries an id it no longer knows.
      known = new Set();
      return void response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply(text("forgotten"))));
  }
}

const execute = async (tool: string) => {
  const response = await tools(
    new Request("http://tools.test/proxy/tools/execute", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ tool: `raw.${tool}`, arguments: {} }),
    }),
  );
  return { status: response.status, json: await response.json() };
};
const lists = () => seen.filter((s) => s.method === "tools/list").length;

beforeAll(async () => {
  await startServer();
  const store = memoryStore();
  tools = createToolsHandler({
    store,
    secret: "remote-mcp-tool-call-secret-of-at-least-thirty-two-bytes",
    publicUrl: "https://app.test",
    allowPrivateNetworks: true,
    toolkits: [
      defineToolkit({ slug: "raw", name: "Raw", description: "A hand-written server.", mcp: url, auth: none(), timeoutMs: TIMEOUT_MS }),
    ],
  });
  key = (await issueApiKey(store, { workspaceId: "w", agentId: `agent-${RUN}` })).key;
}, 30_000);

afterAll(async () => {
  for (const response of open) response.end();
  await close?.();
});

describe("a remote tool's call, one POST in the session", () => {
  it("sends the session's id and protocol version, and takes the response among other events without waiting for the stream's end", async () => {
    expect((await execute("batch")).json.data).toBe("batched");
    const listed = lists();
    const started = performance.now();
    expect(await execute("events")).toEqual({ status: 200, json: { data: "from the stream", error: null, successful: true } });
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS);
    const call = seen.findLast((s) => s.method === "tools/call")!;
    expect(call.sessionId).toMatch(/^session-/);
    expect(call.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // The list_changed on the call's stream reached the session: the next call lists the tools again.
    expect((await execute("batch")).json.data).toBe("batched");
    expect(lists()).toBe(listed + 1);
  });

  it("fails a response to another id, and a JSON-RPC error, as upstream errors", async () => {
    expect((await execute("other_id")).json).toMatchObject({ successful: false, code: "upstream_error" });
    const refused = await execute("rpc_error");
    expect(refused.json).toMatchObject({ successful: false, code: "upstream_error" });
    expect(refused.json.error).toContain("the widget is locked");
  });

  it("times out a stream that never answers", async () => {
    const run = await execute("never");
    expect(run.json).toMatchObject({ successful: false, code: "timeout" });
  });

  it("opens a new session when the server forgot its own, and sends the call again once", async () => {
    expect((await execute("forget")).json.data).toBe("forgotten");
    const before = session;
    expect((await execute("batch")).json.data).toBe("batched");
    expect(session).toBe(before + 1);
    const calls = seen.filter((s) => s.method === "tools/call").slice(-2);
    expect(calls[0]!.sessionId).not.toBe(calls[1]!.sessionId);
  });
});
