/**
 * Tools loaded on demand (`Toolkit.lazy`), through the real handler: search and counts read the
 * summaries and load nothing, a toolkit's page loads only that page, execute loads only its tool,
 * the default set comes first, and MCP's ?toolkits= lists the loaded tools.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  allTools,
  createToolkitRegistry,
  defineTool,
  defineToolkit,
  type LazyTools,
  none,
  oauth2,
  type Tool,
  toolCount,
  toolSummaries,
} from "../../src/index.js";
import { toolkitRegistryConformance } from "../../src/testing/toolkit-registry.js";
import { createHarness, type Harness } from "../support/harness.js";

interface Counts {
  load: number;
  one: string[];
}

const NAMES: ReadonlyArray<readonly [string, string, string, boolean]> = [
  ["ATLAS_FIND_ROUTE", "Find route", "Plans a route between two places.", false],
  ["ATLAS_SEND_POSTCARD", "Send postcard", "Mails a postcard to an address.", true],
  ["ATLAS_GET_MAP", "Get map", "Gives the map of a region.", true],
  ...Array.from(
    { length: 27 },
    (_, i) => [`ATLAS_FILLER_${String(i).padStart(2, "0")}`, `Filler ${i}`, "Does nothing much.", false] as const,
  ),
];

function atlasTools(): Tool[] {
  return NAMES.map(([slug, name, description, isDefault]) =>
    defineTool({
      slug,
      name,
      description,
      default: isDefault,
      input: z.object({ to: z.string().optional() }),
      annotations: { readOnly: true },
      run: async (args, ctx) => ({ tool: slug, args, upstream: await (await ctx.fetch("/echo")).json() }),
    }),
  );
}

/** A lazy source that counts what it loads. */
function lazySource(counts: Counts, withLoadTool = true): LazyTools {
  const summaries = atlasTools().map((tool) => ({
    slug: tool.slug,
    name: tool.name,
    description: tool.description,
    readOnly: true,
    ...(tool.default ? { default: true } : {}),
  }));
  return {
    count: summaries.length,
    summaries,
    async load() {
      counts.load++;
      return atlasTools();
    },
    ...(withLoadTool
      ? {
          async loadTool(slug: string) {
            counts.one.push(slug);
            return atlasTools().find((tool) => tool.slug === slug);
          },
        }
      : {}),
  };
}

const atlas = (baseUrl: string, counts: Counts, withLoadTool = true) =>
  defineToolkit({
    slug: "atlas",
    name: "Atlas",
    description: "Maps and mail.",
    baseUrl,
    auth: none(),
    tools: [],
    lazy: lazySource(counts, withLoadTool),
  });

/** Mail tools with scopes, all lazy and loadable only all at once. */
const lazyMailTools = () => [
  defineTool({ slug: "LAZYMAIL_READ", name: "Read", description: "Reads mail.", scopes: ["mail.read"], input: z.object({}), run: () => 1 }),
  defineTool({ slug: "LAZYMAIL_SEND", name: "Send", description: "Sends mail.", scopes: ["mail.send"], input: z.object({}), run: () => 2 }),
];
const lazyMail = defineToolkit({
  slug: "lazymail",
  name: "Lazy Mail",
  description: "Mail with scoped tools.",
  baseUrl: "https://lazymail.test",
  auth: oauth2({ authorizationUrl: "https://lazymail.test/authorize", tokenUrl: "https://lazymail.test/token", clientId: "c", scopes: [] }),
  tools: [],
  lazy: {
    count: 2,
    summaries: lazyMailTools().map(({ slug, name, description }) => ({ slug, name, description })),
    load: async () => lazyMailTools(),
  },
});

const postcard = defineToolkit({ slug: "postcard", name: "Postcard", description: "A postcard shop.", auth: none(), tools: [] });

let h: Harness;
let key: string;
const counts: Counts = { load: 0, one: [] };

beforeAll(async () => {
  h = await createHarness({ extraToolkits: (origins) => [atlas(`${origins.upstream}/v1`, counts), postcard, lazyMail] });
  key = (await h.issueAgentKey("agent-lazy")).key;
});
afterAll(async () => {
  await h.close();
});

describe("a lazy toolkit through the handler", () => {
  it("GET /search counts and ranks lazy tools from their summaries, loading none", async () => {
    const all = await h.call("GET", "/search?limit=200", { key });
    expect(all.json.toolkits.find((t: { slug: string }) => t.slug === "atlas").toolCount).toBe(30);
    const found = await h.call("GET", "/search?keywords=send%20postcard", { key });
    // Atlas has a tool that sends a postcard; Postcard only has the word in its name.
    expect(found.json.toolkits.map((t: { slug: string }) => t.slug).slice(0, 2)).toEqual(["atlas", "postcard"]);
    expect(counts).toEqual({ load: 0, one: [] });
  });

  it("GET /toolkit/{slug} gives the default set first and loads only the page's tools", async () => {
    const before = counts.one.length;
    const page = await h.call("GET", "/toolkit/atlas?limit=2", { key });
    expect(page.status, page.text).toBe(200);
    expect(page.json.tools.map((t: { slug: string }) => t.slug)).toEqual(["ATLAS_SEND_POSTCARD", "ATLAS_GET_MAP"]);
    expect(page.json.tools[0].inputParameters).toMatchObject({ type: "object", properties: { to: { type: "string" } } });
    expect(counts.one.slice(before)).toEqual(["ATLAS_SEND_POSTCARD", "ATLAS_GET_MAP"]);
    expect(counts.load).toBe(0);
    const next = await h.call("GET", `/toolkit/atlas?limit=200&cursor=${encodeURIComponent(page.json.nextCursor)}`, { key });
    expect(next.json.tools.map((t: { slug: string }) => t.slug)).toEqual(
      NAMES.map(([slug]) => slug).filter((s) => !s.match(/POSTCARD|MAP/)),
    );
  });

  it("GET /toolkit/{slug}/search ranks the summaries and loads the page", async () => {
    const res = await h.call("GET", "/toolkit/atlas/search?query=route&limit=5", { key });
    expect(res.status, res.text).toBe(200);
    expect(res.json.tools.map((t: { slug: string }) => t.slug)).toEqual(["ATLAS_FIND_ROUTE"]);
    expect(counts.load).toBe(0);
  });

  it("POST /execute loads the one tool it runs and sends its request", async () => {
    const res = await h.call("POST", "/execute", { key, body: { tool: "ATLAS_FILLER_26", arguments: { to: "Oslo" } } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toMatchObject({ tool: "ATLAS_FILLER_26", args: { to: "Oslo" }, upstream: { path: "/v1/echo" } });
    expect(counts.one.at(-1)).toBe("ATLAS_FILLER_26");
    expect(counts.load).toBe(0);
    const unknown = await h.call("POST", "/execute", { key, body: { tool: "ATLAS_NOPE", arguments: {} } });
    expect(unknown.status).toBe(404);
  });

  it("MCP with ?toolkits= lists every tool of the lazy toolkit, default set first", async () => {
    const res = await h.call("POST", "/mcp?toolkits=atlas", {
      key,
      headers: { accept: "application/json, text/event-stream" },
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    expect(res.status, res.text).toBe(200);
    const names = res.json.result.tools.map((t: { name: string }) => t.name);
    expect(names).toHaveLength(30);
    expect(names.slice(0, 2)).toEqual(["ATLAS_SEND_POSTCARD", "ATLAS_GET_MAP"]);
    expect(counts.load).toBe(1);
  });
});

describe("a connection's scopes over lazy tools", () => {
  it("lists and finds only the lazy tools whose scopes the connection holds", async () => {
    const reader = await h.insertConnection({
      agentId: "agent-lazy",
      toolkit: "lazymail",
      scopes: ["mail.read"],
      credential: { type: "oauth2", accessToken: "lazy-mail-token-0001" },
    });
    const listed = await h.call("GET", `/toolkit/lazymail?connection_id=${reader}`, { key });
    expect(listed.json.tools.map((t: { slug: string }) => t.slug)).toEqual(["LAZYMAIL_READ"]);
    const found = await h.call("GET", `/toolkit/lazymail/search?query=send&connection_id=${reader}`, { key });
    expect(found.json.tools).toEqual([]);
    const all = await h.call("GET", "/toolkit/lazymail/search?query=send", { key });
    expect(all.json.tools.map((t: { slug: string }) => t.slug)).toEqual(["LAZYMAIL_SEND"]);
  });
});

describe("the MCP meta-tools over a lazy toolkit", () => {
  const callMeta = async (name: string, args: Record<string, unknown>) => {
    const res = await h.call("POST", "/mcp", {
      key,
      headers: { accept: "application/json, text/event-stream" },
      body: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name, arguments: args } },
    });
    expect(res.status, res.text).toBe(200);
    return res.json.result.structuredContent ?? JSON.parse(res.json.result.content[0].text);
  };

  it("search_toolkits counts lazy tools and search_tools ranks their summaries", async () => {
    const found = await callMeta("search_toolkits", { keywords: "send postcard" });
    expect(found.toolkits[0]).toMatchObject({ slug: "atlas", toolCount: 30 });
    const tools = await callMeta("search_tools", { toolkit: "atlas", query: "map" });
    expect(tools.tools.map((t: { slug: string }) => t.slug)[0]).toBe("ATLAS_GET_MAP");
    expect(tools.tools[0].annotations).toEqual({ readOnly: true });
    const first = await callMeta("search_tools", { toolkit: "atlas", limit: 2 });
    expect(first.tools.map((t: { slug: string }) => t.slug)).toEqual(["ATLAS_SEND_POSTCARD", "ATLAS_GET_MAP"]);
  });
});

describe("lazy tools in a toolkit and a registry", () => {
  it("counts, summarises and loads eager and lazy tools together", async () => {
    const local: Counts = { load: 0, one: [] };
    const eager = defineTool({ slug: "ATLAS_EAGER", name: "Eager", description: "Made at once.", input: z.object({}), run: () => 1 });
    const toolkit = defineToolkit({ slug: "atlas", name: "Atlas", description: "", auth: none(), tools: [eager], lazy: lazySource(local) });
    expect(toolCount(toolkit)).toBe(31);
    expect(toolSummaries(toolkit)[0]).toEqual({ slug: "ATLAS_EAGER", name: "Eager", description: "Made at once." });
    expect(local.load).toBe(0);
    const [first, second] = await Promise.all([allTools(toolkit), allTools(toolkit)]);
    expect(first.map((t) => t.slug)).toEqual(second.map((t) => t.slug));
    expect(first).toHaveLength(31);
    expect(local.load).toBe(1);
  });

  it("loads every lazy tool once for getTool when the source cannot load one", async () => {
    const local: Counts = { load: 0, one: [] };
    const registry = createToolkitRegistry([atlas("https://atlas.test", local, false)]);
    expect((await registry.getTool("ATLAS_GET_MAP"))?.tool.slug).toBe("ATLAS_GET_MAP");
    expect((await registry.getTool("ATLAS_FIND_ROUTE"))?.toolkit.slug).toBe("atlas");
    expect(local.load).toBe(1);
    expect(await registry.getTool("ATLAS_NONE")).toBeNull();
  });

  it("refuses a count that is not the summaries', a repeated slug, and a slug another toolkit has", () => {
    const local: Counts = { load: 0, one: [] };
    const lazy = lazySource(local);
    const base = { slug: "atlas", name: "Atlas", description: "", auth: none() };
    expect(() => defineToolkit({ ...base, tools: [], lazy: { ...lazy, count: 3 } })).toThrow(/lazy.count is 3 but lazy.summaries has 30/);
    const clash = defineTool({ slug: "ATLAS_GET_MAP", name: "Map", description: "", input: z.object({}), run: () => 1 });
    expect(() => defineToolkit({ ...base, tools: [clash], lazy })).toThrow(/defines tool "ATLAS_GET_MAP" twice/);
    expect(() =>
      defineToolkit({ ...base, tools: [], lazy: { ...lazy, summaries: [{ slug: "bad slug", name: "", description: "" }], count: 1 } }),
    ).toThrow(/Tool slug "bad slug" is invalid/);
    const other = defineToolkit({ slug: "other", name: "Other", description: "", auth: none(), tools: [clash] });
    expect(() => createToolkitRegistry([defineToolkit({ ...base, tools: [], lazy }), other])).toThrow(
      /Tool slug "ATLAS_GET_MAP" is defined by both "atlas" and "other"/,
    );
    expect(local.load).toBe(0);
  });
});

toolkitRegistryConformance("createToolkitRegistry with a lazy toolkit", () =>
  createToolkitRegistry([atlas("https://atlas.test", { load: 0, one: [] }), postcard]),
);
toolkitRegistryConformance("createToolkitRegistry with a lazy toolkit that loads all at once", () =>
  createToolkitRegistry([atlas("https://atlas.test", { load: 0, one: [] }, false)]),
);
