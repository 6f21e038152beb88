import { defineConfig } from "vitest/config";

// CI (.ci/run sets TOOLS_PROXY_CI_RESULTS) also writes the results as JSON, so that
// scripts/check-skips.mjs can fail the run when a test skipped that CI is meant to run.
const results = process.env.TOOLS_PROXY_CI_RESULTS;

// Files that replace modules (vi.mock, vi.resetModules) or patch process-wide objects a failing
// test could leave patched (process.stdout, crash listeners): each runs in a fresh process.
// Every other file shares its worker's module graph with the files run before it, so `src/` and
// the test support are evaluated once per worker instead of once per file (most of the suite's
// time went to that). A file may join the shared project when whatever it patches is restored in
// an afterEach or a finally.
// By file name, so that a file keeps its place when it moves to another folder.
export const ISOLATED = [
  "test/**/submit-outcomes.test.ts",
  "test/**/connection-needed.test.ts",
  "test/**/cipher-paths.test.ts",
  "test/**/cli-terminal.test.ts",
  "test/**/node-adapter.property.test.ts",
  "test/**/private-networks.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Vitest's default is one worker fewer than the cores: one on the 2-core CI machine. Most files
    // spend their time waiting (on child processes, token lifetimes, caches running out), so three
    // keep both cores busy (four were no faster).
    maxWorkers: 3,
    ...(results ? { reporters: ["default", ["json", { outputFile: results }]] } : {}),
    projects: [
      { extends: true, test: { name: "shared", include: ["test/**/*.test.ts"], exclude: ISOLATED, isolate: false } },
      { extends: true, test: { name: "isolated", include: ISOLATED, isolate: true } },
    ],
  },
});
