/**
 * The Hono example (examples/hono: an app with a route of its own and `app.all(`${basePath}/*`,
 * (c) => tools(c.req.raw))`) through the shared suite: served by @hono/node-server on Node 24 and
 * Node 22 and by Bun.serve, each at one of the basePaths. (Deno.serve takes `app.fetch` as Bun.serve
 * does, and test/adapters/deno.test.ts covers Deno.serve with a fetch function.)
 */
import { startApp } from "./app-process.js";
import { CUSTOM_BASE, DEFAULT_BASE } from "./fixtures.js";
import { bun, node22, node24, ROOT } from "./runtimes.js";
import { adapterSuite, useFixtures } from "./suite.js";

const fixtures = useFixtures();

const targets = [
  { runtime: node24, basePath: CUSTOM_BASE, args: ["examples/hono/node.ts"] },
  { runtime: node22, basePath: DEFAULT_BASE, args: ["examples/hono/node.ts"] },
  // The repository's tsconfig.json maps "tools-proxy" to the sources, and Bun would follow it.
  { runtime: bun, basePath: DEFAULT_BASE, args: ["--tsconfig-override=examples/tsconfig.json", "examples/hono/bun.ts"] },
];

for (const { runtime, basePath, args } of targets) {
  adapterSuite({
    label: `Hono on ${runtime.name}`,
    missing: runtime.missing,
    basePath,
    fixtures,
    ownJsonRoute: true,
    // Bun sends every stream body chunked, without the handler's Content-Length (oven-sh/bun#10507).
    dropsContentLength: runtime === bun,
    start: () =>
      startApp({
        command: runtime.path!,
        args,
        cwd: ROOT,
        env: fixtures().appEnv(basePath),
        listening: /listening on (http:\/\/[^/\s]+)/,
      }),
  });
}
