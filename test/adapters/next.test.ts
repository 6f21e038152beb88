/**
 * The Next.js example (examples/next: one catch-all App Router route file), built once with
 * `next build` and started with `next start` on Node 24 and Node 22, through the shared suite.
 */
import { startApp } from "./app-process.js";
import { CUSTOM_BASE, DEFAULT_BASE } from "./fixtures.js";
import { buildNextExample } from "./next-app.js";
import { node22, node24, ROOT } from "./runtimes.js";
import { adapterSuite, useFixtures } from "./suite.js";

let built: string;
const fixtures = useFixtures(async () => {
  if (!node24.missing) built = await buildNextExample(node24, (line) => console.log(line));
}, 300_000);

for (const [runtime, basePath] of [
  [node24, DEFAULT_BASE],
  [node22, CUSTOM_BASE],
] as const) {
  adapterSuite({
    label: `Next.js on ${runtime.name}`,
    // The build runs on Node 24.
    missing: node24.missing ?? runtime.missing,
    basePath,
    fixtures,
    // Next.js drops Content-Length (and Content-Encoding) from every route handler response.
    dropsContentLength: true,
    start: () =>
      startApp({
        command: runtime.path!,
        args: [`${ROOT}node_modules/next/dist/bin/next`, "start", "next", "--port", "0", "--hostname", "127.0.0.1"],
        cwd: built,
        env: fixtures().appEnv(basePath),
        listening: /Local:\s+(http:\/\/127\.0\.0\.1:\d+)/,
      }),
  });
}
