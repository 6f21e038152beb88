/**
 * The tools-proxy server of `bench/passthrough.ts` (role "passthrough" of `bench/servers.ts`, in
 * its own child process): the handler behind `toNodeHandler`, memory store, a bearer toolkit on the
 * upstream and a connection holding the token; the passthrough route is what is measured. The
 * upstream and the pipe proxy are the roles "upstream" and "pipe" of `bench/servers.ts`, which
 * take the same token as a Bearer credential.
 */
import type { RequestListener } from "node:http";
import { BENCH_TOOLKIT, type ServerConfig, type ServerReady } from "./servers.js";

export async function passthroughTools(
  config: Extract<ServerConfig, { role: "passthrough" }>,
  listen: (listener: RequestListener) => Promise<ServerReady>,
): Promise<ServerReady> {
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
        slug: BENCH_TOOLKIT,
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
      body: JSON.stringify({ toolkit: BENCH_TOOLKIT, credentials: { token: config.key } }),
    }),
  );
  if (auth.status !== 201) return { port: 0, error: `POST /auth answered ${auth.status}: ${await auth.text()}` };
  const ready = await listen(toNodeHandler(handler));
  return { ...ready, agentKey: key };
}
