/**
 * The servers of `bench/remote-mcp.ts`, each in its own child process (forked with `startChild`
 * of `bench/child.ts`, this file as the script), or, for the handler, in the bench's own process:
 *
 * - "mcp": a remote MCP server built with the official SDK (`McpServer` with the Node
 *   `StreamableHTTPServerTransport`, one session per client, as vendors' servers keep them), on
 *   `node:http`, 127.0.0.1, port 0. One tool, `echo`, that answers from memory with
 *   `structuredContent`; every request must carry `Authorization: Bearer <token>` (a 401 with
 *   `WWW-Authenticate` otherwise), except `POST /ping`, answered `{}` at once (what one loopback
 *   round trip costs, for comparison);
 * - "tools": `createToolsHandler` behind `toNodeHandler` (tools-proxy/node), with a remote MCP
 *   toolkit on that server (`auth: bearer`) and one connection made with `POST /auth` holding the
 *   token. `remoteToolsHandler` builds the same handler for the in-process measurement.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ServerReady } from "./servers.js";

/** The remote toolkit's slug; its one tool is then `remote.echo`. */
export const REMOTE_TOOLKIT = "remote";
export const REMOTE_TOOL = "echo";
export const REMOTE_TOOL_SLUG = `${REMOTE_TOOLKIT}.${REMOTE_TOOL}`;
/** The path of the MCP endpoint on the remote server. */
export const MCP_PATH = "/mcp";
/** A path the remote server answers with `{}` at once: one loopback HTTP round trip, the calibration of a hop. */
export const PING_PATH = "/ping";

export type RemoteServerConfig =
  | { role: "mcp"; token: string; json: boolean }
  | { role: "tools"; mcp: string; token: string; fetch: "global" | "undici" };

export interface RemoteReady extends ServerReady {
  /** The agent's API key (role "tools"). */
  agentKey?: string;
}

/** One McpServer per session (the SDK's servers hold one transport each), with the one tool. */
function echoServer(): McpServer {
  const server = new McpServer({ name: "bench-remote", version: "1.0.0" });
  server.registerTool(
    REMOTE_TOOL,
    {
      title: "Echo",
      description: "Answers with its text, from memory.",
      inputSchema: { text: z.string().max(200).describe("Any text; it comes back.") },
      outputSchema: { echo: z.string(), length: z.number() },
      annotations: { readOnlyHint: true },
    },
    ({ text }) => {
      const structuredContent = { echo: text, length: text.length };
      return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent };
    },
  );
  return server;
}

/**
 * The remote MCP server's request listener: the bearer check, then the session's transport, or a
 * new session for an `initialize` without a session id. `json`: answers as JSON rather than as a
 * one-event SSE stream (the SDK's default, which most servers keep).
 */
export function mcpListener(token: string, json: boolean): RequestListener {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const expected = `Bearer ${token}`;
  const deny = (res: ServerResponse) => {
    res.writeHead(401, { "www-authenticate": 'Bearer error="invalid_token"', "content-type": "application/json" });
    res.end(JSON.stringify({ error: "invalid_token" }));
  };
  const readJson = async (req: IncomingMessage): Promise<unknown> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
  };
  return (req, res) => {
    const handle = async () => {
      if (req.url === PING_PATH) {
        req.resume();
        res.writeHead(200, { "content-type": "application/json", "content-length": 2 }).end("{}");
        return;
      }
      if (req.headers.authorization !== expected) {
        req.resume();
        return deny(res);
      }
      if (new URL(req.url ?? "/", "http://localhost").pathname !== MCP_PATH) {
        req.resume();
        res.writeHead(404).end();
        return;
      }
      const body = req.method === "POST" ? await readJson(req) : undefined;
      const sessionId = req.headers["mcp-session-id"];
      let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
      if (!transport && req.method === "POST" && isInitializeRequest(body)) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: json,
          onsessioninitialized: (id) => {
            sessions.set(id, created);
          },
        });
        created.onclose = () => {
          if (created.sessionId) sessions.delete(created.sessionId);
        };
        await echoServer().connect(created);
        transport = created;
      }
      if (!transport) {
        res.writeHead(typeof sessionId === "string" ? 404 : 400, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "No valid session" }, id: null }));
        return;
      }
      await transport.handleRequest(req, res, body);
    };
    handle().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: String(error) }));
    });
  };
}

/**
 * The handler of the measured side: a remote MCP toolkit on `mcp` with a static bearer token, and
 * the agent's one connection to it, made with `POST /auth`. `allowPrivateNetworks`: the server is
 * on loopback over `http:`.
 */
export async function remoteToolsHandler(mcp: string, token: string, fetchKind: "global" | "undici") {
  const { createToolsHandler, defineToolkit, issueApiKey, memoryStore } = await import("../src/index.js");
  const nodeAdapter: Record<string, unknown> = await import("../adapters/node.js");
  const create = nodeAdapter.createUndiciFetch as (() => typeof fetch) | undefined;
  const store = memoryStore();
  const toolkit = defineToolkit({
    slug: REMOTE_TOOLKIT,
    name: "Remote",
    description: "A remote MCP server on loopback, with one tool that echoes.",
    mcp,
    auth: { type: "bearer" },
  });
  const handler = createToolsHandler({
    store,
    toolkits: [toolkit],
    secret: "bench-secret-bench-secret-bench-secret-0123456789",
    allowPrivateNetworks: true,
    ...(fetchKind === "undici" && typeof create === "function" ? { fetch: create() } : {}),
  });
  const { key } = await issueApiKey(store, { workspaceId: "bench", agentId: "agent" });
  const auth = await handler(
    new Request("http://bench.invalid/proxy/tools/auth", {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ toolkit: REMOTE_TOOLKIT, credentials: { token } }),
    }),
  );
  if (auth.status !== 201) throw new Error(`POST /auth answered ${auth.status}: ${await auth.text()}`);
  return { handler, key, undici: fetchKind === "undici" && typeof create === "function" };
}

function listen(listener: RequestListener): Promise<ServerReady> {
  const server = createServer({ keepAliveTimeout: 60_000 }, listener);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ port: (server.address() as AddressInfo).port })));
}

async function main(config: RemoteServerConfig): Promise<RemoteReady> {
  if (config.role === "mcp") return listen(mcpListener(config.token, config.json));
  const { toNodeHandler } = await import("../adapters/node.js");
  const { handler, key } = await remoteToolsHandler(config.mcp, config.token, config.fetch);
  return { ...(await listen(toNodeHandler(handler))), agentKey: key };
}

// A child process of the bench: the protocol of `bench/servers.ts` (config in, ready out, "exit", "cpu").
if (process.send && import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.once("message", (config: RemoteServerConfig) => {
    main(config).then(
      (ready) => process.send!(ready),
      (error: unknown) => process.send!({ port: 0, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
    process.on("message", (message) => {
      if (message === "exit") process.exit(0);
      if (message === "cpu") {
        const { user, system } = process.cpuUsage();
        process.send!({ cpuMicros: user + system });
      }
    });
  });
  process.on("disconnect", () => process.exit(0));
}
