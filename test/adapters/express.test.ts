/**
 * The Express example (examples/express/server.ts, the handler mounted before the body parsers)
 * on Express 5 and Express 4, each on Node 24 and Node 22, through the shared suite.
 */
import { startApp } from "./app-process.js";
import { CUSTOM_BASE, DEFAULT_BASE } from "./fixtures.js";
import { node22, node24, ROOT } from "./runtimes.js";
import { adapterSuite, useFixtures } from "./suite.js";

const fixtures = useFixtures();

const targets = [
  { express: 5, runtime: node24, basePath: DEFAULT_BASE },
  { express: 5, runtime: node22, basePath: CUSTOM_BASE },
  { express: 4, runtime: node24, basePath: CUSTOM_BASE },
  { express: 4, runtime: node22, basePath: DEFAULT_BASE },
];

for (const { express, runtime, basePath } of targets) {
  adapterSuite({
    label: `Express ${express} on ${runtime.name}`,
    missing: runtime.missing,
    basePath,
    fixtures,
    start: async () => {
      const app = await startApp({
        command: runtime.path!,
        args: [...(express === 4 ? ["--import", "./test/adapters/express4.mjs"] : []), "examples/express/server.ts"],
        cwd: ROOT,
        env: fixtures().appEnv(basePath),
        listening: /listening on (http:\/\/[^/\s]+)/,
      });
      if (express === 4 && !/"express" is express@4\./.test(app.output())) throw new Error(`Express 4 was not loaded:\n${app.output()}`);
      return app;
    },
  });
}
