/**
 * The built declarations: every file has a stable name (no hashed chunk such as `types-CRELELQT.d.ts`,
 * which an editor's "go to definition" would land on), and the conformance suites ship with their
 * sources in their source map, so a failing case points at readable code.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const DIST = resolve(import.meta.dirname, "../../dist");
const built = existsSync(`${DIST}/index.d.ts`);
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
const skipped = (name: string) => (built ? name : `${name} (skipped: no dist/; run npm run build)`);

describe.skipIf(!built)("built declarations", () => {
  it(skipped("have stable names, and import each other by them"), () => {
    const declarations = files(DIST).filter((f) => /\.d\.c?ts$/.test(f));
    expect(declarations.length).toBeGreaterThan(20);
    expect(declarations.filter((f) => /-[A-Za-z0-9_-]{8}\.d\.c?ts$/.test(f))).toEqual([]);
    for (const file of declarations) expect(readFileSync(file, "utf8"), file).not.toMatch(/from '[^']*-[A-Za-z0-9_-]{8}\.c?js'/);
  });

  it(skipped("entries name only public types: each type they import from a shared chunk is exported by an entry"), () => {
    // A type an entry uses but no entry exports (JsonToolkitOptions, used by tools-proxy/catalog's
    // loadToolkitFile) is one a consumer cannot name: their declaration emit fails (TS2742), and
    // rollup-plugin-dts warns on every build. Export it from an entry (src/index.ts).
    const pkg = JSON.parse(readFileSync(resolve(DIST, "../package.json"), "utf8"));
    const entries = [...JSON.stringify(pkg.exports).matchAll(/"types":"\.\/(dist\/[^"]+)"/g)].map(([, path]) => resolve(DIST, "..", path!));
    const exported = new Set(
      entries.flatMap((file) =>
        [...readFileSync(file, "utf8").matchAll(/^export (?:type )?\{([^}]*)\}/gm)].flatMap(([, names]) =>
          names!.split(",").map((name) =>
            name
              .trim()
              .split(/\s+as\s+/)
              .at(-1)!
              .replace(/^type\s+/, ""),
          ),
        ),
      ),
    );
    const entryFiles = new Set(entries);
    const unnamed = entries.flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/^import (?:type )?\{([^}]*)\} from '(\.[^']+)'/gm)]
        .filter(
          ([, , from]) =>
            !entryFiles.has(
              resolve(
                file,
                "..",
                from!.replace(/\.c?js$/, (ext) => (ext === ".cjs" ? ".d.cts" : ".d.ts")),
              ),
            ),
        )
        .flatMap(([, names]) =>
          names!.split(",").map(
            (name) =>
              name
                .trim()
                .split(/\s+as\s+/)
                .at(-1)!,
          ),
        )
        .filter((name) => name && !exported.has(name))
        .map((name) => `${file.slice(DIST.length + 1)}: ${name}`),
    );
    expect(entries.length).toBeGreaterThan(20);
    expect(unnamed).toEqual([]);
  });

  it(skipped("the conformance suites' source map carries their sources"), () => {
    const map = JSON.parse(readFileSync(`${DIST}/testing/index.js.map`, "utf8")) as { sources: string[]; sourcesContent?: string[] };
    expect(map.sources.some((s) => s.endsWith("src/testing/tools-store.ts"))).toBe(true);
    expect(map.sourcesContent?.every((content) => typeof content === "string" && content.length > 0)).toBe(true);
  });
});
