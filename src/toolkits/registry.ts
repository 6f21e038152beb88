import { ToolsError } from "../core/errors.js";
import type { Awaitable } from "../core/principal.js";
import { defineToolkit, type Tool, type Toolkit, type ToolkitDefinition } from "./define.js";

/**
 * Where the handler finds toolkits and their tools.
 *
 * Contract, checked by `toolkitRegistryConformance` from `tools-proxy/testing`:
 * - Every method may return a value or a Promise.
 * - `list` returns every toolkit, in a stable order.
 * - `get` and `getTool` return null for an unknown slug; slugs are matched exactly (case-sensitive).
 * - Tool slugs are unique across all toolkits: `getTool(slug)` names at most one toolkit, and it
 *   is the toolkit whose `tools` contain that tool.
 */
export interface ToolkitRegistry {
  list(): Awaitable<Toolkit[]>;
  get(slug: string): Awaitable<Toolkit | null>;
  getTool(slug: string): Awaitable<{ toolkit: Toolkit; tool: Tool } | null>;
}

/** The toolkit with this slug, or a 404 that says how to find one. */
export async function requireToolkit(registry: ToolkitRegistry, slug: string, basePath: string): Promise<Toolkit> {
  const toolkit = await registry.get(slug);
  if (!toolkit) throw new ToolsError("not_found", `No toolkit "${slug}". Find toolkits with GET ${basePath}/search?keywords=...`);
  return toolkit;
}

/** The tool with this slug and its toolkit, or a 404 that says how to find one. */
export async function requireTool(registry: ToolkitRegistry, slug: string, basePath: string): Promise<{ toolkit: Toolkit; tool: Tool }> {
  const found = await registry.getTool(slug);
  if (!found) throw new ToolsError("not_found", `No tool "${slug}". Find tools with GET ${basePath}/toolkit/{toolkit}/search?query=...`);
  return found;
}

/**
 * The built-in registry: a fixed set of toolkits held in memory. Throws at creation when two
 * toolkits share a slug or two tools anywhere share a slug.
 */
export function createToolkitRegistry(toolkits: Array<Toolkit | ToolkitDefinition>): ToolkitRegistry {
  const bySlug = new Map<string, Toolkit>();
  const byTool = new Map<string, { toolkit: Toolkit; tool: Tool }>();
  for (const input of toolkits) {
    const toolkit = "kind" in input && input.kind === "toolkit" ? input : defineToolkit(input);
    if (bySlug.has(toolkit.slug)) throw new TypeError(`Two toolkits have the slug "${toolkit.slug}"; toolkit slugs must be unique.`);
    bySlug.set(toolkit.slug, toolkit);
    for (const tool of toolkit.tools) {
      const other = byTool.get(tool.slug);
      if (other) {
        throw new TypeError(
          `Tool slug "${tool.slug}" is defined by both "${other.toolkit.slug}" and "${toolkit.slug}"; ` +
            "tool slugs must be unique across toolkits.",
        );
      }
      byTool.set(tool.slug, { toolkit, tool });
    }
  }
  const all = [...bySlug.values()];
  return {
    // A copy, so a caller that sorts or filters the answer in place cannot reorder the registry.
    list: () => [...all],
    get: (slug) => bySlug.get(slug) ?? null,
    getTool: (slug) => byTool.get(slug) ?? null,
  };
}
