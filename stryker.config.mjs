// @ts-check
/**
 * StrykerJS over the modules that guard a secret or the outbound boundary (mutation.config.mjs).
 * Run it with `npm run mutate` (every file) or `npm run mutate -- src/redact.ts` (one file): the
 * script passes the files and their tests. Results: reports/mutation/index.html, and the
 * incremental file that makes a re-run after a small change take minutes.
 */
import { SELECTION } from "./mutation.config.mjs";

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutate.config.ts", related: false },
  plugins: ["@stryker-mutator/vitest-runner"],
  mutate: Object.keys(SELECTION),
  coverageAnalysis: "perTest",
  // Module-level constants (the redaction patterns, header sets, the signature table) are mutated
  // too: each such mutant runs every test of the selection.
  ignoreStatic: false,
  concurrency: 2,
  incremental: true,
  incrementalFile: "reports/stryker-incremental.json",
  timeoutMS: 10_000,
  timeoutFactor: 2,
  reporters: ["clear-text", "progress-append-only", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  thresholds: { high: 95, low: 90, break: null },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
