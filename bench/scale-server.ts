/**
 * The tools-proxy server of `npm run bench:scale`, in a child process: the handler on a SQL store
 * (a fresh database given by URL, migrated here), the bench toolkit with the pooled undici fetch,
 * an agent key and a service key of workspace "bench", and the agent's one connection, made
 * through the API so that its credential is sealed as in production.
 */
import type { RequestListener } from "node:http";
import { BENCH_TOOLKIT, benchToolkit, type ServerConfig, type ServerReady } from "./servers.js";

export const SECRET = "bench-secret-bench-secret-bench-secret-0123456789";

export async function sqlTools(
  config: Extract<ServerConfig, { role: "sql" }>,
  listen: (listener: RequestListener) => Promise<ServerReady>,
): Promise<ServerReady> {
  const { createToolsHandler, defineJsonToolkit, issueApiKey } = await import("../src/index.js");
  const { sqlStore } = await import("../src/store/sql/index.js");
  const { toNodeHandler, createUndiciFetch } = await import("../adapters/node.js");
  const store = sqlStore({ url: config.url });
  await store.migrate();
  const handler = createToolsHandler({
    store,
    toolkits: [defineJsonToolkit(benchToolkit(config.upstream))],
    secret: SECRET,
    fetch: createUndiciFetch(),
  });
  const agent = await issueApiKey(store, { workspaceId: "bench", agentId: "agent" });
  const service = await issueApiKey(store, { kind: "service", workspaceId: "bench" });
  const auth = await handler(
    new Request("http://bench.invalid/proxy/tools/auth", {
      method: "POST",
      headers: { "x-api-key": agent.key, "content-type": "application/json" },
      body: JSON.stringify({ toolkit: BENCH_TOOLKIT, credentials: { apiKey: config.key } }),
    }),
  );
  if (auth.status !== 201) return { port: 0, error: `POST /auth answered ${auth.status}: ${await auth.text()}` };
  const { connection } = (await auth.json()) as { connection: { id: string } };
  const ready = await listen(toNodeHandler(handler));
  return { ...ready, agentKey: agent.key, serviceKey: service.key, connectionId: connection.id };
}
