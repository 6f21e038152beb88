import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "../../../adapters/node.js";
import { createToolsHandler, issueApiKey, memoryStore, type Toolkit, type ToolsHandlerOptions } from "../../../src/index.js";

/**
 * Real servers for the passthrough's end-to-end tests: the handler behind `toNodeHandler` on a
 * `node:http` server, and local emulations of a provider's API that record what they received.
 */

export interface Received {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON, a string as it is. */
  body?: unknown;
}

export interface Emulation {
  origin: string;
  received: Received[];
  close(): Promise<void>;
}

/** An API on 127.0.0.1 that records each request (its body read whole) and answers with `route`. */
export async function startEmulation(route: (request: Received, url: URL) => Answer): Promise<Emulation> {
  const received: Received[] = [];
  const server = createServer(async (req, res) => {
    const request = { method: req.method ?? "", url: req.url ?? "", headers: flatHeaders(req), body: await readText(req) };
    received.push(request);
    const answer = route(request, new URL(request.url, "http://emulation.invalid"));
    const json = typeof answer.body !== "string" && answer.body !== undefined;
    const body = json ? JSON.stringify(answer.body) : ((answer.body as string | undefined) ?? "");
    res.writeHead(answer.status ?? 200, { ...(json ? { "content-type": "application/json; charset=utf-8" } : {}), ...answer.headers });
    res.end(body);
  });
  const origin = await listen(server);
  return { origin, received, close: () => close(server) };
}

export interface ToolsServer {
  origin: string;
  /** `{origin}{basePath}`, the client's base URL. */
  api: string;
  /** `{origin}{basePath}/passthrough`: an SDK's base URL is this plus `/{toolkit}`. */
  passthrough: string;
  /** The agent's API key. */
  key: string;
  /** POST /auth with a credential; the connection's id. */
  connect(body: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/**
 * The handler with these toolkits, over the memory store, behind `toNodeHandler` on a real server;
 * `options` are more of the handler's options (its `fetch`, say).
 */
export async function startToolsServer(
  toolkits: Toolkit[],
  options: Omit<ToolsHandlerOptions, "store" | "toolkits" | "secret"> = {},
): Promise<ToolsServer> {
  const store = memoryStore();
  const tools = createToolsHandler({ ...options, store, toolkits, secret: `passthrough-test-secret-${crypto.randomUUID()}` });
  const server = createServer(toNodeHandler(tools));
  const origin = await listen(server);
  const { key } = await issueApiKey(store, { workspaceId: "ws", agentId: "agent" });
  return {
    origin,
    api: `${origin}${tools.basePath}`,
    passthrough: `${origin}${tools.basePath}/passthrough`,
    key,
    async connect(body) {
      const res = await fetch(`${origin}${tools.basePath}/auth`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const answer = (await res.json()) as { connection?: { id: string } };
      if (res.status !== 201 || !answer.connection) throw new Error(`POST /auth answered ${res.status}: ${JSON.stringify(answer)}`);
      return answer.connection.id;
    },
    async close() {
      await close(server);
      await tools.close();
    },
  };
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) out[name] = [value].flat().join(", ");
  return out;
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
