import { ToolsError } from "../core/errors.js";
import type { Awaitable } from "../core/principal.js";
import { defineToolkit, type Tool, type Toolkit, type ToolkitDefinition } from "./define.js";
import { findTool, toolSummaries } from "./lazy.js";

/**
 * Where the handler finds toolkits and their tools.
 *
 * Contract, checked by `toolkitRegistryConformance` from `tools-proxy/testing`:
 * - Every method may return a value or a Promise.
 * - `list` returns every toolkit, in a stable order.
 * - `get` and `getTool` return null for an unknown slug; slugs are matched exactly (case-sensitive).
 * - A remote MCP toolkit (`remote`) lists its tools per connection as `<its slug>.<remote name>`:
 *   no other toolkit has a tool slug that starts with its slug and a dot.
 * - Tool slugs are unique across all toolkits: `getTool(slug)` names at most one toolkit, and it
 *   is the toolkit whose tools (`tools` and its `lazy` ones, see `allTools`) contain that tool.
 * - A toolkit's lazy tools are loaded only by `getTool` of one of them, or by a caller of `allTools`:
 *   `list` and `get` load none.
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
 * toolkits share a slug or two tools anywhere share a slug (lazy tools by their summaries, so
 * nothing is loaded). `getTool` of a lazy tool loads that tool only (or its toolkit's lazy tools,
 * once, where the source cannot load one).
 */
export function createToolkitRegistry(toolkits: Array<Toolkit | ToolkitDefinition>): ToolkitRegistry {
  const bySlug = new Map<string, Toolkit>();
  // A lazy tool's entry has no `tool` until `getTool` loads it.
  const byTool = new Map<string, { toolkit: Toolkit; tool?: Tool }>();
  for (const input of toolkits) {
    const toolkit = "kind" in input && input.kind === "toolkit" ? input : defineToolkit(input);
    if (bySlug.has(toolkit.slug)) throw new TypeError(`Two toolkits have the slug "${toolkit.slug}"; toolkit slugs must be unique.`);
    bySlug.set(toolkit.slug, toolkit);
    const eager = new Map(toolkit.tools.map((tool) => [tool.slug, tool]));
    for (const { slug } of toolSummaries(toolkit)) {
      const other = byTool.get(slug);
      if (other) {
        throw new TypeError(
          `Tool slug "${slug}" is defined by both "${other.toolkit.slug}" and "${toolkit.slug}"; tool slugs must be unique across toolkits.`,
        );
      }
      const tool = eager.get(slug);
      byTool.set(slug, tool ? { toolkit, tool } : { toolkit });
    }
  }
  assertRemotePrefixesFree(bySlug, byTool.keys());
  const all = [...bySlug.values()];
  return {
    // A copy, so a caller that sorts or filters the answer in place cannot reorder the registry.
    list: () => [...all],
    get: (slug) => bySlug.get(slug) ?? null,
    getTool: (slug) => {
      const found = byTool.get(slug);
      if (!found) return null;
      // An eager tool is answered at once, as before lazy tools existed.
      if (found.tool) return { toolkit: found.toolkit, tool: found.tool };
      return findTool(found.toolkit, slug).then((tool) => (tool ? { toolkit: found.toolkit, tool } : null));
    },
  };
}

/**
 * Refuses a static tool slug under a remote MCP toolkit's prefix (`linear.` for `linear`): the
 * remote toolkit's tools are named so, per connection, and a call to such a slug goes to it.
 */
function assertRemotePrefixesFree(toolkits: Map<string, Toolkit>, toolSlugs: Iterable<string>): void {
  const remote = [...toolkits.values()].filter((toolkit) => toolkit.remote);
  if (remote.length === 0) return;
  for (const slug of toolSlugs) {
    const owner = remote.find((toolkit) => slug.startsWith(`${toolkit.slug}.`));
    if (owner) {
      throw new TypeError(
        `Tool slug "${slug}" starts with "${owner.slug}.", the prefix of the remote MCP toolkit "${owner.slug}"'s tools; rename the tool.`,
      );
    }
  }
}

/** The remote MCP toolkit whose tools' prefix `slug` starts with (`linear` for `linear.create_issue`), if any. */
export async function remoteToolkitOf(registry: ToolkitRegistry, slug: string): Promise<Toolkit | null> {
  const dot = slug.indexOf(".");
  if (dot <= 0) return null;
  const toolkit = await registry.get(slug.slice(0, dot));
  return toolkit?.remote ? toolkit : null;
}
