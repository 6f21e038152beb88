import type { Tool, Toolkit } from "./define.js";

/**
 * What search and listings know of a tool without loading it: its slug, name, description, the
 * read-only and destructive hints, and whether it is in the toolkit's default set.
 */
export interface ToolSummary {
  slug: string;
  name: string;
  description: string;
  readOnly?: boolean;
  destructive?: boolean;
  /** In the default set: listed first when an agent asks for a toolkit's tools without a query. */
  default?: boolean;
}

/**
 * Tools a toolkit loads only when they are used, for toolkits of thousands of tools (an imported
 * API description, a generated catalog provider). Search and counts read `summaries` and never load.
 *
 * Contract: `summaries` has `count` entries, one per tool `load()` gives, with the same slugs (in
 * the same order); `load()` may be called more than once and the caller keeps its answer (see
 * `allTools`); `loadTool(slug)` gives the same tool `load()` would, or undefined for a slug that is
 * not one of `summaries`. A load that rejects is tried again on the next call.
 */
export interface LazyTools {
  /** How many tools `load()` gives. */
  count: number;
  summaries: readonly ToolSummary[];
  /** Every tool, made once; the caller caches the answer. */
  load(): Promise<Tool[]>;
  /** One tool without the rest, where the source can (a file per tool, a byte range). */
  loadTool?(slug: string): Promise<Tool | undefined>;
}

/** How many tools the toolkit has, eager and lazy, without loading any. */
export function toolCount(toolkit: Toolkit): number {
  return toolkit.tools.length + (toolkit.lazy?.count ?? 0);
}

const summaryCache = new WeakMap<Toolkit, readonly ToolSummary[]>();

/** The summary of a loaded tool. */
export function summaryOf(tool: Tool): ToolSummary {
  const { readOnly, destructive } = tool.annotations ?? {};
  return {
    slug: tool.slug,
    name: tool.name,
    description: tool.description,
    ...(readOnly !== undefined ? { readOnly } : {}),
    ...(destructive !== undefined ? { destructive } : {}),
    ...(tool.default ? { default: true } : {}),
  };
}

/** Every tool's summary, eager tools first, without loading any (kept per toolkit). */
export function toolSummaries(toolkit: Toolkit): readonly ToolSummary[] {
  if (!toolkit.lazy) return toolkit.tools.map(summaryOf);
  let summaries = summaryCache.get(toolkit);
  if (!summaries) {
    summaries = [...toolkit.tools.map(summaryOf), ...toolkit.lazy.summaries];
    summaryCache.set(toolkit, summaries);
  }
  return summaries;
}

const loaded = new WeakMap<LazyTools, Promise<Tool[]>>();
const loadedOne = new WeakMap<LazyTools, Map<string, Promise<Tool | undefined>>>();

/** Every tool of the toolkit, eager then lazy; the lazy ones are loaded once and kept. */
export async function allTools(toolkit: Toolkit): Promise<Tool[]> {
  const lazy = toolkit.lazy;
  if (!lazy) return toolkit.tools;
  return [...toolkit.tools, ...(await loadLazy(lazy))];
}

function loadLazy(lazy: LazyTools): Promise<Tool[]> {
  let promise = loaded.get(lazy);
  if (!promise) {
    promise = lazy.load();
    loaded.set(lazy, promise);
    // A failed load is tried again by the next caller.
    promise.catch(() => loaded.delete(lazy));
  }
  return promise;
}

/**
 * The toolkit's tool with this slug, loading only that tool where the source can (`loadTool`),
 * else every lazy tool once. Undefined when the toolkit has no such tool.
 */
export async function findTool(toolkit: Toolkit, slug: string): Promise<Tool | undefined> {
  const eager = toolkit.tools.find((tool) => tool.slug === slug);
  if (eager || !toolkit.lazy) return eager;
  const lazy = toolkit.lazy;
  if (!lazy.summaries.some((summary) => summary.slug === slug)) return undefined;
  const all = loaded.get(lazy);
  if (all || !lazy.loadTool) return (await (all ?? loadLazy(lazy))).find((tool) => tool.slug === slug);
  let ones = loadedOne.get(lazy);
  if (!ones) {
    ones = new Map();
    loadedOne.set(lazy, ones);
  }
  let one = ones.get(slug);
  if (!one) {
    one = lazy.loadTool(slug);
    ones.set(slug, one);
    one.catch(() => ones.delete(slug));
  }
  return one;
}

/**
 * The tools with these slugs, in this order (a page of a listing): one by one where the source
 * can load one tool, else from every tool. Slugs the toolkit does not have are skipped.
 */
export async function toolsBySlug(toolkit: Toolkit, slugs: readonly string[]): Promise<Tool[]> {
  if (toolkit.lazy?.loadTool && !loaded.has(toolkit.lazy)) {
    const found = await Promise.all(slugs.map((slug) => findTool(toolkit, slug)));
    return found.filter((tool): tool is Tool => tool !== undefined);
  }
  const bySlug = new Map((await allTools(toolkit)).map((tool) => [tool.slug, tool]));
  return slugs.map((slug) => bySlug.get(slug)).filter((tool): tool is Tool => tool !== undefined);
}

/**
 * The order an agent that asks for a toolkit's tools without a query gets them: the default set
 * (tools marked `default: true`) first, then the others, each in the toolkit's order. A toolkit
 * that marks none keeps its order.
 */
export function defaultFirst<T extends { default?: boolean }>(tools: readonly T[]): T[] {
  const marked = tools.filter((tool) => tool.default);
  if (marked.length === 0) return [...tools];
  return [...marked, ...tools.filter((tool) => !tool.default)];
}

/**
 * Checks a toolkit's lazy tools as `defineToolkit` checks its eager ones: `count` is the number of
 * summaries, each slug is valid (`isSlug`) and is neither repeated nor one of the eager tools.
 */
export function assertLazyTools(toolkit: string, lazy: LazyTools, eager: readonly Tool[], isSlug: (slug: string) => boolean): void {
  if (lazy.count !== lazy.summaries.length) {
    throw new TypeError(
      `Toolkit "${toolkit}": lazy.count is ${lazy.count} but lazy.summaries has ${lazy.summaries.length}; give one summary per tool.`,
    );
  }
  const seen = new Set(eager.map((tool) => tool.slug));
  for (const summary of lazy.summaries) {
    if (!isSlug(summary.slug)) {
      throw new TypeError(`Tool slug "${summary.slug}" is invalid: use letters, digits, "_", "." or "-" (at most 128).`);
    }
    if (seen.has(summary.slug)) throw new TypeError(`Toolkit "${toolkit}" defines tool "${summary.slug}" twice.`);
    seen.add(summary.slug);
  }
}
