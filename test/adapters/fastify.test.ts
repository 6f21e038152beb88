/**
 * The Fastify example (examples/fastify/server.ts: a route of the app's own with Fastify's JSON
 * body parser, and the handler registered with `toFastifyPlugin`) on Node 24 and Node 22 through
 * the shared suite, each at one of the two basePaths.
 */
import { startApp } from "./app-process.js";
import { CUSTOM_BASE, DEFAULT_BASE } from "./fixtures.js";
import { node22, node24, ROOT } from "./runtimes.js";
import { adapterSuite, useFixtures } from "./suite.js";

const fixtures = useFixtures();

for (const [runtime, basePath] of [
  [node24, DEFAULT_BASE],
  [node22, CUSTOM_BASE],
] as const) {
  adapterSuite({
    label: `Fastify on ${runtime.name}`,
    missing: runtime.missing,
    basePath,
    fixtures,
    ownJsonRoute: true,
    start: () =>
      startApp({
        command: runtime.path!,
        args: ["examples/fastify/server.ts"],
        cwd: ROOT,
        env: fixtures().appEnv(basePath),
        listening: /listening on (http:\/\/[^/\s]+)/,
      }),
  });
}
