/**
 * `tools-proxy auth` asks for what the toolkit's description says, not for a kind of credential:
 * the chosen way's fields (`--mode`, `--credential`), and on a terminal the inputs still missing,
 * an enum as a numbered choice (in tmux, as a person sees it). Off a terminal nothing is asked and
 * the server's 400 names the input and its values. Skipped, saying why, without a build or tmux.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pickChoice } from "../../src/cli/connect-values.js";
import { BIN, callApi, missingBuild, type ServeProcess, startServe } from "../support/serve-process.js";
import { cliEnv, configHome, runCli } from "./run.js";

const RUN = Math.random().toString(36).slice(2, 10);
const noTmux = spawnSync("tmux", ["-V"]).status === 0 ? null : "tmux is not installed (apt-get install tmux)";
const SOCKET = `tools-proxy-inputs-${process.pid}-${RUN}`;

describe("pickChoice", () => {
  it("takes a number, a value, or the default for an empty answer", () => {
    const values = ["us", "eu", "au"];
    expect(pickChoice(values, "2")).toBe("eu");
    expect(pickChoice(values, " 3 ")).toBe("au");
    expect(pickChoice(values, "eu")).toBe("eu");
    expect(pickChoice(values, "", "us")).toBe("us");
    for (const wrong of ["", "0", "4", "EU", "1.5", "-1"]) expect(pickChoice(values, wrong), wrong).toBeNull();
  });
});

type Connection = { toolkit: string; config: Record<string, string> };

describe.skipIf(missingBuild)(
  missingBuild ? `auth and inputs (skipped: ${missingBuild})` : "auth and inputs, from the toolkit's description",
  () => {
    let serve: ServeProcess;
    let dir: string;
    let env: NodeJS.ProcessEnv;
    const cli = (args: string[], input?: string) => runCli(args, env, input);
    const connections = async () =>
      ((await (await callApi(serve.api, serve.key!, "/connections?toolkit=regional")).json()) as { connections: Connection[] }).connections;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "tools-proxy-inputs-"));
      const regional = {
        slug: "regional",
        name: "Regional",
        description: "An API key in a header or in the query, for one region.",
        baseUrl: "https://{region}.regional.test/v1",
        inputs: [{ name: "region", label: "Data region", type: "enum", values: ["us", "eu", "au"] }],
        auth: [
          { type: "apiKey", in: "header", name: "x-key", label: "Key in a header" },
          { type: "apiKey", mode: "queryKey", in: "query", name: "key", label: "Key in the query" },
        ],
        tools: [],
      };
      writeFileSync(join(dir, "regional.json"), JSON.stringify(regional));
      serve = await startServe(["--memory", "--quiet", "--toolkits", join(dir, "regional.json")]);
      env = cliEnv(configHome(), { SVC_WORKSPACE_API_URL: serve.origin, SVC_WORKSPACE_ID: "local", SVC_WORKSPACE_API_KEY: serve.key! });
    });
    afterAll(async () => {
      await serve?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("toolkit: each way with its --mode and --param, the enum's first value as the example", async () => {
      const shown = await cli(["toolkit", "regional"]);
      expect(shown.status, shown.stderr).toBe(0);
      expect(shown.stdout).toContain("API key (Key in a header): tools-proxy auth regional --param region=us --api-key KEY\n");
      expect(shown.stdout).toContain(
        "API key (Key in the query): tools-proxy auth regional --mode queryKey --param region=us --api-key KEY\n",
      );
      expect(shown.stdout).toMatch(/\ninputs +--param region=\.\.\. \(Data region: one of us, eu, au\)\n/);
    });

    it("off a terminal nothing is asked: the server's 400 names the input and its values", async () => {
      const refused = await cli(["auth", "regional", "--api-key", `k-${RUN}-1`]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('Toolkit "regional" needs --param region=VALUE: Data region (one of: us, eu, au).');
      const wrong = await cli(["auth", "regional", "--api-key", `k-${RUN}-1`, "--param", "region=mars"]);
      expect(wrong.stderr).toContain("--param region is not valid: it must be one of: us, eu, au.");
    });

    it("--mode chooses the way, the key comes from stdin, --param the region", async () => {
      const done = await cli(["auth", "regional", "--mode", "queryKey", "--param", "region=au", "--json"], `k-${RUN}-2\n`);
      expect(done.status, done.stderr).toBe(0);
      expect(JSON.parse(done.stdout).connection.config).toEqual({ region: "au" });
      const unknown = await cli(["auth", "regional", "--mode", "nope", "--param", "region=au"], "k\n");
      expect(unknown.status).toBe(2);
      expect(unknown.stderr).toContain('Regional has no way to connect called "nope": use --mode with one of apiKey, queryKey.');
      const field = await cli(["auth", "regional", "--credential", "secret=x", "--param", "region=au"]);
      expect(field.stderr).toContain('Regional\'s way "apiKey" takes no --credential secret=VALUE; its fields: api key.');
    });

    describe.skipIf(noTmux)(noTmux ? `in a terminal (skipped: ${noTmux})` : "in a terminal (tmux)", () => {
      const tmux = (...args: string[]) => spawnSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" }).stdout;
      const screen = () => tmux("capture-pane", "-p", "-J", "-t", "cli", "-S", "-200");
      async function waitForScreen(predicate: (text: string) => boolean, what: string): Promise<string> {
        for (let i = 0; i < 400; i++) {
          const text = screen();
          if (predicate(text)) return text;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error(`the screen never showed ${what}:\n${screen()}`);
      }

      beforeAll(async () => {
        spawnSync(
          "tmux",
          ["-L", SOCKET, "-f", "/dev/null", "new-session", "-d", "-s", "cli", "-x", "160", "-y", "40", "bash --norc --noprofile"],
          { env: { ...env, HISTFILE: "/dev/null" } },
        );
        await waitForScreen((text) => /[$#] $/m.test(text), "a shell prompt");
      });
      afterAll(() => {
        spawnSync("tmux", ["-L", SOCKET, "kill-server"]);
      });

      it("asks for the enum as a numbered choice, asks again after a wrong answer, then connects with the value chosen", async () => {
        const before = (await connections()).length;
        tmux("send-keys", "-t", "cli", "-l", `node ${BIN} auth regional --api-key k-${RUN}-3`);
        tmux("send-keys", "-t", "cli", "Enter");
        await waitForScreen((text) => text.includes("Choose 1-3: "), "the choice");
        expect(screen()).toContain("Data region:\n  1. us\n  2. eu\n  3. au\n");
        tmux("send-keys", "-t", "cli", "-l", "7");
        tmux("send-keys", "-t", "cli", "Enter");
        await waitForScreen((text) => text.includes("Type a number from 1 to 3, or one of: us, eu, au."), "the second ask");
        tmux("send-keys", "-t", "cli", "-l", "2");
        tmux("send-keys", "-t", "cli", "Enter");
        await waitForScreen((text) => text.includes("Connected regional: conn_"), "the connection");
        const made = await connections();
        expect(made.length).toBe(before + 1);
        expect(made.some((c) => c.config.region === "eu")).toBe(true);
      });
    });
  },
);
