/**
 * A remote MCP server for the tests, built with the official SDK (`McpServer` over the stateful
 * Streamable HTTP transport) on 127.0.0.1 and a free port. It takes a static bearer token and lists
 * tools by token: `tokenA` gets the main set, `tokenB` another. A few tool names are answered by
 * the HTTP layer itself, as a broken server would: `malformed` (not JSON), `not_rpc` (JSON that is
 * not JSON-RPC).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const RUN = Math.random().toString(36).slice(2, 10);

export interface RemoteServer {
  url: string;
  /** The same tools over the older HTTP+SSE transport. */
  sseUrl: string;
  tokenA: string;
  tokenB: string;
  /** Authorization headers the server received, for checking what was sent. */
  seen: string[];
  /** How many MCP sessions were initialized. */
  initialized(): number;
  close(): Promise<void>;
}

function toolsFor(server: McpServer, token: "A" | "B", hugeBytes: number): void {
  if (token === "B") {
    server.registerTool("only_b", { description: "Only B's connection sees this.", inputSchema: {} }, async () => ({
      content: [{ type: "text", text: "b" }],
    }));
    return;
  }
  server.registerTool(
    "add",
    {
      title: "Add numbers",
      description: "Adds two numbers.",
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  server.registerTool("greet", { description: "Greets.", inputSchema: { name: z.string() } }, async ({ name }) => ({
    content: [
      { type: "text", text: `Hello, ${name}.` },
      { type: "text", text: "Bye." },
    ],
  }));
  server.registerTool("fail", { description: "Always fails.", annotations: { destructiveHint: true } }, async () => ({
    content: [{ type: "text", text: "the widget is locked" }],
    isError: true,
  }));
  server.registerTool("huge", { description: "Answers more than the proxy reads." }, async () => ({
    content: [{ type: "text", text: "x".repeat(hugeBytes) }],
  }));
  server.registerTool("echo_auth", { description: "Echoes the bearer token (a server that leaks)." }, async (extra) => ({
    content: [{ type: "text" as const, text: `token: ${String(extra.requestInfo?.headers.authorization ?? "")}` }],
  }));
  server.registerTool("fail_echo", { description: "Fails, quoting the bearer token (a server that leaks)." }, async (extra) => ({
    content: [{ type: "text" as const, text: `refused ${String(extra.requestInfo?.headers.authorization ?? "")}` }],
    isError: true,
  }));
  server.registerTool("a b", { description: "Collides with a_b once made a slug." }, async () => ({
    content: [{ type: "text", text: "space" }],
  }));
  server.registerTool("a_b", { description: "Keeps its plain slug." }, async () => ({ content: [{ type: "text", text: "underscore" }] }));
  server.registerTool("malformed", { description: "Answered with broken JSON." }, async () => ({ content: [] }));
  server.registerTool("not_rpc", { description: "Answered with JSON that is not JSON-RPC." }, async () => ({ content: [] }));
  server.registerTool("add_tool", { description: "Adds the tool 'added' to this session's list." }, async () => {
    if (!added.has(server)) {
      added.add(server);
      server.registerTool("added", { description: "Added at run time." }, async () => ({ content: [{ type: "text", text: "new" }] }));
    }
    return { content: [{ type: "text", text: "ok" }] };
  });
}

const added = new WeakSet<McpServer>();

export async function startRemoteServer(options: { hugeBytes?: number } = {}): Promise<RemoteServer> {
  const tokenA = `remote-tok-a-${RUN}`;
  const tokenB = `remote-tok-b-${RUN}`;
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const seen: string[] = [];
  let initialized = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const auth = req.headers.authorization ?? "";
    seen.push(auth);
    const token = auth === `Bearer ${tokenA}` ? "A" : auth === `Bearer ${tokenB}` ? "B" : null;
    if (!token) {
      res.writeHead(401, { "www-authenticate": 'Bearer realm="remote"' }).end();
      return;
    }
    let body: unknown;
    if (req.method === "POST") {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const call = body as { method?: string; id?: number; params?: { name?: string } };
      if (call.method === "tools/call" && call.params?.name === "malformed") {
        res.writeHead(200, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","id":');
        return;
      }
      if (call.method === "tools/call" && call.params?.name === "not_rpc") {
        res.writeHead(200, { "content-type": "application/json" }).end('{"hello":"world"}');
        return;
      }
    }
    if (req.url?.startsWith("/sse") || req.url?.startsWith("/messages")) return handleSse(req, res, token, body);
    const sessionId = req.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (typeof sessionId === "string") {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
        return;
      }
      const server = new McpServer({ name: "remote-test", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
      toolsFor(server, token, options.hugeBytes ?? 200_000);
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          initialized++;
          transports.set(id, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId) transports.delete(created.sessionId);
      };
      await server.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  }

  const sseTransports = new Map<string, SSEServerTransport>();
  async function handleSse(req: IncomingMessage, res: ServerResponse, token: "A" | "B", body: unknown): Promise<void> {
    if (req.method === "GET") {
      const transport = new SSEServerTransport("/messages", res);
      sseTransports.set(transport.sessionId, transport);
      res.on("close", () => sseTransports.delete(transport.sessionId));
      const server = new McpServer({ name: "remote-test-sse", version: "1.0.0" });
      toolsFor(server, token, options.hugeBytes ?? 200_000);
      await server.connect(transport);
      return;
    }
    const id = new URL(req.url ?? "/", "http://localhost").searchParams.get("sessionId") ?? "";
    const transport = sseTransports.get(id);
    if (!transport) {
      res.writeHead(404).end();
      return;
    }
    await transport.handlePostMessage(req, res, body);
  }

  const http: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sseUrl: `http://127.0.0.1:${port}/sse`,
    tokenA,
    tokenB,
    seen,
    initialized: () => initialized,
    close: async () => {
      await Promise.all([...transports.values(), ...sseTransports.values()].map((t) => t.close().catch(() => {})));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
