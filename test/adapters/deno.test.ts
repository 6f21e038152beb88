/** The Deno example (examples/deno/main.ts, `Deno.serve(tools)`), through the shared suite, at both basePaths. */
import { startApp } from "./app-process.js";
import { CUSTOM_BASE, DEFAULT_BASE } from "./fixtures.js";
import { deno, ROOT } from "./runtimes.js";
import { adapterSuite, useFixtures } from "./suite.js";

const fixtures = useFixtures();

for (const basePath of [DEFAULT_BASE, CUSTOM_BASE]) {
  adapterSuite({
    label: deno.version.split(" (")[0]!.replace("deno", "Deno"),
    missing: deno.missing,
    basePath,
    fixtures,
    start: () =>
      startApp({
        command: deno.path!,
        args: ["run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "examples/deno/main.ts"],
        cwd: ROOT,
        env: { ...fixtures().appEnv(basePath), DENO_NO_UPDATE_CHECK: "1" },
        listening: /listening on (http:\/\/[^/\s]+)/,
      }),
  });
}
