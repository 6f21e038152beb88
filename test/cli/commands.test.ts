/**
 * One command per route, through the built bin against a real `serve` process, each result checked
 * against the API itself (a direct HTTP call) or the demo API's own state: search, toolkit,
 * auth with an API key, connections, execute in its three argument forms, proxy, upload and
 * files. Exit codes per failure, --json that parses, and no API key in any output.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callApi, missingBuild, type ServeProcess, startServe } from "../support/serve-process.js";
import { type CliResult, cliEnv, configHome, runCli } from "./run.js";

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe.skipIf(missingBuild)(
  missingBuild ? `commands (skipped: ${missingBuild})` : "tools-proxy commands against a running server",
  () => {
    let serve: ServeProcess;
    let key: string;
    let env: NodeJS.ProcessEnv;
    let dir: string;
    const outputs: CliResult[] = [];
    const cli = async (args: string[], input?: string | Buffer) => {
      const result = await runCli(args, env, input);
      outputs.push(result);
      return result;
    };
    /** Runs a --json command that must succeed, and parses its stdout. */
    const json = async (args: string[], input?: string) => {
      const result = await cli([...args, "--json"], input);
      expect(result.status, `${args.join(" ")}: ${result.stderr}`).toBe(0);
      return JSON.parse(result.stdout);
    };
    const api = async (path: string, body?: unknown) => (await callApi(serve.api, key, path, body)).json();
    const demoNotes = async () =>
      (await (await fetch(`${serve.origin}/demo-api/v1/notes`, { headers: { "x-demo-key": "demo-key" } })).json()).notes as Array<{
        text: string;
      }>;

    beforeAll(async () => {
      serve = await startServe(["--memory"]);
      key = serve.key!;
      dir = mkdtempSync(join(tmpdir(), "tools-proxy-commands-"));
      env = cliEnv(configHome());
      const login = await runCli(["login", "--url", serve.origin, "--workspace", "local"], env, key);
      expect(login.status, login.stderr).toBe(0);
    });

    afterAll(async () => {
      await serve?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("search: a table for people, the route's JSON with --json, a note when nothing matches", async () => {
      const table = await cli(["search", "demo"]);
      expect(table.status).toBe(0);
      expect(table.stdout).toMatch(
        /^TOOLKIT +NAME +AUTH +TOOLS +CONFIGURED +CONNECTED +DESCRIPTION\ndemo +Demo +apiKey +3 +yes +no +An offline demo/,
      );
      expect(await json(["search", "demo"])).toEqual(await api("/search?keywords=demo"));
      const none = await cli(["search", "zzqx", "vvkj"]);
      expect(none).toMatchObject({ status: 0, stdout: "", stderr: "No toolkit matches.\n" });
      expect((await cli(["search", "--limit", "0"])).status).toBe(2);
    });

    it("toolkit: details with its tools (the default subcommand), tool search, pages, and 4 for an unknown toolkit", async () => {
      const details = await cli(["toolkit", "demo"]);
      expect(details.status).toBe(0);
      expect(details.stdout).toMatch(/^toolkit +Demo \(demo\)\nauth +API key\b.*: tools-proxy auth demo --api-key KEY\n/);
      expect(details.stdout).toMatch(/^DEMO_WORD_COUNT +file +Counts the lines/m);
      expect(details.stdout).toMatch(/^DEMO_CREATE_NOTE +text +Stores a note/m);
      expect(await json(["toolkit", "show", "demo"])).toEqual(await api("/toolkit/demo"));

      const first = await cli(["toolkit", "demo", "--limit", "1", "--json"]);
      const page = JSON.parse(first.stdout);
      expect(page.tools.map((t: { slug: string }) => t.slug)).toEqual(["DEMO_WORD_COUNT"]);
      expect(await json(["toolkit", "demo", "--limit", "1", "--cursor", page.nextCursor])).toEqual(
        await api(`/toolkit/demo?limit=1&cursor=${page.nextCursor}`),
      );
      expect((await cli(["toolkit", "demo", "--limit", "1"])).stderr).toContain(`More: add --cursor ${page.nextCursor}`);

      expect((await json(["toolkit", "search", "demo", "word", "count"])).tools.map((t: { slug: string }) => t.slug)).toEqual([
        "DEMO_WORD_COUNT",
      ]);
      const unknown = await cli(["toolkit", "nope"]);
      expect(unknown.status).toBe(4);
      expect(unknown.stderr).toBe(
        'tools-proxy: the server answered 404 not_found: No toolkit "nope". Find toolkits with "tools-proxy search WORDS".\n',
      );
    });

    let first: string;
    let second: string;

    it("auth: an API-key toolkit connects from --api-key, or from the key on stdin", async () => {
      const fromFlag = await cli(["auth", "demo", "--api-key", "demo-key"]);
      expect(fromFlag.status, fromFlag.stderr).toBe(0);
      first = /^Connected demo: (conn_\S+) \(active\)$/m.exec(fromFlag.stdout)![1]!;
      const fromStdin = await json(["auth", "demo", "--label", "from stdin"], "demo-key\n");
      second = fromStdin.connection.id;
      expect(fromStdin.connection).toMatchObject({ toolkit: "demo", label: "from stdin", status: "active" });
      const listed = await api("/connections");
      expect(listed.connections.map((c: { id: string }) => c.id)).toEqual([first, second]);
      expect((await cli(["auth", "demo", "--api-key", "k", "--token", "t"])).status).toBe(2);
    });

    it("connections: a table, --json equal to the route's answer, a toolkit filter", async () => {
      const table = await cli(["connections"]);
      expect(table.stdout).toMatch(
        new RegExp(
          `^ID +TOOLKIT +LABEL +STATUS +ACCOUNT +CREATED\\n${first} +demo +Demo +active +- +\\S+\\n${second} +demo +from stdin +active`,
        ),
      );
      expect(await json(["connections", "list"])).toEqual(await api("/connections"));
      expect(await json(["connections", "--toolkit", "nothing"])).toEqual({ connections: [] });

      const page = await json(["connections", "--limit", "1"]);
      expect(page.connections.map((c: { id: string }) => c.id)).toEqual([first]);
      expect((await cli(["connections", "--limit", "1"])).stderr).toContain(`More: add --all, or --cursor ${page.nextCursor}`);
      expect(await json(["connections", "--limit", "1", "--cursor", page.nextCursor])).toEqual(
        await api(`/connections?limit=1&cursor=${page.nextCursor}`),
      );
      expect(await json(["connections", "--all", "--limit", "1"])).toEqual(await api("/connections"));
      expect((await cli(["connections", "--limit", "201"])).status).toBe(2);
    });

    it("execute: with two connections and none named, exit 1 listing them; --args, --args-file (file and stdin) and --arg", async () => {
      const ambiguous = await cli(["execute", "DEMO_LIST_NOTES"]);
      expect(ambiguous.status).toBe(1);
      expect(ambiguous.stderr).toMatch(/409 connection_ambiguous: .*conn_/);
      expect(ambiguous.stderr).toContain(first);

      const viaArgs = await json(["execute", "DEMO_CREATE_NOTE", "--connection", first, "--args", '{"text":"from --args"}']);
      expect(viaArgs).toMatchObject({ successful: true, data: { text: "from --args" } });
      writeFileSync(join(dir, "args.json"), JSON.stringify({ text: "from a file" }));
      expect((await cli(["execute", "DEMO_CREATE_NOTE", "--connection", first, "--args-file", join(dir, "args.json")])).status).toBe(0);
      expect((await cli(["execute", "DEMO_CREATE_NOTE", "--connection", first, "--args-file", "-"], '{"text":"from stdin"}')).status).toBe(
        0,
      );
      // --arg values: JSON when valid ("\"42\"" is the string 42), else the text as it is; applied over --args.
      const viaArg = await cli([
        "execute",
        "DEMO_CREATE_NOTE",
        "--connection",
        first,
        "--args",
        '{"text":"replaced"}',
        "--arg",
        'text="42"',
      ]);
      expect(viaArg.status, viaArg.stderr).toBe(0);
      expect(JSON.parse(viaArg.stdout)).toMatchObject({ text: "42" });
      expect((await cli(["execute", "DEMO_CREATE_NOTE", "--connection", first, "--arg", "text=plain words"])).status).toBe(0);
      const number = await cli(["execute", "DEMO_CREATE_NOTE", "--connection", first, "--arg", "text=42"]);
      expect(number.status).toBe(1); // 42 is sent as a number, which the tool's schema refuses
      expect(number.stderr).toMatch(/400 invalid_request: .*text/);

      expect((await demoNotes()).map((n) => n.text)).toEqual(["from --args", "from a file", "from stdin", "42", "plain words"]);
      for (const bad of [
        ["--args", "{oops"],
        ["--args", "[1]"],
        ["--arg", "novalue"],
        ["--args", "{}", "--args-file", "x"],
      ]) {
        const result = await cli(["execute", "DEMO_CREATE_NOTE", ...bad]);
        expect(result.status, bad.join(" ")).toBe(2);
      }
      expect((await cli(["execute", "DEMO_CREATE_NOTE", "--args-file", join(dir, "missing.json")])).status).toBe(1);
      expect((await cli(["execute", "NO_SUCH_TOOL"])).status).toBe(4);
    });

    it("connections delete removes one (checked through the API); an unknown id exits 4", async () => {
      const deleted = await cli(["connections", "delete", second]);
      expect(deleted).toMatchObject({ status: 0, stderr: `Deleted ${second}.\n` });
      expect((await api("/connections")).connections.map((c: { id: string }) => c.id)).toEqual([first]);
      expect((await cli(["connections", "delete", second])).status).toBe(4);
    });

    it("proxy: GET with -i, POST with a JSON --body and a header, a failed upstream call (exit 1, JSON still printed)", async () => {
      const url = `${serve.origin}/demo-api/v1/notes`;
      const got = await cli(["proxy", "get", url, "--toolkit", "demo", "-i"]);
      expect(got.status, got.stderr).toBe(0);
      expect(got.stdout).toMatch(/^HTTP 200\ncontent-length: \d+\ncontent-type: application\/json\n/);
      expect(got.stdout).toContain('"text": "plain words"');
      const posted = await json(["proxy", "POST", url, "--toolkit", "demo", "--body", '{"text":"via proxy"}', "-H", "X-Trace: 1"]);
      expect(posted).toMatchObject({ successful: true, status: 201, data: { text: "via proxy" } });
      expect((await demoNotes()).at(-1)).toMatchObject({ text: "via proxy" });

      const missing = await cli(["proxy", "GET", `${url}/note_404`, "--toolkit", "demo", "--json"]);
      expect(missing.status).toBe(1);
      expect(JSON.parse(missing.stdout)).toMatchObject({ successful: false, status: 404 });
      expect(missing.stderr).toMatch(/the proxied request failed: .*upstream status 404/);
      const outside = await cli(["proxy", "GET", "https://example.com/", "--toolkit", "demo"]);
      expect(outside.status).toBe(1);
      expect((await cli(["proxy", "TRACE", url, "--toolkit", "demo"])).status).toBe(2);
      expect((await cli(["proxy", "GET", url])).status).toBe(2); // --toolkit is required
    });

    it("upload and files: 3 MB of random bytes up and back, equal; a staged file as a tool argument and a proxy body", async () => {
      const bytes = randomBytes(3 * 1024 * 1024);
      writeFileSync(join(dir, "random.bin"), bytes);
      const staged = await json(["upload", join(dir, "random.bin")]);
      expect(staged).toMatchObject({ contentType: "application/octet-stream", size: bytes.length });
      const saved = await cli(["files", staged.stagingKey, "-o", join(dir, "back.bin")]);
      expect(saved.status, saved.stderr).toBe(0);
      expect(sha256(readFileSync(join(dir, "back.bin")))).toBe(sha256(bytes));
      // Without -o, and stdout not a terminal: the bytes on stdout.
      const piped = await new Promise<Buffer>((resolve, reject) => {
        import("node:child_process").then(({ spawn }) => {
          const child = spawn(
            process.execPath,
            [join(import.meta.dirname, "..", "..", "dist", "cli", "main.js"), "files", staged.stagingKey],
            { env },
          );
          const chunks: Buffer[] = [];
          child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
          child.on("close", (code) => (code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`exit ${code}`))));
        }, reject);
      });
      expect(sha256(piped)).toBe(sha256(bytes));
      expect((await cli(["files", "stg_AAAAAAAAAAAAAAAAAAAAAAAA", "-o", join(dir, "none.bin")])).status).toBe(4);

      const text = await cli(["upload", "-", "--name", "words.txt", "--type", "text/plain"], "one two three\nfour\n");
      expect(text.status, text.stderr).toBe(0);
      expect(text.stderr).toBe(""); // no progress bar off a terminal
      const stagingKey = /^stagingKey +(stg_\S+)$/m.exec(text.stdout)![1]!;
      expect(text.stdout).toMatch(/^size +19 B \(19 bytes\)$/m);
      const counted = await json(["execute", "DEMO_WORD_COUNT", "--connection", first, "--arg", `file=${stagingKey}`]);
      expect(counted.data).toEqual({ filename: "words.txt", contentType: "text/plain", lines: 2, words: 4, bytes: 19 });

      const note = await json(["upload", "-", "--name", "note.json", "--type", "application/json"], '{"text":"from a staged body"}');
      const viaFile = await json([
        "proxy",
        "POST",
        `${serve.origin}/demo-api/v1/notes`,
        "--toolkit",
        "demo",
        "--body-file",
        note.stagingKey,
      ]);
      expect(viaFile).toMatchObject({ successful: true, data: { text: "from a staged body" } });
      const unreadable = await cli(["upload", join(dir, "missing.bin")]);
      expect(unreadable).toMatchObject({ status: 1, stderr: expect.stringContaining("ENOENT") });
    });

    it("a server that stops answering: exit 5 with the URL it tried", async () => {
      const stopped = await startServe(["--memory"]);
      const envStopped = cliEnv(configHome(), { SVC_WORKSPACE_API_URL: stopped.origin, SVC_WORKSPACE_API_KEY: stopped.key! });
      expect((await runCli(["connections"], envStopped)).status).toBe(0);
      await stopped.stop();
      const down = await runCli(["connections"], envStopped);
      expect(down.status).toBe(5);
      expect(down.stderr).toContain(`Could not reach the Tools API at ${stopped.api}/connections (ECONNREFUSED)`);
    });

    it("no output contains the API key or the demo key's connection secret, and no colours off a terminal", () => {
      expect(outputs.length).toBeGreaterThan(40);
      for (const { stdout, stderr } of outputs) {
        expect(stdout + stderr).not.toContain(key);
        expect(stdout + stderr).not.toContain("\u001b[");
      }
    });
  },
);
