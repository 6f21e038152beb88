/**
 * The MCP server of a real `tools-proxy serve` process (`npm run build` first), reached over HTTP
 * by the MCP SDK's own client and by the MCP Inspector's command line: the demo toolkit connected
 * with its demo key, a paginated toolkit, a failing call, a call that needs an OAuth connection,
 * and the 401 of a missing or wrong key.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callApi, missingBuild, type ServeProcess, startServe } from "../support/serve-process.js";

const ROOT = join(import.meta.dirname, "..", "..");
const INSPECTOR = join(ROOT, "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "cli.js");

type Text = Array<{ type: string; text: string }>;

/** A JSON toolkit file: `big` (120 tools, more than a page) and `notes` (OAuth, at a provider that is never reached). */
function writeToolkits(dir: string): string {
  const big = {
    slug: "big",
    name: "Big",
    description: "Many tools.",
    baseUrl: "https://big.test/v1",
    auth: { type: "none" },
    tools: Array.from({ length: 120 }, (_, i) => ({
      slug: `BIG_${i}`,
      name: `Big ${i}`,
      description: `Tool ${i} of big.`,
      method: "GET",
      path: `/items/${i}`,
      inputParameters: { type: "object", properties: {} },
    })),
  };
  const notes = {
    slug: "notes",
    name: "Notes",
    description: "An OAuth toolkit.",
    baseUrl: "https://notes.test/api",
    auth: {
      type: "oauth2",
      authorizationUrl: "https://auth.notes.test/authorize",
      tokenUrl: "https://auth.notes.test/token",
      clientId: "notes-client",
      clientSecret: "notes-secret",
      scopes: ["read"],
    },
    tools: [{ slug: "NOTES_LIST", name: "List", description: "Lists notes.", method: "GET", path: "/notes" }],
  };
  const file = join(dir, "toolkits.json");
  writeFileSync(file, JSON.stringify([big, notes]));
  return file;
}

/** Runs the MCP Inspector in CLI mode (`mcp-inspector-cli --cli <url> ...`) and returns its JSON output. */
async function inspector(args: string[]): Promise<{ code: number | null; json: unknown; stderr: string }> {
  // The inspector reads its own package.json at "../package.json" as seen from the working
  // directory, so it runs from a directory whose parent has one (test/). It starts `node` from
  // PATH: this Node.
  const child = spawn(process.execPath, [INSPECTOR, "--cli", ...args], {
    cwd: join(ROOT, "test"),
    env: { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}` },
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const start = out.indexOf("{");
  return { code, json: start === -1 ? null : JSON.parse(out.slice(start)), stderr: err };
}

describe.skipIf(missingBuild)(missingBuild ? `MCP on serve (skipped: ${missingBuild})` : "MCP on serve", () => {
  const dir = mkdtempSync(join(tmpdir(), "serve-mcp-"));
  let serve: ServeProcess;
  const clients: Client[] = [];
  beforeAll(async () => {
    serve = await startServe(["--memory", "--toolkits", writeToolkits(dir)]);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function connect(query = "", headers: Record<string, string> = { authorization: `Bearer ${serve.key}` }): Promise<Client> {
    const client = new Client({ name: "serve-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.api}/mcp${query}`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  }

  it("connects the demo toolkit with its key through connect_toolkit, then runs its tools by slug", async () => {
    const meta = await connect();
    expect((await meta.listTools()).tools.map((t) => t.name)).toContain("execute_tool");
    const direct = await connect("?toolkits=demo");
    const before = await direct.callTool({ name: "DEMO_LIST_NOTES", arguments: {} });
    expect(before.isError).toBe(true);
    // serve has a public URL, so the answer carries a connect link the user opens to type the key.
    const link = /(http:\/\/\S+\/proxy\/tools\/connect\/\S+)/.exec((before.content as Text)[0]!.text)?.[1];
    expect((before.content as Text)[0]!.text).toMatch(/No active connection to "demo"/);
    expect(link, "a connect link").toBeDefined();
    expect(new URL(link!).origin).toBe(serve.origin);
    expect((await fetch(link!)).headers.get("content-type")).toMatch(/^text\/html/);

    const connected = await meta.callTool({ name: "connect_toolkit", arguments: { toolkit: "demo", credentials: { apiKey: "demo-key" } } });
    expect(connected.structuredContent).toMatchObject({ connection: { toolkit: "demo", status: "active" } });
    expect(JSON.stringify(connected)).not.toContain("demo-key");

    const { tools } = await direct.listTools();
    expect(tools.map((t) => t.name)).toEqual(["DEMO_WORD_COUNT", "DEMO_CREATE_NOTE", "DEMO_LIST_NOTES"]);
    const created = await direct.callTool({ name: "DEMO_CREATE_NOTE", arguments: { text: "from MCP" } });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toMatchObject({ text: "from MCP", id: expect.any(String) });
    const listed = await meta.callTool({ name: "execute_tool", arguments: { tool: "DEMO_LIST_NOTES" } });
    expect(JSON.parse((listed.content as Text)[0]!.text)).toEqual(
      expect.objectContaining({ notes: [expect.objectContaining({ text: "from MCP" })] }),
    );
  });

  it("pages tools/list over a toolkit of 120 tools", async () => {
    const client = await connect("?toolkits=big,demo");
    const first = await client.listTools();
    expect(first.tools).toHaveLength(100);
    const second = await client.listTools({ cursor: first.nextCursor });
    expect(second.nextCursor).toBeUndefined();
    expect([...first.tools, ...second.tools].map((t) => t.name)).toEqual([
      ...Array.from({ length: 120 }, (_, i) => `BIG_${i}`),
      "DEMO_WORD_COUNT",
      "DEMO_CREATE_NOTE",
      "DEMO_LIST_NOTES",
    ]);
  });

  it("answers a failed call (the demo API refuses a wrong key) with isError, its code and retry guidance", async () => {
    const wrong = await callApi(serve.api, serve.key!, "/auth", {
      toolkit: "demo",
      label: "Wrong",
      credentials: { apiKey: "not-the-demo-key" },
    });
    const { connection } = (await wrong.json()) as { connection: { id: string } };
    const client = await connect();
    const failed = await client.callTool({ name: "execute_tool", arguments: { tool: "DEMO_LIST_NOTES", connection_id: connection.id } });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toMatchObject({ code: "upstream_error", upstreamStatus: 401, retryable: false });
    expect((failed.content as Text)[0]!.text).toMatch(/Upstream answered 401.*will not help/);
    expect(JSON.stringify(failed)).not.toContain("not-the-demo-key");
    expect((await callApi(serve.api, serve.key!, `/connections/${connection.id}`, undefined, { method: "DELETE" })).status).toBe(204);
  });

  it("answers a call that needs an OAuth connection with isError and the URL that connects it", async () => {
    const client = await connect("?toolkits=notes");
    const result = await client.callTool({ name: "NOTES_LIST", arguments: {} });
    expect(result.isError).toBe(true);
    const text = (result.content as Text)[0]!.text;
    const url = new URL(/(https:\/\/auth\.notes\.test\/authorize\?\S+)/.exec(text)![1]!);
    expect(url.searchParams.get("redirect_uri")).toBe(`${serve.api}/auth/callback`);
    expect(url.searchParams.get("client_id")).toBe("notes-client");
    expect(text).toMatch(/Tell the user/);
  });

  it("answers 401 without a key or with a wrong one", async () => {
    await expect(connect("", {})).rejects.toMatchObject({ code: 401 });
    await expect(connect("", { authorization: `Bearer pak_${"z".repeat(43)}` })).rejects.toMatchObject({ code: 401 });
    const raw = await fetch(`${serve.api}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(raw.status).toBe(401);
    expect(raw.headers.get("www-authenticate")).toMatch(/^Bearer /);
  });

  it("works with the MCP Inspector's command line: tools/list and tools/call", async () => {
    const header = ["--header", `Authorization: Bearer ${serve.key}`];
    const listed = await inspector([`${serve.api}/mcp?toolkits=demo`, "--transport", "http", ...header, "--method", "tools/list"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect((listed.json as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual([
      "DEMO_WORD_COUNT",
      "DEMO_CREATE_NOTE",
      "DEMO_LIST_NOTES",
    ]);
    const called = await inspector([
      `${serve.api}/mcp`,
      "--transport",
      "http",
      ...header,
      "--method",
      "tools/call",
      "--tool-name",
      "search_toolkits",
      "--tool-arg",
      "keywords=demo",
    ]);
    expect(called.code, called.stderr).toBe(0);
    expect(called.json).toMatchObject({ structuredContent: { toolkits: [{ slug: "demo", connected: true }] } });
    const refused = await inspector([`${serve.api}/mcp`, "--transport", "http", "--method", "tools/list"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Missing API key/);
  }, 60_000);
});
