/**
 * A hand-written remote MCP server for the tests that need answers the SDK's server never gives:
 * plain JSON-RPC over HTTP on 127.0.0.1 and a free port, no auth. `initialize` opens a session
 * (`Mcp-Session-Id`); a request with the id of a session the server forgot (`forgetSessions`, as a
 * restarted server would) is answered 404, as the spec says. `POST` answers
 * `initialize`, `tools/list` (the `tools` given, sent as they are) and `tools/call` (the tool's name
 * and arguments echoed as text); `GET` answers what `stream` writes (a 405 without one), for the
 * long-lived stream of server messages.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AuthScheme } from "../../src/credentials/auth-schemes.js";
import { createToolsHandler, defineToolkit, issueApiKey, memoryStore, none, type ToolsHandler } from "../../src/index.js";

export interface RawServerOptions {
  /** The `tools` of every `tools/list` answer, as JSON text (so that it may be nested deeper than `JSON.stringify` goes). */
  tools: string;
  /** Writes the answer to the client's GET (the stream of server messages); the response is left open. */
  stream?: (response: ServerResponse) => void;
  /** Every `tools/list` answer names a next page (`nextCursor`), as a server that never ends its list. */
  endlessPages?: boolean;
}

export interface RawServer {
  url: string;
  /** How many GETs (streams of server messages) were opened. */
  streams(): number;
  /** How many sessions were opened (`initialize`). */
  sessions(): number;
  /** How many `tools/list` requests (pages) were answered. */
  listings(): number;
  /** Forgets every session, as a restarted server does: their ids are answered 404 from now on. */
  forgetSessions(): void;
  close(): Promise<void>;
}

export async function startRawServer(options: RawServerOptions): Promise<RawServer> {
  let streams = 0;
  let sessions = 0;
  let listings = 0;
  const live = new Set<string>();
  const server = createServer((request, response) => {
    const session = request.headers["mcp-session-id"];
    if (typeof session === "string" && !live.has(session)) return void response.writeHead(404).end();
    if (request.method === "GET") {
      streams++;
      if (!options.stream) return void response.writeHead(405).end();
      response.writeHead(200, { "content-type": "text/event-stream" });
      return options.stream(response);
    }
    if (request.method === "DELETE") return void response.writeHead(200).end();
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id?: number; method: string; params?: any };
      if (message.id === undefined) return void response.writeHead(202).end();
      if (message.method === "initialize") {
        const opened = `raw-session-${++sessions}`;
        live.add(opened);
        response.setHeader("mcp-session-id", opened);
      }
      const result =
        message.method === "tools/list"
          ? `{"tools":${options.tools}${options.endlessPages ? `,"nextCursor":"page-${++listings}"` : (listings++, "")}}`
          : JSON.stringify(answer(message.method, message.params));
      response.writeHead(200, { "content-type": "application/json" });
      response.end(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${result}}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    streams: () => streams,
    listings: () => listings,
    sessions: () => sessions,
    forgetSessions: () => live.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(method: string, params: any): unknown {
  if (method === "initialize") {
    return {
      protocolVersion: params.protocolVersion,
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: "raw", version: "1" },
    };
  }
  if (method === "tools/call")
    return { content: [{ type: "text", text: JSON.stringify({ name: params.name, arguments: params.arguments }) }] };
  return {};
}

/** A handler with the raw server `server` as the toolkit `raw`, and an agent's key to call it with. */
export interface RawHandler {
  tools: ToolsHandler;
  /** One call of the handler's API with the agent's key: the status and the JSON answer. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
}

/**
 * A handler (memory store, private networks allowed for the loopback server) whose toolkit `raw`
 * is `server`, with `auth` (none by default) and the handler's `maxResponseBytes`.
 */
export async function rawHandler(server: RawServer, options: { auth?: AuthScheme; maxResponseBytes?: number } = {}): Promise<RawHandler> {
  const store = memoryStore();
  const tools = createToolsHandler({
    store,
    secret: `raw-server-secret-of-at-least-thirty-two-bytes-${Math.random()}`,
    publicUrl: "https://app.test",
    allowPrivateNetworks: true,
    ...(options.maxResponseBytes ? { maxResponseBytes: options.maxResponseBytes } : {}),
    toolkits: [
      defineToolkit({ slug: "raw", name: "Raw", description: "A hand-written MCP server.", mcp: server.url, auth: options.auth ?? none() }),
    ],
  });
  const { key } = await issueApiKey(store, { workspaceId: "w", agentId: "agent" });
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await tools(
      new Request(`http://tools.test/proxy/tools${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : null };
  };
  return { tools, api };
}
