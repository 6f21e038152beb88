// Builds dist/: empties it, runs tsup, gives the shared declaration chunks stable names
// (stable-dts-names.mjs), then writes dist/.build-stamp, a hash of every file the build reads.
//
//   node scripts/build.mjs                        always builds (npm run build)
//   node scripts/build.mjs --if-stale [--silent]  builds only when the stamp differs from the files
//                                                 (npm run serve, prepack, the benches)
//
// A hash rather than modification times: a checkout, a stash or a copy changes times without
// changing the files, and a build takes 40 s. Hashing the inputs takes a few milliseconds.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The folders and files the build reads, relative to the repository root. */
export const BUILD_INPUTS = [
  "src",
  "adapters",
  "tsup.config.ts",
  "tsconfig.json",
  "package.json",
  "package-lock.json",
  "scripts/build.mjs",
  "scripts/stable-dts-names.mjs",
];

/** Where the hash of the last successful build's inputs is kept; `files` in package.json leaves it out of the package. */
export const STAMP = "dist/.build-stamp";

/** A SHA-256 of the paths and contents of every build input under `root`. */
export function inputsHash(root) {
  const hash = createHash("sha256");
  for (const input of BUILD_INPUTS) {
    const full = join(root, input);
    if (!existsSync(full)) continue;
    let files;
    try {
      files = readdirSync(full, { withFileTypes: true, recursive: true })
        .filter((entry) => entry.isFile())
        .map((entry) => relative(root, join(entry.parentPath, entry.name)).split("\\").join("/"))
        .sort();
    } catch {
      files = [input]; // a file, not a folder
    }
    for (const file of files) {
      hash.update(`${file}\0`);
      hash.update(readFileSync(join(root, file)));
      hash.update("\0");
    }
  }
  return hash.digest("hex");
}

/** True when `root`'s dist/ was not built from the files as they are now (or was never built). */
export function isStale(root) {
  const stamp = join(root, STAMP);
  return !existsSync(stamp) || readFileSync(stamp, "utf8").trim() !== inputsHash(root);
}

function run(command, args, options) {
  const result = spawnSync(command, args, options);
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function build(root, silent) {
  const hash = inputsHash(root); // before the build: a file edited during it makes the next start rebuild
  rmSync(join(root, "dist"), { recursive: true, force: true });
  const tsupPackage = createRequire(join(root, "package.json")).resolve("tsup/package.json");
  const bin = JSON.parse(readFileSync(tsupPackage, "utf8")).bin.tsup;
  run(process.execPath, [join(dirname(tsupPackage), bin), ...(silent ? ["--silent"] : [])], { cwd: root, stdio: "inherit" });
  run(process.execPath, [join(root, "scripts/stable-dts-names.mjs")], {
    cwd: root,
    stdio: ["ignore", silent ? "ignore" : "inherit", "inherit"],
  });
  dropGeneratedSources(join(root, "dist"));
  writeFileSync(join(root, STAMP), `${hash}\n`);
}

/**
 * Sources whose text the source maps leave out: the catalog's generated tools, its provider data
 * files and its icons, megabytes of data that a debugger never steps through.
 */
const GENERATED_SOURCE = /(^|\/)src\/catalog\/(generated\/(tools\/[^/]+|summaries)\.ts|providers\/[^/]+\.json|icons\.generated\.ts)$/;

/**
 * Empties the `sourcesContent` of generated sources in every source map of `dist` (`null`, as the
 * spec allows): without it each map would carry a copy of the data its chunk already holds, once
 * per format, and the package would be megabytes larger. Mappings stay, so stack traces still
 * point at the file.
 */
export function dropGeneratedSources(dist) {
  for (const entry of readdirSync(dist, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".map")) continue;
    const file = join(entry.parentPath, entry.name);
    const map = JSON.parse(readFileSync(file, "utf8"));
    if (!Array.isArray(map.sources) || !Array.isArray(map.sourcesContent)) continue;
    let changed = false;
    map.sources.forEach((source, index) => {
      if (GENERATED_SOURCE.test(source) && map.sourcesContent[index] !== null) {
        map.sourcesContent[index] = null;
        changed = true;
      }
    });
    if (changed) writeFileSync(file, JSON.stringify(map));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const args = process.argv.slice(2);
  const silent = args.includes("--silent");
  if (!args.includes("--if-stale") || isStale(root)) build(root, silent);
  else if (!silent) console.error("build: dist/ is up to date with its sources (dist/.build-stamp); not rebuilt");
}
