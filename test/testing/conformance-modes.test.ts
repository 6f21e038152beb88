/**
 * The conformance suite catches what it promises to: a store that locks only inside its process
 * (test/fixtures/naive-file-store.ts, as a review wrote one from the docs) passes every clause in
 * one instance, and fails the multi-instance mode, which races two instances on the same file.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

/** Runs the naive store's suite with `instances` and returns each test's full name and status. */
async function runSuite(instances: number): Promise<Array<{ name: string; status: string }>> {
  const output = join(mkdtempSync(join(tmpdir(), "conformance-modes-")), "results.json");
  const child = spawn(
    join(ROOT, "node_modules/.bin/vitest"),
    ["run", "--config", "vitest.fixtures.config.ts", "--reporter=json", `--outputFile=${output}`],
    {
      cwd: ROOT,
      env: { ...process.env, NAIVE_STORE_INSTANCES: String(instances), TOOLS_PROXY_CI_RESULTS: "" },
      stdio: "ignore",
      timeout: 120_000,
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", () => resolve());
  });
  const results = JSON.parse(readFileSync(output, "utf8")) as {
    testResults: Array<{ assertionResults: Array<{ fullName: string; status: string }> }>;
  };
  return results.testResults.flatMap((file) => file.assertionResults.map((t) => ({ name: t.fullName, status: t.status })));
}

describe("the ToolsStore conformance suite's multi-instance mode", () => {
  // The two runs are separate processes on separate files: start both at once.
  let oneInstance: ReturnType<typeof runSuite>;
  let twoInstances: ReturnType<typeof runSuite>;
  beforeAll(() => {
    oneInstance = runSuite(1);
    twoInstances = runSuite(2);
    // Each is awaited by its test; this only keeps a failure of the second from being unhandled meanwhile.
    twoInstances.catch(() => {});
  });

  it("a store that locks only in its own process passes in one instance", async () => {
    const tests = await oneInstance;
    expect(tests.length).toBeGreaterThan(30);
    expect(tests.filter((t) => t.status === "failed")).toEqual([]);
    // It has neither of the optional methods: sweep (one test) and withSignal (two).
    expect(tests.filter((t) => t.status === "passed").length, "all but the optional sweep and withSignal").toBe(tests.length - 3);
  }, 120_000);

  it("and fails across two instances: lost creates and updates, two winners of a race", async () => {
    const failed = (await twoInstances).filter((t) => t.status === "failed").map((t) => t.name);
    expect(failed).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/20 connections created at once, spread over the instances, are all stored/),
        expect.stringMatching(/concurrent updates on every instance, each retried on a stale version, all apply/),
        expect.stringMatching(/consumes exactly once under concurrency/),
        expect.stringMatching(/gives a contended lease to exactly one of 20 concurrent holders/),
      ]),
    );
  }, 120_000);
});
