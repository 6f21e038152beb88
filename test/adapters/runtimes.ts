/**
 * The runtimes the adapter tests start apps in, all installed by `npm install` from the dev
 * dependencies: Node 24 (`node`), Node 22 (the local package `node22`, which keeps its `node` bin
 * to itself), Bun (`bun`) and Deno (`deno`). A runtime that is missing or does not run is reported
 * with the reason, so its tests skip saying why.
 */
import { execFileSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface Runtime {
  name: string;
  /** Absolute path of the executable, or null when it is missing. */
  path: string | null;
  /** What `--version` printed, or why the runtime cannot be used. */
  version: string;
  /** Why the tests that need it skip; null when it runs. */
  missing: string | null;
}

function probe(name: string, relative: string, expect: RegExp, install: string): Runtime {
  const candidate = `${ROOT}${relative}`;
  if (!existsSync(candidate)) return { name, path: null, version: "", missing: `${name} is not installed at ${relative} (${install})` };
  const path = realpathSync(candidate);
  try {
    const version = execFileSync(path, ["--version"], { encoding: "utf8", timeout: 20_000 }).trim().split("\n")[0]!;
    if (!expect.test(version)) return { name, path: null, version, missing: `${relative} is ${version}, not ${name}` };
    return { name, path, version, missing: null };
  } catch (error) {
    return { name, path: null, version: "", missing: `${relative} does not run: ${(error as Error).message.split("\n")[0]}` };
  }
}

export const node24 = probe("Node 24", "node_modules/node/bin/node", /^v24\./, "npm install");
export const node22 = probe("Node 22", "node_modules/node22/node_modules/node/bin/node", /^v22\./, "npm install");
export const bun = probe(
  "Bun",
  "node_modules/bun/bin/bun.exe",
  /^1\.\d+/,
  "npm install: the bun package's postinstall puts the binary there",
);
export const deno = probe(
  "Deno",
  "node_modules/deno/deno",
  /^deno 2\./,
  "npm install: the deno package's postinstall puts the binary there",
);

/** The Node versions every Node-based adapter runs on. */
export const nodes = [node24, node22];

/** Fails with a clear message when the package is not built (the examples import it from dist/). */
export function requireDist(): void {
  for (const file of [
    "dist/index.js",
    "dist/index.cjs",
    "dist/adapters/node.js",
    "dist/adapters/express.js",
    "dist/adapters/next.js",
    "dist/adapters/bun.js",
    "dist/adapters/fastify.js",
  ]) {
    if (!existsSync(`${ROOT}${file}`)) throw new Error(`${file} is missing: run \`npm run build\` first (npm test does).`);
  }
}
