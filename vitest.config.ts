import { defineConfig } from "vitest/config";

// CI (.ci/run sets TOOLS_PROXY_CI_RESULTS) also writes the results as JSON, so that
// scripts/check-skips.mjs can fail the run when a test skipped that CI is meant to run.
const results = process.env.TOOLS_PROXY_CI_RESULTS;

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    ...(results ? { reporters: ["default", ["json", { outputFile: results }]] } : {}),
  },
});
