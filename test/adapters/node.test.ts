/** The node:http example (examples/node/server.ts) on Node 24 and Node 22, through the shared suite. */
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
    label: `node:http on ${runtime.name}`,
    missing: runtime.missing,
    basePath,
    fixtures,
    start: () =>
      startApp({
        command: runtime.path!,
        args: ["examples/node/server.ts"],
        cwd: ROOT,
        env: fixtures().appEnv(basePath),
        listening: /listening on (http:\/\/[^/\s]+)/,
      }),
  });
}
