/**
 * The published client (`dist/client`, built by `npm run build`): self-contained, so a browser
 * bundle of `tools-proxy/client` carries no server code. Skipped when dist/ has no client build.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { importsOf } from "./bundle.js";

const DIST = resolve(import.meta.dirname, "../../dist/client");
const built = existsSync(`${DIST}/index.js`) && existsSync(`${DIST}/index.cjs`);
const NAME = "dist/client imports nothing, and its Node helper only node built-ins";

describe("built client", () => {
  it.skipIf(!built)(built ? NAME : `${NAME} (skipped: no dist/client; run npm run build)`, () => {
    for (const file of ["index.js", "index.cjs"]) {
      expect(importsOf(readFileSync(`${DIST}/${file}`, "utf8")), file).toEqual([]);
      expect(statSync(`${DIST}/${file}`).size, file).toBeLessThan(40 * 1024);
    }
    for (const file of ["node.js", "node.cjs"]) {
      expect(
        importsOf(readFileSync(`${DIST}/${file}`, "utf8")).every((m) => /^(node:)?(fs|fs\/promises|path)$/.test(m)),
        file,
      ).toBe(true);
    }
    const types = readFileSync(`${DIST}/index.d.ts`, "utf8");
    expect(importsOf(types)).toEqual(["zod"]);
  });
});
