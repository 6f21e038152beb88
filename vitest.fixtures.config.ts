import { defineConfig } from "vitest/config";

// Suites that are meant to fail against a broken implementation, run on their own by the tests
// that check the suites themselves (test/testing/conformance-modes.test.ts); never part of `npm test`'s run.
export default defineConfig({ test: { include: ["test/fixtures/*.conformance.ts"], testTimeout: 30_000 } });
