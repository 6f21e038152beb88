/**
 * The servers of `bench/passthrough.ts`, one per child process. Over IPC the parent sends one
 * `PassthroughServerConfig`; the child answers with a `PassthroughServerReady` once it listens on
 * 127.0.0.1, and exits on "exit" or when the parent disconnects.
 *
 * - "upstream": answers `GET /items/:id` with a small JSON body when `Authorization: Bearer <token>`;
 * - "pipe": the minimal pipe proxy of `bench/pipe-proxy.ts`, adding that header;
 * - "tools": the handler behind `toNodeHandler`, memory store, a bearer toolkit on the upstream and
 *   a connection holding the token; the passthrough route is what is measured.
 */
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { pipeProxyListener } from "./pipe-proxy.js";

export const PASSTHROUGH_TOOLKIT = "bench";

export type PassthroughServerConfig =
  | { role: "upstream"; token: string }
  | { role: "pipe"; upstream: string; token: string }
  | { role: "tools"; upstream: string; token: string };

export interface PassthroughServerReady {
  port: number;
  /** tools: the agent key to call with. */
  agentKey?: string;
  error?: string;
}

const ITEM = JSON.stringify({ id: "item_1", name: "A small item", price: 12.5, tags: ["bench", "loopback"], inStock: true });

function upstream(token: string): RequestListener {
  const body = Buffer.from(ITEM);
  const denied = Buffer.from(JSON.stringify({ error: "bad token" }));
  const expected = `Bearer ${token}`;
  return (req, res) => {
    req.resume();
    req.on("end", () => {
      const ok = req.headers.authorization === expected;
      res.writeHead(ok ? 200 : 401, { "content-type": "application/json", "content-length": ok ? body.length : denied.length });
      res.end(ok ? body : denied);
    });
  };
}

async function tools(config: Extract<PassthroughServerConfig, { role: "tools" }>): Promise<PassthroughServerReady> {
  const { createToolsHandler, defineToolkit, issueApiKey, memoryStore } = await import("../src/index.js");
  const nodeAdapter: Record<string, unknown> = await import("../adapters/node.js");
  const toNodeHandler = nodeAdapter.toNodeHandler as typeof import("../adapters/node.js").toNodeHandler;
  // The pooled undici client when the adapter has one (as `serve` uses), else the global fetch.
  const create = nodeAdapter.createUndiciFetch as (() => typeof fetch) | undefined;
  const store = memoryStore();
  const handler = createToolsHandler({
    store,
    toolkits: [
      defineToolkit({
        slug: PASSTHROUGH_TOOLKIT,
        name: "Bench",
        description: "The benchmark's upstream on loopback.",
        baseUrl: config.upstream,
        auth: { type: "bearer" },
        tools: [],
      }),
    ],
    secret: "bench-secret-bench-secret-bench-secret-0123456789",
    ...(typeof create === "function" ? { fetch: create() } : {}),
  });
  const { key } = await issueApiKey(store, { workspaceId: "bench", agentId: "agent" });
  const auth = await handler(
    new Request("http://bench.invalid/proxy/tools/auth", {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ toolkit: PASSTHROUGH_TOOLKIT, credentials: { token: config.token } }),
    }),
  );
  if (auth.status !== 201) return { port: 0, error: `POST /auth answered ${auth.status}: ${await auth.text()}` };
  const ready = await listen(toNodeHandler(handler));
  return { ...ready, agentKey: key };
}

function listen(listener: RequestListener): Promise<PassthroughServerReady> {
  const server = createServer({ keepAliveTimeout: 60_000 }, listener);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ port: (server.address() as AddressInfo).port })));
}

async function main(config: PassthroughServerConfig): Promise<PassthroughServerReady> {
  switch (config.role) {
    case "upstream":
      return listen(upstream(config.token));
    case "pipe":
      return listen(pipeProxyListener({ upstream: config.upstream, token: config.token }).listener);
    case "tools":
      return tools(config);
  }
}

process.once("message", (config: PassthroughServerConfig) => {
  main(config).then(
    (ready) => process.send?.(ready),
    (error: unknown) => process.send?.({ port: 0, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
  process.on("message", (message) => {
    if (message === "exit") process.exit(0);
  });
  process.once("disconnect", () => process.exit(0));
});
