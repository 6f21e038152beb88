/**
 * The command-line walk-through (docs/guide/command-line.md), run as written: every line of the
 * page's `sh` blocks, top to bottom, against a fresh `serve`, each one exiting 0. Ids the page
 * shows (conn_..., stg_...) are replaced by the ones the earlier commands printed, and the page's
 * 127.0.0.1:8787 by the test server's address, as a reader would do; nothing else is changed.
 * `npx tools-proxy` is this clone's bin (one real npx run checks that it resolves to it).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, missingBuild, type ServeProcess, startServe } from "../support/serve-process.js";
import { cliEnv, configHome } from "./run.js";

const ROOT = join(import.meta.dirname, "..", "..");
const PAGE = "docs/guide/command-line.md";
const page = readFileSync(join(ROOT, PAGE), "utf8");

/** The page's shell commands, in order: `\`-continued lines joined, blank lines and comments left out. */
const commands = [...page.matchAll(/^```sh\n([\s\S]*?)^```/gm)]
  .flatMap(([, block]) => block!.replace(/\\\n\s*/g, " ").split("\n"))
  .filter((line) => line.trim() !== "" && !line.trim().startsWith("#"));

const CONNECTION = /conn_[A-Za-z0-9_-]{22}/g;
const STAGING_KEY = /stg_[A-Za-z0-9_-]{43}/g;

describe.skipIf(missingBuild)(
  missingBuild ? `${PAGE}'s commands (skipped: ${missingBuild})` : `${PAGE}, every command run as written`,
  () => {
    const work = mkdtempSync(join(tmpdir(), "tools-proxy-cli-page-"));
    let serve: ServeProcess;
    let env: NodeJS.ProcessEnv;
    beforeAll(async () => {
      // As `npx tools-proxy serve` starts it: npm sets npm_command.
      serve = await startServe(["--memory"], { npm_command: "exec" });
      // `npx tools-proxy ...` as it resolves in a clone: this build's bin (checked for real below).
      const shims = join(work, "bin");
      mkdirSync(shims);
      writeFileSync(
        join(shims, "npx"),
        `#!/bin/sh\n[ "$1" = tools-proxy ] || { echo "this test's npx runs only tools-proxy" >&2; exit 127; }\nshift\nexec '${process.execPath}' '${BIN}' "$@"\n`,
      );
      chmodSync(join(shims, "npx"), 0o755);
      env = cliEnv(configHome(), { KEY: serve.key!, PATH: `${shims}${delimiter}${process.env.PATH}` });
    });
    afterAll(async () => {
      await serve?.stop();
      rmSync(work, { recursive: true, force: true });
    });

    it("writes every tools-proxy command as npx tools-proxy, which works in a clone", () => {
      expect(commands.length).toBeGreaterThan(10);
      for (const line of commands) expect(line, line).not.toMatch(/(^|[|;&(]\s*)tools-proxy\b/);
      const npx = spawnSync("npx", ["--offline", "tools-proxy", "--version"], {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 60_000,
        env: { ...process.env, npm_config_cache: join(work, "npm-cache") },
      });
      expect(npx.stdout, npx.stderr).toBe(`${JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version}\n`);
    }, 90_000);

    it("serve's banner, started by npm, says how to run the commands: npx tools-proxy", () => {
      expect(serve.stdout()).toContain(`sign in from the command line: npx tools-proxy login --url ${serve.origin} --workspace local`);
    });

    it("runs every command of the page, top to bottom, each exiting 0", () => {
      const ran: string[] = [];
      let connection = "";
      let stagingKey = "";
      for (const line of commands) {
        const command = line
          .replaceAll("http://127.0.0.1:8787", serve.origin)
          .replace(CONNECTION, connection)
          .replace(STAGING_KEY, stagingKey);
        // The first login reads the key from stdin, as a prompt would.
        const result = spawnSync("bash", ["-c", command], { cwd: work, env, input: `${serve.key}\n`, encoding: "utf8", timeout: 30_000 });
        expect(result.status, `${command}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(0);
        const printed = result.stdout + result.stderr;
        connection = printed.match(CONNECTION)?.at(-1) ?? connection;
        stagingKey = printed.match(STAGING_KEY)?.at(-1) ?? stagingKey;
        ran.push(/npx tools-proxy (\w+(?: (?:search|delete))?)/.exec(command)?.[1] ?? "shell");
      }
      expect(new Set(ran)).toEqual(
        new Set([
          "login",
          "search",
          "toolkit",
          "toolkit search",
          "auth",
          "connections",
          "execute",
          "shell",
          "upload",
          "files",
          "proxy",
          "connections delete",
        ]),
      );
      expect(readFileSync(join(work, "copy.txt"), "utf8")).toBe("hello tools proxy\nsecond line here\n");
    }, 180_000); // some twenty processes, one after the other, on a machine that may be busy

    it("an error names the CLI's flags and commands, not the HTTP fields, and keeps the server's sentence", () => {
      const run = (command: string) => spawnSync("bash", ["-c", command], { cwd: work, env, encoding: "utf8", timeout: 30_000 });
      expect(
        run("npx tools-proxy auth demo --api-key demo-key --label Work && npx tools-proxy auth demo --api-key demo-key --label Home")
          .status,
      ).toBe(0);
      const ambiguous = run("npx tools-proxy execute DEMO_LIST_NOTES");
      expect(ambiguous.status).toBe(1);
      expect(ambiguous.stderr).toMatch(
        /^tools-proxy: the server answered 409 connection_ambiguous: Several active connections to "demo": conn_\S+ \("Work"\), conn_\S+ \("Home"\)\. Pass --connection ID to choose one\.\n$/,
      );
      const ids = JSON.parse(run("npx tools-proxy connections --json").stdout).connections.map((c: { id: string }) => c.id);
      expect(run(`npx tools-proxy connections delete ${ids.join(" ")}`).status).toBe(0);
      const none = run("npx tools-proxy execute DEMO_LIST_NOTES");
      expect(none.stderr).toBe(
        'tools-proxy: the server answered 409 connection_required: No active connection to "demo". Connect it first with "tools-proxy auth demo".\n',
      );
    }, 60_000);

    it("npm run serve builds quietly, so the key serve prints once is the last thing on screen", () => {
      expect(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts.serve).toMatch(
        /^node scripts\/build\.mjs --if-stale --silent && node dist\/cli\/main\.js serve$/,
      );
    });
  },
);
