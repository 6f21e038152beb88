// @ts-check
/**
 * StrykerJS over the modules that guard a secret or the outbound boundary (mutation.config.mjs).
 * Run it with `npm run mutate` (every file, one Stryker run each) or `npm run mutate --
 * src/core/redact.ts` (one file). Each run mutates the files in MUTATE_FILES and runs only their tests,
 * and keeps its own incremental file, so a re-run after a small change takes minutes.
 */
import { SELECTION } from "./mutation.config.mjs";

const files = process.env.MUTATE_FILES ? process.env.MUTATE_FILES.split(",") : Object.keys(SELECTION);
const name = files.length === 1 ? files[0].replace(/^src\//, "").replace(/[/.]/g, "-") : "all";

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutate.config.ts", related: false },
  plugins: ["@stryker-mutator/vitest-runner"],
  mutate: files,
  coverageAnalysis: "perTest",
  // Module-level constants (the redaction patterns, header sets, the signature table) are mutated
  // too: each such mutant runs every test of its file's selection.
  ignoreStatic: false,
  concurrency: 2,
  incremental: true,
  incrementalFile: `reports/mutation/incremental/${name}.json`,
  timeoutMS: 10_000,
  timeoutFactor: 2,
  reporters: ["clear-text", "progress-append-only", "html", "json"],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  clearTextReporter: { reportMutants: false, reportTests: false },
  thresholds: { high: 95, low: 90, break: null },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  warnings: { slow: false },
};
