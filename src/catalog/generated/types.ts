/**
 * The shapes of generated tools: what search knows of a tool without loading it (`ToolSummary`),
 * what a toolkit holds to load its tools on demand (`LazyTools`), and the data a generated module
 * holds (`GeneratedModule`), written by scripts/catalog-tools.ts.
 */
import type { JsonSchema } from "../../toolkits/define.js";

export type { LazyTools, ToolSummary } from "../../toolkits/lazy.js";

/** One generated tool as its module stores it: a JSON toolkit tool, without what the loader derives. */
export interface GeneratedTool {
  slug: string;
  name: string;
  description: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";
  /** Relative to the provider toolkit's base URL number `base` (default 0), whatever its deployer set it to. */
  path: string;
  base?: number;
  /** The input schema without `$defs`; `defs` names the module's shared definitions it refers to. */
  inputParameters: JsonSchema & { type: "object" };
  defs?: string[];
  request: { parameters?: Array<Record<string, unknown>>; body?: Record<string, unknown> };
}

/** A generated module: the provider's tools and the schema definitions they share. */
export interface GeneratedModule {
  defs: Record<string, JsonSchema>;
  tools: GeneratedTool[];
}

/** A provider's entry of the eager index: what it counts and says, and how to load the rest. */
export interface GeneratedEntry {
  count: number;
  /** Where the tools come from: package, version, path, and the document's own version. */
  source: string;
  /** `[slug, name, description, flags]` per tool, as JSON; flags: 1 read-only, 2 destructive, 4 default. */
  summaries: string;
  load(): Promise<{ default: string }>;
}
