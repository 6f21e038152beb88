/**
 * The servers of the benchmark, one per child process (started by `startServer` in
 * `bench/child.ts`). The parent sends one `ServerConfig` over IPC; the child answers with a
 * `ServerReady` once it listens on 127.0.0.1, and exits when the parent sends "exit" (so that
 * `--cpu-prof` can write its profile) or disconnects.
 */
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { pipeProxyListener } from "./pipe-proxy.js";

export const UPSTREAM_KEY_HEADER = "x-upstream-key";
export const BENCH_TOOL = "BENCH_GET_ITEM";
export const BENCH_TOOLKIT = "bench";

export type ServerConfig =
  | { role: "upstream"; key: string }
  | { role: "pipe"; upstream: string; key: string }
  | { role: "tools"; upstream: string; key: string; fetch: "global" | "undici" }
  | { role: "bare"; json: string }
  | { role: "sql"; url: string; upstream: string; key: string }
  | { role: "passthrough"; upstream: string; key: string }
  /** adapter: the file URL of a built tools-proxy/node whose `toNodeHandler` to use (default: this tree's source). */
  | { role: "floor"; bridge: FloorBridge; adapter?: string };

/** The Node bridges the adapter floor compares, each serving the same trivial fetch handler (and "bare", none). */
export const FLOOR_BRIDGES = ["bare", "toNodeHandler", "whatwg-node", "hono", "hono-globals-kept"] as const;
export type FloorBridge = (typeof FLOOR_BRIDGES)[number];
/** What the trivial handler and the bare server answer: the same status, headers and bytes. */
export const FLOOR_BODY = "Hello from the adapter floor\n";
const FLOOR_TYPE = "text/plain; charset=utf-8";

export interface ServerReady {
  port: number;
  /** tools: an agent key, and the body GET /connections answers (for the bare server). */
  agentKey?: string;
  /** sql: a service key of the same workspace, and the agent's one connection. */
  serviceKey?: string;
  connectionId?: string;
  connectionsJson?: string;
  error?: string;
}

/** The toolkit of the benchmark's upstream: its key in one header, one tool that reads an item. */
export function benchToolkit(upstream: string) {
  return {
    slug: BENCH_TOOLKIT,
    name: "Bench",
    description: "The benchmark's upstream on loopback.",
    baseUrl: upstream,
    auth: { type: "apiKey" as const, in: "header" as const, name: UPSTREAM_KEY_HEADER },
    tools: [
      {
        slug: BENCH_TOOL,
        name: "Get item",
        description: "Reads one item.",
        method: "GET" as const,
        path: "/items/{id}",
        inputParameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      },
    ],
  };
}

/** The upstream's answer: a small JSON body, the same bytes every time. */
export const ITEM = { id: "item_1", name: "A small item", price: 12.5, tags: ["bench", "loopback"], inStock: true };

async function main(config: ServerConfig): Promise<ServerReady> {
  switch (config.role) {
    case "upstream":
      return listen(upstream(config.key));
    case "pipe":
      return listen(pipeProxyListener({ upstream: config.upstream, token: config.key }).listener);
    case "bare":
      return listen(bare(config.json));
    case "tools":
      return tools(config);
    case "sql":
      return (await import("./scale-server.js")).sqlTools(config, listen);
    case "passthrough":
      return (await import("./passthrough-servers.js")).passthroughTools(config, listen);
    case "floor":
      return listen(await floor(config.bridge, config.adapter));
  }
}

function upstream(key: string): RequestListener {
  const body = Buffer.from(JSON.stringify(ITEM));
  const denied = Buffer.from(JSON.stringify({ error: "bad key" }));
  const bearer = `Bearer ${key}`;
  return (req, res) => {
    // Drain any request body before answering, as a real API would.
    req.resume();
    req.on("end", () => {
      // The key in its own header (the handler's toolkit) or as a Bearer token (the pipe proxy, serve's toolkit).
      const ok = req.headers[UPSTREAM_KEY_HEADER] === key || req.headers.authorization === bearer;
      res.writeHead(ok ? 200 : 401, { "content-type": "application/json", "content-length": ok ? body.length : denied.length });
      res.end(ok ? body : denied);
    });
  };
}

/** What a hand-written handler for GET /connections costs: serialize the same value, send it. */
function bare(json: string): RequestListener {
  const value: unknown = JSON.parse(json);
  return (req, res) => {
    req.resume();
    const body = JSON.stringify(value);
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  };
}

/**
 * A trivial fetch handler behind one Node bridge: ours (`toNodeHandler`), @whatwg-node/server's
 * `createServerAdapter`, @hono/node-server's `getRequestListener` (with its defaults, which
 * replace the global `Request` and `Response` in this process, and without that replacement), or
 * none (a bare node:http handler). `adapter` names the tools-proxy/node whose `toNodeHandler` serves:
 * this tree's source, or a build (the side-by-side bench runs the last release's beside this tree's).
 */
async function floor(bridge: FloorBridge, adapter = "../adapters/node.js"): Promise<RequestListener> {
  const trivial = async () => new Response(FLOOR_BODY, { headers: { "content-type": FLOOR_TYPE } });
  switch (bridge) {
    case "bare": {
      const body = Buffer.from(FLOOR_BODY);
      return (req, res) => {
        req.resume();
        res.writeHead(200, { "content-type": FLOOR_TYPE, "content-length": body.length }).end(body);
      };
    }
    case "toNodeHandler":
      return ((await import(adapter)) as typeof import("../adapters/node.js")).toNodeHandler(trivial);
    case "whatwg-node":
      return (await import("@whatwg-node/server")).createServerAdapter(trivial) as unknown as RequestListener;
    case "hono":
      return (await import("@hono/node-server")).getRequestListener(trivial) as unknown as RequestListener;
    case "hono-globals-kept":
      // As toNodeHandler uses it: the handler's Response is then the platform's, built and read in full.
      return (await import("@hono/node-server")).getRequestListener(trivial, {
        overrideGlobalObjects: false,
      }) as unknown as RequestListener;
  }
}

async function tools(config: Extract<ServerConfig, { role: "tools" }>): Promise<ServerReady> {
  const { createToolsHandler, defineJsonToolkit, issueApiKey, memoryStore } = await import("../src/index.js");
  const nodeAdapter: Record<string, unknown> = await import("../adapters/node.js");
  const toNodeHandler = nodeAdapter.toNodeHandler as typeof import("../adapters/node.js").toNodeHandler;

  // SWITCH (BENCH_FETCH): "undici" uses the pooled client from adapters/node.ts when it exists.
  let outboundFetch: typeof fetch | undefined;
  if (config.fetch === "undici") {
    const create = nodeAdapter.createUndiciFetch;
    if (typeof create !== "function") return { port: 0, error: "adapters/node.ts does not export createUndiciFetch (yet)" };
    outboundFetch = (create as () => typeof fetch)();
  }

  const toolkit = defineJsonToolkit(benchToolkit(config.upstream));
  const store = memoryStore();
  const handler = createToolsHandler({
    store,
    toolkits: [toolkit],
    secret: "bench-secret-bench-secret-bench-secret-0123456789",
    ...(outboundFetch ? { fetch: outboundFetch } : {}),
  });
  const { key } = await issueApiKey(store, { workspaceId: "bench", agentId: "agent" });
  const headers = { "x-api-key": key, "content-type": "application/json" };
  const base = "http://bench.invalid/proxy/tools";
  const auth = await handler(
    new Request(`${base}/auth`, {
      method: "POST",
      headers,
      body: JSON.stringify({ toolkit: BENCH_TOOLKIT, credentials: { apiKey: config.key } }),
    }),
  );
  if (auth.status !== 201) return { port: 0, error: `POST /auth answered ${auth.status}: ${await auth.text()}` };
  const connections = await handler(new Request(`${base}/connections`, { headers }));
  const ready = await listen(toNodeHandler(handler));
  return { ...ready, agentKey: key, connectionsJson: await connections.text() };
}

export function listen(listener: RequestListener): Promise<ServerReady> {
  const server = createServer({ keepAliveTimeout: 60_000 }, listener);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ port: (server.address() as AddressInfo).port })));
}

process.once("message", (config: ServerConfig) => {
  main(config).then(
    (ready) => process.send!(ready),
    (error: unknown) => process.send!({ port: 0, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
  process.on("message", (message) => {
    if (message === "exit") process.exit(0);
    if (message === "memory") {
      (globalThis as { gc?: () => void }).gc?.();
      const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
      process.send!({ rss, heapUsed, heapTotal, external });
    }
    if (message === "cpu") {
      const { user, system } = process.cpuUsage();
      process.send!({ cpuMicros: user + system });
    }
  });
});
process.on("disconnect", () => process.exit(0));
