// Loads every subpath export of tools-proxy by its public name, as an app would, in the runtime
// that runs this file, and prints what each one exports as JSON: `{ "<subpath>": { esm, cjs } }`,
// each a sorted list of export names or `{ error }`. With the argument `esm`, CommonJS is skipped.
// Run from inside the package folder, where "tools-proxy" resolves to the package itself.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
const withCjs = process.argv[2] !== "esm";

const describe = (module) =>
  Object.keys(module)
    .filter((name) => name !== "default" && name !== "module.exports" && module[name] !== undefined)
    .sort();
const failure = (error) => ({ error: String(error?.message ?? error).split("\n")[0] });

const result = {};
for (const subpath of Object.keys(manifest.exports)) {
  if (subpath.endsWith(".json")) continue;
  const specifier = subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
  const entry = {};
  try {
    entry.esm = describe(await import(specifier));
  } catch (error) {
    entry.esm = failure(error);
  }
  if (withCjs) {
    try {
      entry.cjs = describe(require(specifier));
    } catch (error) {
      entry.cjs = failure(error);
    }
  }
  result[subpath] = entry;
}
console.log(JSON.stringify(result));
