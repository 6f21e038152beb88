import { beforeEach, describe, expect, it } from "vitest";
import type { ToolkitRegistry } from "../toolkits/registry.js";

/**
 * Registers a vitest suite that checks the `ToolkitRegistry` contract against the registry
 * `factory` returns (a fresh one per test).
 *
 * The suite is generic: it asserts over whatever toolkits the registry holds, so the registry
 * must hold at least one toolkit with at least one tool (an empty registry fails the first test).
 */
export function toolkitRegistryConformance(name: string, factory: () => ToolkitRegistry | Promise<ToolkitRegistry>): void {
  describe(`ToolkitRegistry conformance: ${name}`, () => {
    let registry: ToolkitRegistry;
    beforeEach(async () => {
      registry = await factory();
    });

    it("holds at least one toolkit with at least one tool (the suite needs something to check)", async () => {
      const toolkits = await registry.list();
      expect(toolkits.length).toBeGreaterThan(0);
      expect(toolkits.some((toolkit) => toolkit.tools.length > 0)).toBe(true);
    });

    it("lists the same toolkits in the same order on every call", async () => {
      const slugs = async () => (await registry.list()).map((toolkit) => toolkit.slug);
      const first = await slugs();
      expect(await slugs()).toEqual(first);
      expect(await Promise.all([slugs(), slugs()])).toEqual([first, first]);
    });

    it("has unique toolkit slugs, and tool slugs unique across all toolkits", async () => {
      const toolkits = await registry.list();
      const toolkitSlugs = toolkits.map((toolkit) => toolkit.slug);
      const toolSlugs = toolkits.flatMap((toolkit) => toolkit.tools.map((tool) => tool.slug));
      expect(new Set(toolkitSlugs).size).toBe(toolkitSlugs.length);
      expect(new Set(toolSlugs).size).toBe(toolSlugs.length);
    });

    it("returns every listed toolkit from get(slug)", async () => {
      for (const toolkit of await registry.list()) {
        const found = await registry.get(toolkit.slug);
        expect(found?.slug).toBe(toolkit.slug);
        expect(found!.tools.map((tool) => tool.slug)).toEqual(toolkit.tools.map((tool) => tool.slug));
      }
    });

    it("returns every tool from getTool(slug), with the toolkit that lists it", async () => {
      for (const toolkit of await registry.list()) {
        for (const tool of toolkit.tools) {
          const found = await registry.getTool(tool.slug);
          expect(found?.tool.slug).toBe(tool.slug);
          expect(found!.toolkit.slug).toBe(toolkit.slug);
          expect(found!.toolkit.tools.map((t) => t.slug)).toContain(tool.slug);
        }
      }
    });

    it("gives every tool an object JSON Schema as inputParameters", async () => {
      for (const toolkit of await registry.list()) {
        for (const tool of toolkit.tools) expect(tool.inputParameters).toMatchObject({ type: "object" });
      }
    });

    it("returns null for unknown toolkit and tool slugs", async () => {
      const unknown = `no-such-slug-${crypto.randomUUID()}`;
      expect(await registry.get(unknown)).toBeNull();
      expect(await registry.getTool(unknown)).toBeNull();
      expect(await registry.get("")).toBeNull();
      expect(await registry.getTool("")).toBeNull();
    });

    it("matches slugs case-sensitively (checked on slugs that have letters)", async () => {
      const toolkits = await registry.list();
      const toolkitSlugs = new Set(toolkits.map((toolkit) => toolkit.slug));
      const toolSlugs = new Set(toolkits.flatMap((toolkit) => toolkit.tools.map((tool) => tool.slug)));
      for (const slug of toolkitSlugs) {
        for (const variant of caseVariants(slug, toolkitSlugs)) expect(await registry.get(variant)).toBeNull();
      }
      for (const slug of toolSlugs) {
        for (const variant of caseVariants(slug, toolSlugs)) expect(await registry.getTool(variant)).toBeNull();
      }
    });
  });
}

/** Spellings of `slug` that differ from it only in case and are not themselves registered. */
function caseVariants(slug: string, registered: Set<string>): string[] {
  const swapped = [...slug].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("");
  return [...new Set([slug.toUpperCase(), slug.toLowerCase(), swapped])].filter((variant) => !registered.has(variant));
}
