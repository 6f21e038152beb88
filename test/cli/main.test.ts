/**
 * The `tools-proxy` bin as a user runs it: `node dist/cli/main.js serve --port 0`, then the
 * getting-started flow (docs/guide/getting-started.md) over real HTTP. Needs `npm run build` first (`npm test` runs it).
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "main.js");

function requireBuild(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} does not exist: run \`npm run build\` before these tests.`);
}

function run(...args: string[]) {
  requireBuild();
  return spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 10_000 });
}

describe("tools-proxy command line", () => {
  it("--help exits 0 with an example, for the tool and each command", () => {
    for (const args of [["--help"], ["serve", "--help"], ["keys", "create", "--help"], ["migrate", "--help"]]) {
      const result = run(...args);
      expect(result.status, args.join(" ")).toBe(0);
      expect(result.stdout).toMatch(/Usage: tools-proxy/);
      expect(result.stdout).toMatch(/Examples?:\n {2}tools-proxy /);
    }
  });

  it("an unknown command, option or argument exits 2 with a message on stderr", () => {
    for (const args of [["bogus"], [], ["serve", "--bogus"], ["serve", "extra"], ["serve", "--port", "x"], ["keys", "create"]]) {
      const result = run(...args);
      expect(result.status, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(/^tools-proxy: .+\nRun "tools-proxy .*--help" for usage\.\n$/);
      expect(result.stdout).toBe("");
    }
    expect(run("serve", "--bogus").stderr).toContain('unknown option "--bogus"');
  });

  it("keys create needs --workspace and exactly one of --agent and --service (exit 2)", () => {
    for (const args of [
      ["--agent", "a"],
      ["--workspace", "w"],
      ["--workspace", "w", "--agent", "a", "--service"],
    ]) {
      const result = run("keys", "create", ...args);
      expect(result.status, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(/--workspace|--agent|--service/);
    }
  });

  it("serve refuses a short TOOLS_PROXY_SECRET without echoing it", () => {
    requireBuild();
    const result = spawnSync(process.execPath, [BIN, "serve", "--port", "0", "--memory"], {
      encoding: "utf8",
      timeout: 10_000,
      env: { ...process.env, TOOLS_PROXY_SECRET: "too-short-secret" },
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("TOOLS_PROXY_SECRET must be at least 32 bytes");
    expect(result.stderr).not.toContain("too-short-secret");
  });
});

describe("tools-proxy serve: the getting-started flow", () => {
  let child: ChildProcessWithoutNullStreams;
  let stdout = "";
  let stderr = "";
  let api = "";
  let origin = "";
  let key = "";
  let stagingKey = "";

  const call = (path: string, init: RequestInit = {}, apiKey: string | null = key) =>
    fetch(`${api}${path}`, {
      ...init,
      headers: { ...(apiKey ? { "x-api-key": apiKey } : {}), ...(init.headers as Record<string, string>) },
    });
  const post = (path: string, body: unknown) =>
    call(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  beforeAll(async () => {
    requireBuild();
    const dir = mkdtempSync(join(tmpdir(), "tools-proxy-cli-"));
    const file = join(dir, "extra.json");
    const extra = {
      slug: "extra",
      name: "Extra",
      description: "${EXTRA_DESCRIPTION}",
      baseUrl: "https://extra.invalid",
      auth: { type: "none" },
      tools: [],
    };
    writeFileSync(file, JSON.stringify(extra));
    child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--data-dir", join(dir, "data"), "--toolkits", file], {
      env: { ...process.env, TOOLS_PROXY_SECRET: "", EXTRA_DESCRIPTION: "From a toolkit file" },
    });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start in time.\nstdout: ${stdout}\nstderr: ${stderr}`)), 15_000);
      child.stdout.on("data", () => stdout.includes("Press Ctrl+C") && (clearTimeout(timer), resolve()));
      child.on("exit", (code) => (clearTimeout(timer), reject(new Error(`serve exited with ${code}: ${stderr}`))));
    });
    api = /listening on (http:\/\/\S+)/.exec(stdout)![1]!;
    origin = new URL(api).origin;
    key = /^ {2}(pak_[A-Za-z0-9_-]{43})$/m.exec(stdout)![1]!;
  });

  afterAll(() => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
  });

  it("prints the URL it listens on, the real port, the toolkits and one agent key", () => {
    expect(api).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/proxy\/tools$/);
    expect(new URL(api).port).not.toBe("0");
    expect(stdout).toContain("toolkits: demo (3 tools), extra (0 tools)");
    expect(stdout.match(/pak_/g)).toHaveLength(1);
  });

  it("searches toolkits", async () => {
    const response = await call("/search?keywords=demo");
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.toolkits).toEqual([expect.objectContaining({ slug: "demo", authScheme: "apiKey", toolCount: 3, connected: false })]);
    const extra = await (await call("/search?keywords=extra")).json();
    expect(extra.toolkits[0]).toMatchObject({ slug: "extra", description: "From a toolkit file" });
  });

  it("connects the demo toolkit with the demo key, and lists the connection", async () => {
    const response = await post("/auth", { toolkit: "demo", credentials: { apiKey: "demo-key" } });
    expect(response.status).toBe(201);
    const { connection } = await response.json();
    expect(connection).toMatchObject({ toolkit: "demo", status: "active" });
    const list = await (await call("/connections")).json();
    expect(list.connections.map((c: { id: string }) => c.id)).toEqual([connection.id]);
  });

  it("shows the toolkit's tools, with the file argument marked", async () => {
    const toolkit = await (await call("/toolkit/demo")).json();
    expect(toolkit.tools.map((t: { slug: string }) => t.slug)).toEqual(["DEMO_WORD_COUNT", "DEMO_CREATE_NOTE", "DEMO_LIST_NOTES"]);
    expect(toolkit.tools[0].inputParameters.properties.file).toMatchObject({ format: "tools-proxy-staging-key" });
  });

  it("uploads a text file and counts its words with DEMO_WORD_COUNT", async () => {
    const form = new FormData();
    form.append("file", new Blob(["hello tools proxy\nsecond line here\n"], { type: "text/plain" }), "notes.txt");
    const upload = await call("/upload", { method: "POST", body: form });
    expect(upload.status).toBe(200);
    const staged = await upload.json();
    expect(staged).toMatchObject({ contentType: "text/plain", size: 35 });
    stagingKey = staged.stagingKey;

    const result = await (await post("/execute", { tool: "DEMO_WORD_COUNT", arguments: { file: stagingKey } })).json();
    expect(result).toEqual({
      data: { filename: "notes.txt", contentType: "text/plain", lines: 2, words: 6, bytes: 35 },
      error: null,
      successful: true,
    });
    expect(await (await call(`/files/${stagingKey}`)).text()).toBe("hello tools proxy\nsecond line here\n");
  });

  it("creates and lists notes through the demo API with the HTTP tools", async () => {
    const created = await (await post("/execute", { tool: "DEMO_CREATE_NOTE", arguments: { text: "Buy milk" } })).json();
    expect(created).toMatchObject({ successful: true, data: { id: "note_1", text: "Buy milk" } });
    const listed = await (await post("/execute", { tool: "DEMO_LIST_NOTES", arguments: {} })).json();
    expect(listed.data.notes).toEqual([created.data]);
  });

  it("proxies a GET to the demo API with the connection's key added", async () => {
    const result = await (await post("/proxy", { toolkit: "demo", method: "GET", url: `${origin}/demo-api/v1/notes` })).json();
    expect(result).toMatchObject({ successful: true, status: 200, data: { notes: [{ id: "note_1" }] } });
    const direct = await fetch(`${origin}/demo-api/v1/notes`);
    expect(direct.status).toBe(401); // the demo API itself needs the demo key
    const outside = await post("/proxy", { toolkit: "demo", method: "GET", url: "https://example.com/" });
    expect(outside.status).toBe(400);
  });

  it("answers 401 without an API key, and 400 for an unknown staging key", async () => {
    const response = await call("/connections", {}, null);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: "unauthorized" });
    const missing = await post("/execute", { tool: "DEMO_WORD_COUNT", arguments: { file: "stg_AAAAAAAAAAAAAAAAAAAAAAAA" } });
    expect(missing.status).toBe(400);
  });

  it("never writes a credential to stderr, and stops with exit 0 on SIGTERM", async () => {
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stderr).toContain("SIGTERM received, stopping");
    expect(stderr).not.toContain(key);
    expect(stderr).not.toContain("demo-key");
  });
});
