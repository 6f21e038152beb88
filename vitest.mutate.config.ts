import { defineConfig } from "vitest/config";
import { SELECTION, testsFor } from "./mutation.config.mjs";

// The tests of the files being mutated (MUTATE_FILES, comma-separated; every file by default).
const files = process.env.MUTATE_FILES ? process.env.MUTATE_FILES.split(",") : Object.keys(SELECTION);

export default defineConfig({
  test: {
    include: testsFor(files),
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
