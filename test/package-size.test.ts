/**
 * The published package stays under 10 MB packed (`npm pack`), generated tools included: read from
 * the built `dist/`, which `npm test` builds before the tests. Locally, with `dist/` older than the
 * sources, the check is skipped (run `npm run build` first).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isStale } from "../scripts/build.mjs";

const ROOT = join(import.meta.dirname, "..");
const LIMIT = 10 * 1000 * 1000;

describe("package size", () => {
  it.skipIf(isStale(ROOT))("the packed package is under 10 MB (needs dist/ built from the sources as they are: npm run build)", () => {
    const output = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: ROOT,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    const [pack] = JSON.parse(output) as Array<{ size: number; unpackedSize: number; files: Array<{ path: string; size: number }> }>;
    expect(pack!.size, `packed ${(pack!.size / 1e6).toFixed(1)} MB`).toBeLessThan(LIMIT);
    // The generated tools' source text stays out of the source maps (scripts/build.mjs).
    const maps = pack!.files.filter((file) => file.path.endsWith(".map"));
    const largest = Math.max(...maps.map((file) => file.size));
    expect(largest).toBeLessThan(1_000_000);
  });
});
