/**
 * The command line's own surface, through the built bin: `--help` on every command, with an
 * example; the exit codes in the tool's help; usage errors (exit 2) on stderr; colours only when
 * asked for (a terminal, or FORCE_COLOR) and never with NO_COLOR.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { missingBuild, startServe } from "../support/serve-process.js";
import { cliEnv, configHome, runCli } from "./run.js";

const COMMANDS = [
  "login",
  "logout",
  "whoami",
  "search",
  "toolkit",
  "toolkit show",
  "toolkit search",
  "auth",
  "auth start",
  "auth status",
  "connections",
  "connections list",
  "connections delete",
  "execute",
  "proxy",
  "upload",
  "files",
  "serve",
  "keys",
  "keys create",
  "keys list",
  "keys revoke",
  "migrate",
];

describe.skipIf(missingBuild)(
  missingBuild ? `help and usage (skipped: ${missingBuild})` : "tools-proxy help, usage errors and colours",
  () => {
    let env: NodeJS.ProcessEnv;
    beforeAll(() => {
      env = cliEnv(configHome());
    });

    it("--help on every command exits 0 with its usage line and an example", async () => {
      for (const command of COMMANDS) {
        const result = await runCli([...command.split(" "), "--help"], env);
        expect(result.status, command).toBe(0);
        expect(result.stdout, command).toContain(`Usage: tools-proxy ${command} `);
        expect(result.stdout, command).toMatch(/\nExamples?:\n {2}(\S+=\S+ )?tools-proxy /);
        expect(result.stderr, command).toBe("");
      }
    });

    it("the tool's help lists every command, the environment variables, the credentials file and the exit codes", async () => {
      const { stdout } = await runCli(["--help"], env);
      for (const command of [
        "login",
        "logout",
        "whoami",
        "search",
        "toolkit",
        "auth",
        "connections",
        "execute",
        "proxy",
        "upload",
        "files",
        "serve",
        "keys",
        "migrate",
      ]) {
        expect(stdout).toMatch(new RegExp(`^ {2}${command}\\b`, "m"));
      }
      for (const text of [
        "SVC_WORKSPACE_API_URL",
        "SVC_WORKSPACE_ID",
        "SVC_WORKSPACE_API_KEY",
        "SVC_WORKSPACE_AGENT_ID",
        "$XDG_CONFIG_HOME/tools-proxy/credentials.json",
        "Exit codes:",
        "  3    not signed in",
        "  5    server unreachable",
        "  6    a workspace service key needs an agent",
      ]) {
        expect(stdout).toContain(text);
      }
      const { version } = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8"));
      expect((await runCli(["--version"], env)).stdout).toBe(`${version}\n`);
    });

    it("usage errors exit 2 on stderr, naming the help to read", async () => {
      const cases: Array<[string[], string]> = [
        [["serch"], 'unknown command "serch" (did you mean search?)\nRun "tools-proxy --help" for usage.'],
        [["search", "--bogus"], 'unknown option "--bogus".\nRun "tools-proxy search --help" for usage.'],
        [["execute"], 'missing required argument "tool".\nRun "tools-proxy execute --help" for usage.'],
        [["toolkit", "search"], 'missing required argument "toolkit".\nRun "tools-proxy toolkit search --help" for usage.'],
        [["files", "a", "b"], 'too many arguments for "files". Expected 1 argument but got 2.\nRun "tools-proxy files --help" for usage.'],
        [
          ["auth", "x", "--interval", "5"],
          '--interval must be a whole number from 100 to 60000, not "5".\nRun "tools-proxy auth start --help" for usage.',
        ],
      ];
      for (const [args, message] of cases) {
        const result = await runCli(args, env);
        expect(result.status, args.join(" ")).toBe(2);
        expect(result.stderr).toBe(`tools-proxy: ${message}\n`);
        expect(result.stdout).toBe("");
      }
    });

    it("colours: none off a terminal, on with FORCE_COLOR=1, and never with NO_COLOR", async () => {
      const serve = await startServe(["--memory"]);
      try {
        const signedIn = { SVC_WORKSPACE_API_URL: serve.origin, SVC_WORKSPACE_API_KEY: serve.key! };
        const plain = await runCli(["search"], cliEnv(configHome(), signedIn));
        expect(plain.stdout).toMatch(/^TOOLKIT {2}NAME/);
        const forced = await runCli(["search"], cliEnv(configHome(), { ...signedIn, FORCE_COLOR: "1" }));
        expect(forced.stdout).toMatch(/^\u001b\[1mTOOLKIT {2}NAME/);
        const refused = await runCli(["search"], cliEnv(configHome(), { ...signedIn, FORCE_COLOR: "1", NO_COLOR: "1" }));
        expect(refused.stdout).toBe(plain.stdout);
        const error = await runCli(["toolkit", "nope"], cliEnv(configHome(), { ...signedIn, FORCE_COLOR: "1" }));
        expect(error.stderr).toMatch(/^\u001b\[31mtools-proxy:\u001b\[39m the server answered 404/);
      } finally {
        await serve.stop();
      }
    });
  },
);
