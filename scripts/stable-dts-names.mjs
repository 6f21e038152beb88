// After tsup: gives the declaration chunks that several entries share a stable name, `name.d.ts`
// for `name-HASH.d.ts` (and .d.cts), and rewrites the imports of every declaration file, so that an
// editor's "go to definition" lands on a file a reader can find. Fails on two chunks of one name.
import { readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const DIST = "dist";
const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
const declarations = files(DIST).filter((f) => /\.d\.c?ts$/.test(f));
const hashed = /^(.*\/)?([a-z][\w-]*?)-[A-Za-z0-9_-]{8}(\.d\.c?ts)$/;

const renames = new Map();
for (const file of declarations) {
  const match = hashed.exec(file);
  if (!match) continue;
  const target = `${match[1] ?? ""}${match[2]}${match[3]}`;
  if (declarations.includes(target) || [...renames.values()].includes(target)) {
    console.error(
      `stable-dts-names: ${file} and another declaration file would both be ${target}; make one of the modules an entry in tsup.config.ts.`,
    );
    process.exit(1);
  }
  renames.set(file, target);
}
for (const [from, to] of renames) renameSync(from, to);
const current = declarations.map((f) => renames.get(f) ?? f);
for (const file of current) {
  let text = readFileSync(file, "utf8");
  for (const [from, to] of renames) {
    // Imports name the chunk by its .js (or .cjs) path, relative to the importing file.
    const jsPath = (path) => path.replace(/\.d\.ts$/, ".js").replace(/\.d\.cts$/, ".cjs");
    let spec = relative(join(file, ".."), jsPath(from));
    if (!spec.startsWith(".")) spec = `./${spec}`;
    let next = relative(join(file, ".."), jsPath(to));
    if (!next.startsWith(".")) next = `./${next}`;
    text = text.split(`'${spec}'`).join(`'${next}'`);
  }
  writeFileSync(file, text);
}
console.log(`stable-dts-names: ${renames.size} declaration chunk(s) renamed`);
