/** The Bun example (examples/bun/server.ts, `Bun.serve`), through the shared suite, at both basePaths. */
import { startApp } from "./app-process.js";
import { CUSTOM_BASE, DEFAULT_BASE } from "./fixtures.js";
import { bun, ROOT } from "./runtimes.js";
import { adapterSuite, useFixtures } from "./suite.js";

const fixtures = useFixtures();

for (const basePath of [DEFAULT_BASE, CUSTOM_BASE]) {
  adapterSuite({
    label: `Bun ${bun.version}`,
    missing: bun.missing,
    basePath,
    fixtures,
    // Bun sends every stream body chunked, without the handler's Content-Length (oven-sh/bun#10507).
    dropsContentLength: true,
    start: () =>
      startApp({
        command: bun.path!,
        // The repository's tsconfig.json maps "tools-proxy" to the sources for its own type
        // check, and Bun would follow it; examples/tsconfig.json is the examples' own, as in an app.
        args: ["--tsconfig-override=examples/tsconfig.json", "examples/bun/server.ts"],
        cwd: ROOT,
        env: fixtures().appEnv(basePath),
        listening: /listening on (http:\/\/[^/\s]+)/,
      }),
  });
}
