/**
 * Most test files share their worker's modules (vitest.config.ts, `isolate: false`); a file that
 * replaces modules (vi.mock, vi.doMock, vi.resetModules, or the helper that hides node:crypto) would
 * hand its replacements to the files that run after it, so it must be one of the isolated files.
 */
import { globSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ISOLATED } from "../../vitest.config.js";

const ROOT = resolve(import.meta.dirname, "../..");
const REPLACES_MODULES = /\bvi\.(?:mock|doMock|resetModules)\(|\bimportWithoutNodeCrypto\(/;

describe("test isolation", () => {
  const isolated = new Set(ISOLATED.flatMap((pattern) => globSync(pattern, { cwd: ROOT })));

  it("every file that replaces modules runs isolated", () => {
    const replacing = globSync("test/**/*.test.ts", { cwd: ROOT }).filter((file) =>
      REPLACES_MODULES.test(readFileSync(resolve(ROOT, file), "utf8")),
    );
    expect(replacing.length).toBeGreaterThan(0);
    expect(replacing.filter((file) => !isolated.has(file))).toEqual([]);
  });

  it("each isolated pattern names one file that exists", () => {
    for (const pattern of ISOLATED) expect(globSync(pattern, { cwd: ROOT }), pattern).toHaveLength(1);
  });
});
