/**
 * A clone's npm scripts, as a newcomer runs them: `npm run serve` with nothing changed since the
 * last build starts the built server at once (scripts/build.mjs --if-stale compares a hash of the
 * build's inputs with dist/.build-stamp) and its banner, under the npm that runs it, says
 * "npx tools-proxy"; `npm pack` packs the build (a `prepack` that builds when stale). The
 * staleness rule itself is checked on a small tree of its own, so that no test edits the sources.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { inputsHash, isStale, STAMP } from "../../scripts/build.mjs";
import { commandName } from "../../src/cli/usage.js";
import { missingBuild } from "../support/serve-process.js";

const ROOT = join(import.meta.dirname, "..", "..");
const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
const BIN = join(ROOT, "dist", "cli", "main.js");
/** Why the tests on the real tree skip: no build, or one older than the sources (then `npm run serve` would build for minutes). */
const notBuilt = missingBuild ?? (isStale(ROOT) ? "dist/ was built from other sources than these: run `npm run build` first" : null);

describe("the build stamp: scripts/build.mjs --if-stale builds only when an input changed", () => {
  const tree = mkdtempSync(join(tmpdir(), "tools-proxy-stamp-"));
  afterAll(() => rmSync(tree, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  };
  const stamp = () => write(STAMP, `${inputsHash(tree)}\n`);

  it("is stale without a stamp, fresh after one, and stale again after each kind of change", () => {
    write("src/index.ts", "export const a = 1;\n");
    write("src/cli/main.ts", "console.log(1);\n");
    write("tsup.config.ts", "export default {};\n");
    write("package.json", "{}\n");
    write("README.md", "# not an input\n");
    expect(isStale(tree)).toBe(true);
    stamp();
    expect(isStale(tree)).toBe(false);

    // A checkout or a copy changes times, not contents: no rebuild.
    utimesSync(join(tree, "src/index.ts"), new Date(), new Date(Date.now() + 60_000));
    expect(isStale(tree)).toBe(false);
    // Neither does a file the build does not read.
    write("README.md", "# changed\n");
    expect(isStale(tree)).toBe(false);

    const changes: Array<[string, () => void]> = [
      ["an edited source", () => write("src/index.ts", "export const a = 2;\n")],
      ["a new source in a subfolder", () => write("src/cli/commands/new.ts", "export {};\n")],
      ["a renamed source", () => renameSync(join(tree, "src/cli/main.ts"), join(tree, "src/cli/start.ts"))],
      ["a new adapter", () => write("adapters/node.ts", "export {};\n")],
      ["the build's configuration", () => write("tsup.config.ts", "export default { dts: true };\n")],
      ["package.json", () => write("package.json", '{ "version": "2.0.0" }\n')],
      ["the lockfile", () => write("package-lock.json", "{}\n")],
    ];
    for (const [what, change] of changes) {
      change();
      expect(isStale(tree), what).toBe(true);
      stamp();
      expect(isStale(tree), `${what}, once built`).toBe(false);
    }
  });
});

describe("npm scripts of a clone", () => {
  it("serve and prepack build only when stale; build always does, and writes the stamp that the package leaves out", () => {
    expect(scripts.serve).toBe("node scripts/build.mjs --if-stale --silent && node dist/cli/main.js serve");
    expect(scripts.prepack).toBe("node scripts/build.mjs --if-stale");
    expect(scripts.build).toBe("node scripts/build.mjs");
    // No script rebuilds unconditionally on its way to something else.
    expect(Object.entries(scripts).filter(([, command]) => /(^|&& )tsup\b/.test(command))).toEqual([]);
    expect(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).files).toContain(`!${STAMP}`);
  });

  it('suggests "npx tools-proxy" whenever npm started the process, whatever npm calls its command', () => {
    for (const npmCommand of ["run", "run-script", "exec", "start", "test"]) {
      expect(commandName({ npm_command: npmCommand }), npmCommand).toBe("npx tools-proxy");
    }
    expect(commandName({})).toBe("tools-proxy");
    expect(commandName({ npm_command: "" })).toBe("tools-proxy");
  });
});

describe.skipIf(notBuilt !== null)(notBuilt ? `npm run serve and npm pack (skipped: ${notBuilt})` : "npm run serve and npm pack", () => {
  it("npm run serve with nothing changed starts the built server without building, and its banner says npx tools-proxy", async () => {
    const built = statSync(BIN).mtimeMs;
    // Its own process group, so that stopping it stops npm's shell and the server too.
    const child = spawn("npm", ["run", "serve", "--", "--memory", "--port", "0", "--quiet"], {
      cwd: ROOT,
      detached: true,
      env: { ...process.env, TOOLS_PROXY_SECRET: "", npm_command: "", npm_lifecycle_event: "" },
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", () => out.includes("Press Ctrl+C") && resolve());
        void exited.then(() => reject(new Error(`npm run serve exited.\nstdout: ${out}\nstderr: ${err}`)));
      });
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGTERM");
      await exited;
    }
    expect(statSync(BIN).mtimeMs, "dist/cli/main.js was not rebuilt").toBe(built);
    expect(err).not.toMatch(/plugin dts|warning/i);
    const origin = /listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(out)![1]!;
    expect(out).toContain(`sign in from the command line: npx tools-proxy login --url ${origin} --workspace local`);
  }, 120_000);

  it("npm pack packs the build: every entry of package.json, and not the stamp", () => {
    const built = statSync(BIN).mtimeMs;
    const pack = spawnSync("npm", ["pack", "--dry-run", "--json"], { cwd: ROOT, encoding: "utf8", timeout: 110_000 });
    expect(pack.status, pack.stderr).toBe(0);
    const [packed] = JSON.parse(pack.stdout) as Array<{ size: number; unpackedSize: number; files: Array<{ path: string }> }>;
    const files = new Set(packed!.files.map((file) => file.path));
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    const entries = [
      pkg.main,
      pkg.module,
      pkg.types,
      pkg.bin["tools-proxy"],
      ...JSON.stringify(pkg.exports).matchAll(/"\.\/(dist\/[^"]+)"/g),
    ];
    for (const entry of entries.map((e) => (typeof e === "string" ? e : e[1]!).replace(/^\.\//, ""))) {
      expect(files.has(entry), entry).toBe(true);
    }
    expect(files.has(STAMP)).toBe(false);
    expect(packed!.unpackedSize).toBeGreaterThan(1_000_000); // the clone packed 5 kB: a README and package.json
    expect(statSync(BIN).mtimeMs, "the build was up to date: prepack did not rebuild").toBe(built);
  }, 120_000);
});
