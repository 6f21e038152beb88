/**
 * The published types under an app's strictest settings (strict, exactOptionalPropertyTypes,
 * noUncheckedIndexedAccess, verbatimModuleSyntax, NodeNext, no skipLibCheck): the app in
 * test/types/consumer, written as the docs show, compiles against dist/ as a user's would.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const built = existsSync(`${ROOT}/dist/index.d.ts`);
const NAME = "an app compiles against the package's declarations with the strictest settings";

describe("published types", () => {
  // A whole tsc run, over @types/node too: 30 s and more on a loaded 2-core machine.
  it.skipIf(!built)(
    built ? NAME : `${NAME} (skipped: no dist/; run npm run build)`,
    () => {
      const run = spawnSync(`${ROOT}/node_modules/.bin/tsc`, ["-p", "test/types/consumer/tsconfig.json"], { cwd: ROOT, encoding: "utf8" });
      expect(run.stdout + run.stderr, "tsc's errors").toBe("");
      expect(run.status).toBe(0);
    },
    120_000,
  );
});
