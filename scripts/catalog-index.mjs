// Writes src/catalog/providers/index.ts: an import of every provider data file in the directory,
// in slug order. Run it (`npm run catalog:index`) after adding or removing a provider file;
// test/catalog/providers.test.ts fails when the list and the directory differ.
import { readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const directory = join(dirname(fileURLToPath(import.meta.url)), "../src/catalog/providers");
const slugs = readdirSync(directory)
  .filter((name) => name.endsWith(".json"))
  .map((name) => name.slice(0, -".json".length))
  .sort();
/** `google-sheets` as `googleSheets`; a slug starting with a digit gets a leading `_`. */
const identifier = (slug) => slug.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase()).replace(/^(\d)/, "_$1");

const lines = [
  "// Every provider data file, in slug order. Written by scripts/catalog-index.mjs (npm run catalog:index);",
  "// test/catalog/providers.test.ts checks this list against the directory.",
  ...slugs.map((slug) => `import ${identifier(slug)} from "./${slug}.json" with { type: "json" };`),
  "",
  "export const providerFiles: unknown[] = [",
  ...slugs.map((slug) => `  ${identifier(slug)},`),
  "];",
  "",
];
writeFileSync(join(directory, "index.ts"), lines.join("\n"));
console.log(`src/catalog/providers/index.ts lists ${slugs.length} providers.`);
