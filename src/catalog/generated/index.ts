/**
 * Generated tools of the catalog's providers, made from their published OpenAPI documents by
 * `npm run catalog:tools` (scripts/catalog-tools.ts; the documents are listed in sources.json).
 * The eager index (summaries.ts) holds counts and summaries as text, parsed when first read; each
 * provider's tools are a module of their own, loaded by a dynamic `import()` on first use, so that
 * bundlers split them and memory goes only to the providers used. No file system is read.
 */
import type { AuthScheme } from "../../credentials/auth-schemes.js";
import type { Tool } from "../../toolkits/define.js";
import { defineJsonTools } from "../../toolkits/json.js";
import { generatedIndex } from "./summaries.js";
import type { GeneratedModule, GeneratedTool, LazyTools, ToolSummary } from "./types.js";

export type { GeneratedEntry, LazyTools, ToolSummary } from "./types.js";

/** The toolkit the tools are attached to: their requests use its base URLs and auth. */
export interface GeneratedTarget {
  slug: string;
  baseUrls: readonly string[];
  authModes: readonly AuthScheme[];
}

/** The slugs of the providers that have generated tools, with how many and from which document. */
export function generatedSources(): Array<{ slug: string; count: number; source: string }> {
  return Object.entries(generatedIndex).map(([slug, entry]) => ({ slug, count: entry.count, source: entry.source }));
}

/**
 * The generated tools of the catalog provider `slug`, attached to `toolkit` (its base URLs, with a
 * deployer's override, and its auth), or undefined when the provider has none. Nothing is loaded
 * until `summaries`, `load` or `loadTool` is used; `load` makes every tool once and keeps them.
 */
export function generatedTools(slug: string, toolkit: GeneratedTarget): LazyTools | undefined {
  const entry = Object.hasOwn(generatedIndex, slug) ? generatedIndex[slug] : undefined;
  if (!entry) return undefined;
  let summaries: ToolSummary[] | undefined;
  let module: Promise<GeneratedModule> | undefined;
  let all: Promise<Tool[]> | undefined;
  // A load that fails (a chunk that did not arrive) is tried again on the next call.
  const moduleOf = () =>
    (module ??= entry.load().then(
      (loaded) => JSON.parse(loaded.default) as GeneratedModule,
      (error) => {
        module = undefined;
        throw error;
      },
    ));
  const load = () =>
    (all ??= moduleOf().then(
      (data) => toolsOf(data.tools, data.defs, toolkit),
      (error) => {
        all = undefined;
        throw error;
      },
    ));
  return {
    count: entry.count,
    get summaries() {
      summaries ??= (JSON.parse(entry.summaries) as Array<[string, string, string, number]>).map(summaryOf);
      return summaries;
    },
    load,
    // One tool is made alone (its validator and schema), not the provider's thousand.
    loadTool: async (wanted) => {
      const data = await moduleOf();
      const tool = data.tools.find((candidate) => candidate.slug === wanted);
      return tool && toolsOf([tool], data.defs, toolkit)[0];
    },
  };
}

function summaryOf([slug, name, description, flags]: [string, string, string, number]): ToolSummary {
  return { slug, name, description, readOnly: (flags & 1) !== 0, destructive: (flags & 2) !== 0, ...(flags & 4 ? { default: true } : {}) };
}

/** Generated tools as JSON toolkit tools, with their shared definitions and annotations, made into `Tool`s. */
function toolsOf(tools: GeneratedTool[], defs: GeneratedModule["defs"], toolkit: GeneratedTarget): Tool[] {
  const json = tools.map((tool) => jsonTool(tool, defs, toolkit.baseUrls));
  return defineJsonTools(json, { slug: toolkit.slug, baseUrls: toolkit.baseUrls, auth: toolkit.authModes });
}

function jsonTool({ base, defs, inputParameters, ...tool }: GeneratedTool, shared: GeneratedModule["defs"], baseUrls: readonly string[]) {
  const { method } = tool;
  return {
    ...tool,
    ...(base ? { baseUrl: baseUrls[base] ?? baseUrls[0] } : {}),
    // The shared definitions join those the tool keeps as its own (a name the provider's tools define differently).
    inputParameters: defs
      ? {
          ...inputParameters,
          $defs: { ...(inputParameters.$defs as object), ...Object.fromEntries(defs.map((name) => [name, shared[name]])) },
        }
      : inputParameters,
    annotations: {
      readOnly: method === "GET" || method === "HEAD" || method === "OPTIONS",
      destructive: method === "DELETE",
      idempotent: method !== "POST" && method !== "PATCH",
      openWorld: true,
    },
  };
}
