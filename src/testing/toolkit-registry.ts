import { beforeEach, describe, expect, it } from "vitest";
import type { Toolkit } from "../toolkits/define.js";
import { allTools, toolCount, toolSummaries } from "../toolkits/lazy.js";
import type { ToolkitRegistry } from "../toolkits/registry.js";

/** Slugs of every tool of the toolkit, eager and lazy (loaded). */
const slugsOf = async (toolkit: Toolkit) => (await allTools(toolkit)).map((tool) => tool.slug);

/**
 * Registers a vitest suite that checks the `ToolkitRegistry` contract against the registry
 * `factory` returns (a fresh one per test).
 *
 * The suite is generic: it asserts over whatever toolkits the registry holds, so the registry
 * must hold at least one toolkit with at least one tool (an empty registry fails the first test).
 * A toolkit's tools are its `tools` and its lazy ones (loaded with `allTools`).
 */
export function toolkitRegistryConformance(name: string, factory: () => ToolkitRegistry | Promise<ToolkitRegistry>): void {
  describe(`ToolkitRegistry conformance: ${name}`, () => {
    let registry: ToolkitRegistry;
    beforeEach(async () => {
      registry = await factory();
    });

    it("holds at least one toolkit with at least one tool (the suite needs something to check)", async () => {
      const toolkits = await registry.list();
      expect(toolkits.length, "list() returns at least one toolkit: the suite checks the toolkits the registry holds").toBeGreaterThan(0);
      expect(
        toolkits.some((toolkit) => toolCount(toolkit) > 0),
        "at least one toolkit of list() has a tool: the suite checks the tools the registry holds",
      ).toBe(true);
    });

    it("lists the same toolkits in the same order on every call", async () => {
      const slugs = async () => (await registry.list()).map((toolkit) => toolkit.slug);
      const first = await slugs();
      expect(await slugs(), "a second list() returns the same toolkits in the same order").toEqual(first);
      expect(await Promise.all([slugs(), slugs()]), "concurrent list() calls return the same toolkits in the same order").toEqual([
        first,
        first,
      ]);
    });

    it("has unique toolkit slugs, and tool slugs unique across all toolkits", async () => {
      const toolkits = await registry.list();
      const toolkitSlugs = toolkits.map((toolkit) => toolkit.slug);
      const toolSlugs = (await Promise.all(toolkits.map(slugsOf))).flat();
      expect(new Set(toolkitSlugs).size, `list() returns each toolkit slug once (got ${toolkitSlugs.join(", ")})`).toBe(
        toolkitSlugs.length,
      );
      expect(new Set(toolSlugs).size, "each tool slug appears once across all toolkits of list(): getTool(slug) must find one tool").toBe(
        toolSlugs.length,
      );
    });

    it("returns every listed toolkit from get(slug)", async () => {
      for (const toolkit of await registry.list()) {
        const found = await registry.get(toolkit.slug);
        expect(found?.slug, `get("${toolkit.slug}") returns the toolkit list() gives under that slug`).toBe(toolkit.slug);
        expect(
          await slugsOf(found!),
          `get("${toolkit.slug}") returns the toolkit with the same tools, in the same order, as list()`,
        ).toEqual(await slugsOf(toolkit));
      }
    });

    it("summarises every tool as it loads: the same slugs, names and count", async () => {
      for (const toolkit of await registry.list()) {
        const tools = await allTools(toolkit);
        expect(
          toolSummaries(toolkit).map((summary) => [summary.slug, summary.name]),
          `the summaries of "${toolkit.slug}" name the tools it loads, in the same order`,
        ).toEqual(tools.map((tool) => [tool.slug, tool.name]));
        expect(toolCount(toolkit), `toolCount of "${toolkit.slug}" is the number of tools it loads`).toBe(tools.length);
      }
    });

    it("returns every tool from getTool(slug), with the toolkit that lists it", async () => {
      for (const toolkit of await registry.list()) {
        for (const tool of await allTools(toolkit)) {
          const found = await registry.getTool(tool.slug);
          expect(found?.tool.slug, `getTool("${tool.slug}") returns the tool list() gives under that slug`).toBe(tool.slug);
          expect(found!.toolkit.slug, `getTool("${tool.slug}") returns the toolkit that lists it, "${toolkit.slug}"`).toBe(toolkit.slug);
          expect(await slugsOf(found!.toolkit), `the toolkit getTool("${tool.slug}") returns lists that tool among its tools`).toContain(
            tool.slug,
          );
        }
      }
    });

    it("gives every tool an object JSON Schema as inputParameters", async () => {
      for (const toolkit of await registry.list()) {
        for (const tool of await allTools(toolkit)) {
          expect(tool.inputParameters, `tool "${tool.slug}" has inputParameters, a JSON Schema with type "object"`).toMatchObject({
            type: "object",
          });
        }
      }
    });

    it("returns null for unknown toolkit and tool slugs", async () => {
      const unknown = `no-such-slug-${crypto.randomUUID()}`;
      expect(await registry.get(unknown), "get() of an unknown toolkit slug returns null, not an error").toBeNull();
      expect(await registry.getTool(unknown), "getTool() of an unknown tool slug returns null, not an error").toBeNull();
      expect(await registry.get(""), 'get("") returns null, not an error').toBeNull();
      expect(await registry.getTool(""), 'getTool("") returns null, not an error').toBeNull();
    });

    it("matches slugs case-sensitively (checked on slugs that have letters)", async () => {
      const toolkits = await registry.list();
      const toolkitSlugs = new Set(toolkits.map((toolkit) => toolkit.slug));
      const toolSlugs = new Set((await Promise.all(toolkits.map(slugsOf))).flat());
      for (const slug of toolkitSlugs) {
        for (const variant of caseVariants(slug, toolkitSlugs)) {
          expect(
            await registry.get(variant),
            `get("${variant}") returns null: slugs match case-sensitively, and "${slug}" is the toolkit`,
          ).toBeNull();
        }
      }
      for (const slug of toolSlugs) {
        for (const variant of caseVariants(slug, toolSlugs)) {
          expect(
            await registry.getTool(variant),
            `getTool("${variant}") returns null: slugs match case-sensitively, and "${slug}" is the tool`,
          ).toBeNull();
        }
      }
    });
  });
}

/** Spellings of `slug` that differ from it only in case and are not themselves registered. */
function caseVariants(slug: string, registered: Set<string>): string[] {
  const swapped = [...slug].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("");
  return [...new Set([slug.toUpperCase(), slug.toLowerCase(), swapped])].filter((variant) => !registered.has(variant));
}
