/**
 * Staged files through the handler with the file system blob store: a tool that receives files end
 * to end, expiry (404 on /files, 400 on execute, checked on the store's clock), the sweeper (on
 * demand, on its timer, stopped by close), and isolation between agents and workspaces.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { filesystemBlobStore } from "../../src/blob/fs.js";
import {
  createToolsHandler,
  defineTool,
  defineToolkit,
  issueApiKey,
  memoryStore,
  none,
  type StagedFile,
  stagedFile,
  type ToolsHandler,
} from "../../src/index.js";
import { bufferedFormRequest } from "../support/form-body.js";

const BASE = "http://localhost/proxy/tools";
const HOUR = 60 * 60 * 1000;
const PDF = new TextEncoder().encode("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n");

interface Received {
  name: string;
  filename: string | null;
  contentType: string;
  size: number;
  streamed: string;
  bytes: string;
  again: string;
  json: string;
  attachments: Array<{ name: string; size: number }>;
}

let directory: string;
let clock: number;
let received: Received[];

function setup(options: { ttlMs?: number; sweepIntervalMs?: number } = {}) {
  const store = memoryStore();
  // The store decides expiry on this clock, so tests move time instead of waiting.
  const blobStore = filesystemBlobStore({ directory, now: () => new Date(clock) });
  const toolkit = defineToolkit({
    slug: "docs",
    name: "Docs",
    description: "Reads documents.",
    auth: none(),
    tools: [
      defineTool({
        slug: "DOCS_READ",
        name: "Read",
        description: "Reads a staged document and its attachments.",
        input: z.object({ file: stagedFile("The document."), attachments: z.array(stagedFile()).default([]), note: z.string().optional() }),
        async run(args, ctx) {
          const file: StagedFile = args.file;
          const reader = (await file.stream()).getReader();
          let streamed = "";
          for (let read = await reader.read(); !read.done; read = await reader.read())
            streamed += new TextDecoder().decode(read.value, { stream: true });
          received.push({
            name: file.name,
            filename: file.filename,
            contentType: file.contentType,
            size: file.size,
            streamed,
            bytes: new TextDecoder().decode(await file.bytes()),
            again: await (await ctx.files.get(file)).text(),
            json: JSON.stringify(args),
            attachments: args.attachments.map((a) => ({ name: a.name, size: a.size })),
          });
          return { ok: true };
        },
      }),
    ],
  });
  const tools = createToolsHandler({
    store,
    blobStore,
    secret: "s".repeat(32),
    toolkits: [toolkit],
    uploads: { ttlMs: options.ttlMs ?? HOUR },
    sweepIntervalMs: options.sweepIntervalMs ?? 0,
  });
  const key = (workspaceId: string, agentId: string) => issueApiKey(store, { workspaceId, agentId }).then((k) => k.key);
  return { tools, key };
}

async function upload(tools: ToolsHandler, apiKey: string, bytes: Uint8Array, type: string, filename?: string): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([bytes as BlobPart], { type }), filename ?? ""); // "": no file name
  const response = await tools(await bufferedFormRequest(`${BASE}/upload`, form, { "x-api-key": apiKey }));
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { stagingKey: string }).stagingKey;
}

const execute = (tools: ToolsHandler, apiKey: string, args: Record<string, unknown>) =>
  tools(
    new Request(`${BASE}/execute`, {
      method: "POST",
      headers: { "x-api-key": apiKey, "content-type": "application/json" },
      body: JSON.stringify({ tool: "DOCS_READ", arguments: args }),
    }),
  );
const download = (tools: ToolsHandler, apiKey: string, stagingKey: string) =>
  tools(new Request(`${BASE}/files/${stagingKey}`, { headers: { "x-api-key": apiKey } }));
const blobFiles = async () => (await readdir(directory).catch(() => [] as string[])).filter((name) => name.endsWith(".blob"));

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "tp-staged-"));
  clock = Date.now();
  received = [];
});
afterEach(() => rm(directory, { recursive: true, force: true }));

describe("a tool with stagedFile() inputs", () => {
  it("shows them as staging keys in inputParameters", async () => {
    const { tools, key } = setup();
    const response = await tools(new Request(`${BASE}/toolkit/docs`, { headers: { "x-api-key": await key("ws", "a") } }));
    const { tools: list } = (await response.json()) as { tools: Array<{ inputParameters: any }> };
    const { properties } = list[0]!.inputParameters;
    expect(properties.file).toMatchObject({
      type: "string",
      format: "tools-proxy-staging-key",
      "x-tools-proxy-file": true,
      description: "The document.",
    });
    expect(properties.file.pattern).toBe("^stg_[A-Za-z0-9_-]{16,128}$");
    expect(properties.attachments.items).toMatchObject({ type: "string", format: "tools-proxy-staging-key" });
  });

  it("receives each file, opened before run: name, content type, size, a stream and the bytes", async () => {
    const { tools, key } = setup();
    const a = await key("ws", "a");
    const doc = await upload(tools, a, PDF, "application/pdf", "report.pdf");
    const note = await upload(tools, a, new TextEncoder().encode("plain note"), "text/plain");
    const response = await execute(tools, a, { file: doc, attachments: [note, doc] });
    expect(await response.json()).toMatchObject({ successful: true, data: { ok: true } });
    const text = new TextDecoder().decode(PDF);
    expect(received).toEqual([
      {
        name: "report.pdf",
        filename: "report.pdf",
        contentType: "application/pdf",
        size: PDF.byteLength,
        streamed: text,
        bytes: text,
        again: text,
        // In JSON a file is its key again, so arguments log and serialise as they were sent.
        json: JSON.stringify({ file: doc, attachments: [note, doc] }),
        attachments: [
          { name: note, size: 10 }, // no file name sent: the staging key stands in
          { name: "report.pdf", size: PDF.byteLength },
        ],
      },
    ]);
  });

  it("answers 400 without running the tool for an unknown, expired or another agent's file", async () => {
    const { tools, key } = setup();
    const a = await key("ws", "a");
    const b = await key("ws", "b");
    const otherWorkspace = await key("ws2", "a");
    const own = await upload(tools, a, PDF, "application/pdf");
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      [b, { file: own }, /arguments\.file: no staged file/],
      [otherWorkspace, { file: own }, /arguments\.file: no staged file/],
      [a, { file: `stg_${"x".repeat(43)}` }, /arguments\.file: no staged file/],
      [a, { file: own, attachments: [own, `stg_${"y".repeat(43)}`] }, /arguments\.attachments\.1: no staged file/],
      [a, { file: "../../etc/passwd" }, /arguments\.file/],
    ];
    for (const [apiKey, args, message] of cases) {
      const response = await execute(tools, apiKey, args);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { code: string; error: string };
      expect(body.code).toBe("invalid_request");
      expect(body.error).toMatch(message);
    }
    clock += HOUR + 1000;
    const expired = await execute(tools, a, { file: own });
    expect(expired.status).toBe(400);
    expect(((await expired.json()) as { error: string }).error).toMatch(/unknown or expired/);
    expect(received).toEqual([]);
  });
});

describe("expiry and the sweeper", () => {
  it("an expired file is a 404 on /files at once, and gone from disk after a sweep", async () => {
    const { tools, key } = setup({ ttlMs: 1 });
    const a = await key("ws", "a");
    const stagingKey = await upload(tools, a, PDF, "application/pdf");
    expect(await blobFiles()).toHaveLength(1);
    clock += 1000;
    const response = await download(tools, a, stagingKey);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "not_found" });
    await new Promise((resolve) => setTimeout(resolve, 5)); // past expiresAt on the real clock too
    expect(await tools.sweep()).toBe(1);
    expect(await blobFiles()).toEqual([]);
    expect(await tools.sweep()).toBe(0);
  });

  it("keeps files that have not expired, and the default lifetime is one hour", async () => {
    const { tools, key } = setup({ ttlMs: undefined });
    const a = await key("ws", "a");
    const form = new FormData();
    form.append("file", new Blob([PDF], { type: "application/pdf" }));
    const before = Date.now();
    const staged = (await (await tools(await bufferedFormRequest(`${BASE}/upload`, form, { "x-api-key": a }))).json()) as {
      stagingKey: string;
      expiresAt: string;
    };
    const lifetime = new Date(staged.expiresAt).getTime() - before;
    expect(lifetime).toBeGreaterThanOrEqual(HOUR - 1000);
    expect(lifetime).toBeLessThanOrEqual(HOUR + 1000);
    expect(await tools.sweep()).toBe(0);
    expect((await download(tools, a, staged.stagingKey)).status).toBe(200);
  });

  it("sweeps on its own every sweepIntervalMs once it served a request, and stops on close()", async () => {
    const { tools, key } = setup({ ttlMs: 1, sweepIntervalMs: 10 });
    const a = await key("ws", "a");
    await upload(tools, a, PDF, "application/pdf");
    await upload(tools, a, PDF, "application/pdf");
    for (let tries = 0; tries < 500 && (await blobFiles()).length > 0; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await blobFiles()).toEqual([]);
    await tools.close();
    await upload(tools, a, PDF, "application/pdf");
    await new Promise((resolve) => setTimeout(resolve, 100)); // ten periods: no sweep runs now
    expect(await blobFiles()).toHaveLength(1);
    expect(await tools.sweep()).toBe(1); // sweep() on demand still works, e.g. from a cron job
  });

  it("with sweepIntervalMs 0 nothing is deleted until sweep() is called", async () => {
    const { tools, key } = setup({ ttlMs: 1, sweepIntervalMs: 0 });
    const a = await key("ws", "a");
    await upload(tools, a, PDF, "application/pdf");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await blobFiles()).toHaveLength(1);
    expect(await tools.sweep()).toBe(1);
  });

  it("two handlers sweeping one directory at once delete each file once", async () => {
    const first = setup({ ttlMs: 1 });
    const second = setup({ ttlMs: 1 });
    const a = await first.key("ws", "a");
    for (let i = 0; i < 20; i++) await upload(first.tools, a, PDF, "application/pdf");
    await new Promise((resolve) => setTimeout(resolve, 5));
    const counts = await Promise.all([first.tools.sweep(), second.tools.sweep(), first.tools.sweep()]);
    // The first handler's two calls share one sweep.
    expect(counts[0]).toBe(counts[2]);
    expect(counts[0] + counts[1]).toBe(20);
    expect(await blobFiles()).toEqual([]);
  });

  it("refuses a sweepIntervalMs that is not a whole number of milliseconds from 0", () => {
    for (const sweepIntervalMs of [-1, 1.5, 2 ** 31]) {
      expect(() => createToolsHandler({ sweepIntervalMs })).toThrow(/option "sweepIntervalMs"/);
    }
  });
});
