/**
 * `login`, `logout`, `whoami` and the credentials they use, through the built bin against a real
 * `serve` process: the key from stdin or --key, checked before it is saved; the file's mode and
 * atomic replacement; a wrong key and a server that is down; each SVC_WORKSPACE_* variable
 * overriding its own field; and no key in any output.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingBuild, runBin, type ServeProcess, startServe } from "../support/serve-process.js";
import { type CliResult, cliEnv, configHome, runCli } from "./run.js";

const hint = (key: string) => `${key.slice(0, 4)}…${key.slice(-4)}`;
const credentialsFile = (home: string) => join(home, "tools-proxy", "credentials.json");

/** The URL of a port nothing listens on. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

describe.skipIf(missingBuild)(
  missingBuild ? `login and credentials (skipped: ${missingBuild})` : "login, logout, whoami and the credentials file",
  () => {
    let dataDir: string;
    let serve: ServeProcess;
    let key: string;
    let secondKey: string;
    let downUrl: string;
    const outputs: CliResult[] = [];
    const run = async (args: string[], env: NodeJS.ProcessEnv, input?: string) => {
      const result = await runCli(args, env, input);
      outputs.push(result);
      return result;
    };
    const login = (home: string, input?: string, ...extra: string[]) =>
      run(["login", "--url", serve.origin, "--workspace", "local", ...extra], cliEnv(home), input);

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), "tools-proxy-login-"));
      serve = await startServe(["--data-dir", dataDir]);
      key = serve.key!;
      const created = runBin(["keys", "create", "--workspace", "local", "--agent", "second", "--data-dir", dataDir]);
      expect(created.status, created.stderr).toBe(0);
      secondKey = created.stdout.trim();
      downUrl = await closedPortUrl();
    });

    afterAll(async () => {
      await serve?.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it("reads the key from stdin, checks it, and saves URL, workspace and key: file 0600 in a 0700 directory", async () => {
      const home = configHome();
      const result = await login(home, `${key}\n`);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stderr).toContain(`Signed in to ${serve.api} (workspace "local", key ${hint(key)})`);
      expect(JSON.parse(readFileSync(credentialsFile(home), "utf8"))).toEqual({ url: serve.api, workspace: "local", apiKey: key });
      expect(statSync(credentialsFile(home)).mode & 0o777).toBe(0o600);
      expect(statSync(join(home, "tools-proxy")).mode & 0o777).toBe(0o700);
    });

    it("--key over an existing file replaces it by a rename (a new inode), leaving no temporary file", async () => {
      const home = configHome();
      expect((await login(home, key)).status).toBe(0);
      const before = statSync(credentialsFile(home)).ino;
      const result = await run(["login", "--url", `${serve.api}/`, "--workspace", "second-ws", "--key", secondKey, "--json"], cliEnv(home));
      expect(result.status, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        url: serve.api,
        workspace: "second-ws",
        key: hint(secondKey),
        file: credentialsFile(home),
      });
      expect(JSON.parse(readFileSync(credentialsFile(home), "utf8"))).toEqual({
        url: serve.api,
        workspace: "second-ws",
        apiKey: secondKey,
      });
      expect(statSync(credentialsFile(home)).ino).not.toBe(before);
      expect(statSync(credentialsFile(home)).mode & 0o777).toBe(0o600);
      expect(readdirSync(join(home, "tools-proxy"))).toEqual(["credentials.json"]);
    });

    it("a reader never sees a partial file while logins replace it", async () => {
      const home = configHome();
      expect((await login(home, key)).status).toBe(0);
      let reads = 0;
      let reading = true;
      const seen = new Set<string>();
      const reader = (async () => {
        while (reading) {
          seen.add(JSON.parse(readFileSync(credentialsFile(home), "utf8")).apiKey); // throws on a partial file
          reads++;
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      for (let i = 0; i < 6; i++) expect((await login(home, undefined, "--key", i % 2 ? key : secondKey)).status).toBe(0);
      reading = false;
      await reader;
      expect(reads).toBeGreaterThan(10);
      expect(seen).toEqual(new Set([key, secondKey]));
    });

    it("a wrong key exits 3 with the server's reason, and writes nothing (an existing file is kept)", async () => {
      const fresh = configHome();
      const wrong = `pak_${"A".repeat(43)}`;
      const result = await login(fresh, undefined, "--key", wrong);
      expect(result.status).toBe(3);
      expect(result.stderr).toMatch(/^tools-proxy: the server refused this API key: Invalid API key.* Nothing was saved\.\n$/);
      expect(existsSync(join(fresh, "tools-proxy"))).toBe(false);
      expect(result.stderr + result.stdout).not.toContain(wrong);

      const home = configHome();
      expect((await login(home, key)).status).toBe(0);
      const saved = readFileSync(credentialsFile(home), "utf8");
      expect((await login(home, `${wrong}\n`)).status).toBe(3);
      expect(readFileSync(credentialsFile(home), "utf8")).toBe(saved);
    });

    it("a string that is not shaped like a key is refused before the server is asked (exit 2), saying what a key looks like", async () => {
      const home = configHome();
      for (const [text, url] of [
        ["a", serve.origin],
        [key.slice(0, 30), downUrl],
        [`pak_${"A".repeat(44)}`, serve.origin],
      ] as const) {
        const result = await run(["login", "--url", url, "--workspace", "w"], cliEnv(home), `${text}\n`);
        expect(result.status, text).toBe(2); // not 5: the server that is down was not contacted
        expect(result.stderr).toBe(
          `tools-proxy: this is not an API key: a key is pak_ (an agent key) or psk_ (a workspace service key) followed by 43 letters, digits, "-" or "_", 47 characters in all (this has ${text.length}). Copy it again from where it was printed (serve, or keys create). Nothing was saved.\nRun "tools-proxy login --help" for usage.\n`,
        );
      }
      expect(existsSync(credentialsFile(home))).toBe(false);
    });

    it("a short wrong key in the environment: the server's sentence is printed whole, not garbled by redaction", async () => {
      const result = await run(["search"], cliEnv(configHome(), { SVC_WORKSPACE_API_URL: serve.origin, SVC_WORKSPACE_API_KEY: "a" }));
      expect(result.status).toBe(3);
      expect(result.stderr).toBe(
        "tools-proxy: the server answered 401 unauthorized: Invalid API key. Check that the key is complete and has not been revoked.\n",
      );
    });

    it("a server that is down exits 5 and writes nothing", async () => {
      const home = configHome();
      const result = await run(["login", "--url", downUrl, "--workspace", "local"], cliEnv(home), key);
      expect(result.status).toBe(5);
      expect(result.stderr).toMatch(/Could not reach the Tools API at http:\/\/127\.0\.0\.1:\d+\/proxy\/tools\/search \(ECONNREFUSED\)/);
      expect(existsSync(credentialsFile(home))).toBe(false);
    });

    it("a missing --url or --workspace, an empty stdin, or a URL that is not http(s) is a usage error (exit 2)", async () => {
      const home = configHome();
      const cases: Array<[string[], string | undefined, RegExp]> = [
        [["login", "--workspace", "local", "--key", key], undefined, /--url is required/],
        [["login", "--url", serve.origin, "--key", key], undefined, /--workspace is required/],
        [["login", "--url", serve.origin, "--workspace", "local"], "", /the API key is empty: pipe it on stdin/],
        [["login", "--url", "ftp://host", "--workspace", "local", "--key", key], undefined, /--url must be an http/],
      ];
      for (const [args, input, message] of cases) {
        const result = await run(args, cliEnv(home), input);
        expect(result.status, args.join(" ")).toBe(2);
        expect(result.stderr).toMatch(message);
      }
      expect(existsSync(credentialsFile(home))).toBe(false);
    });

    it("a key in the URL variable, or a --key with a space or line break, is a usage error that does not print the key", async () => {
      const home = configHome();
      const swapped = await run(
        ["search"],
        cliEnv(home, { SVC_WORKSPACE_API_URL: key, SVC_WORKSPACE_ID: "local", SVC_WORKSPACE_API_KEY: key }),
      );
      expect(swapped.status).toBe(2);
      expect(swapped.stderr).toMatch(/must be the server's URL.*looks like an API key/);
      const broken = await run(
        ["login", "--url", serve.origin, "--workspace", "local", "--key", `${key.slice(0, 20)} ${key.slice(20)}`],
        cliEnv(home),
      );
      expect(broken.status).toBe(2);
      expect(broken.stderr).toMatch(/only visible ASCII/);
      for (const result of [swapped, broken]) expect(result.stdout + result.stderr).not.toContain(key.slice(4, 24));
      expect(existsSync(credentialsFile(home))).toBe(false);
    });

    it("whoami shows the URL, workspace and key hint with their sources, and that the server accepts the key", async () => {
      const home = configHome();
      await login(home, key);
      const table = await run(["whoami"], cliEnv(home));
      expect(table.status, table.stderr).toBe(0);
      expect(table.stdout).toMatch(new RegExp(`^url +${serve.api} +\\(credentials file\\)$`, "m"));
      expect(table.stdout).toMatch(/^workspace +local +\(credentials file\)$/m);
      expect(table.stdout).toMatch(new RegExp(`^key +${hint(key)} \\(agent key\\) +\\(credentials file\\)$`, "m"));
      expect(table.stdout).toMatch(/^server +accepts the key$/m);
      const json = JSON.parse((await run(["whoami", "--json"], cliEnv(home))).stdout);
      expect(json).toEqual({
        url: serve.api,
        workspace: "local",
        key: hint(key),
        kind: "agent key",
        agent: null,
        sources: { url: "file", workspace: "file", apiKey: "file" },
        file: credentialsFile(home),
        server: "accepted",
      });
    });

    it("each SVC_WORKSPACE_* variable overrides its own field of the file, and the three alone need no file", async () => {
      const home = configHome();
      await login(home, key);
      const whoami = async (extra: Record<string, string>) => {
        const result = await run(["whoami", "--json"], cliEnv(home, extra));
        return { status: result.status, body: JSON.parse(result.stdout) };
      };

      const workspace = await whoami({ SVC_WORKSPACE_ID: "from-env" });
      expect(workspace).toMatchObject({
        status: 0,
        body: {
          workspace: "from-env",
          url: serve.api,
          key: hint(key),
          server: "accepted",
          sources: { url: "file", workspace: "env", apiKey: "file" },
        },
      });

      const url = await whoami({ SVC_WORKSPACE_API_URL: downUrl });
      expect(url).toMatchObject({
        status: 5,
        body: { url: downUrl, workspace: "local", server: "unreachable", sources: { url: "env", workspace: "file", apiKey: "file" } },
      });

      const apiKey = await whoami({ SVC_WORKSPACE_API_KEY: secondKey });
      expect(apiKey).toMatchObject({
        status: 0,
        body: { key: hint(secondKey), url: serve.api, server: "accepted", sources: { url: "file", workspace: "file", apiKey: "env" } },
      });
      const wrongKey = await whoami({ SVC_WORKSPACE_API_KEY: `pak_${"B".repeat(43)}` });
      expect(wrongKey).toMatchObject({ status: 3, body: { server: "refused", sources: { apiKey: "env" } } });

      // The file is unchanged by any of it.
      expect(JSON.parse(readFileSync(credentialsFile(home), "utf8"))).toEqual({ url: serve.api, workspace: "local", apiKey: key });

      const empty = configHome();
      const envOnly = await run(
        ["search", "--json"],
        cliEnv(empty, { SVC_WORKSPACE_API_URL: serve.origin, SVC_WORKSPACE_ID: "local", SVC_WORKSPACE_API_KEY: key }),
      );
      expect(envOnly.status, envOnly.stderr).toBe(0);
      expect(JSON.parse(envOnly.stdout).toolkits.map((t: { slug: string }) => t.slug)).toEqual(["demo"]);
      expect(existsSync(credentialsFile(empty))).toBe(false);
    });

    it("without credentials, commands exit 3 and say how to sign in; logout removes the file", async () => {
      const home = configHome();
      const none = await run(["connections"], cliEnv(home));
      expect(none.status).toBe(3);
      expect(none.stderr).toContain(
        'not signed in (no server and no API key): run "tools-proxy login --url URL --workspace ID", or set SVC_WORKSPACE_API_URL and SVC_WORKSPACE_API_KEY.',
      );

      await login(home, key);
      expect((await run(["connections", "--json"], cliEnv(home))).status).toBe(0);
      const logout = await run(["logout"], cliEnv(home));
      expect(logout.status).toBe(0);
      expect(logout.stderr).toContain(`Signed out: removed ${credentialsFile(home)}.`);
      expect(existsSync(credentialsFile(home))).toBe(false);
      expect((await run(["connections"], cliEnv(home))).status).toBe(3);
      expect((await run(["logout"], cliEnv(home))).stderr).toContain("Not signed in");
      const keyOnly = await run(["search"], cliEnv(home, { SVC_WORKSPACE_API_KEY: key }));
      expect(keyOnly.status).toBe(3);
      expect(keyOnly.stderr).toContain("not signed in (no server URL)");
    });

    it("a credentials file readable by others is still used, with a warning to chmod it", async () => {
      const home = configHome();
      await login(home, key);
      const { chmodSync } = await import("node:fs");
      chmodSync(credentialsFile(home), 0o644);
      const result = await run(["whoami", "--no-check"], cliEnv(home));
      expect(result.status).toBe(0);
      expect(result.stderr).toContain(`can be read by other users; run "chmod 600 ${credentialsFile(home)}"`);
    });

    it("no output of any run above contains an API key, and none has colour codes (not a terminal)", () => {
      expect(outputs.length).toBeGreaterThan(20);
      for (const { stdout, stderr } of outputs) {
        for (const secret of [key, secondKey]) expect(stdout + stderr).not.toContain(secret);
        expect(stdout + stderr).not.toContain("\u001b[");
      }
    });
  },
);
