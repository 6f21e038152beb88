/**
 * The published package stays under 10 MB packed (`npm pack`), generated tools included: read from
 * the built `dist/`, which `npm test` builds before the tests. Locally, with `dist/` older than the
 * sources, the check is skipped (run `npm run build` first).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isStale } from "../scripts/build.mjs";

const ROOT = join(import.meta.dirname, "..");
const LIMIT = 10 * 1000 * 1000;
const DATA = /(^|\/)src\/catalog\/(generated\/(tools\/[^/]+|summaries)\.ts|providers\/[^/]+\.json|icons\.generated\.ts)$/;

describe("package size", () => {
  it.skipIf(isStale(ROOT))("the packed package is under 10 MB (needs dist/ built from the sources as they are: npm run build)", () => {
    const output = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: ROOT,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    const [pack] = JSON.parse(output) as Array<{ size: number; unpackedSize: number; files: Array<{ path: string; size: number }> }>;
    expect(pack!.size, `packed ${(pack!.size / 1e6).toFixed(1)} MB`).toBeLessThan(LIMIT);
    // The catalog's data (generated tools, provider files, icons) stays out of the source maps' text (scripts/build.mjs).
    const maps = pack!.files.filter((file) => file.path.endsWith(".map"));
    expect(maps.length).toBeGreaterThan(0);
    const kept = maps.flatMap((file) => {
      const map = JSON.parse(readFileSync(join(ROOT, file.path), "utf8")) as { sources: string[]; sourcesContent?: Array<string | null> };
      return map.sources
        .filter((source, index) => DATA.test(source) && map.sourcesContent?.[index] != null)
        .map((source) => `${file.path}: ${source}`);
    });
    expect(kept).toEqual([]);
  });
});
