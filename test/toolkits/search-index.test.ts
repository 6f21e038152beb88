/**
 * The search index gives the order `rank` gives by reading every field: the same points, phrases,
 * prefixes, exact slugs, tool bonus and ties, over the catalog's toolkits and their curated tools.
 */
import { describe, expect, it } from "vitest";
import { catalogToolkit, providers } from "../../src/catalog/index.js";
import type { Toolkit } from "../../src/index.js";
import { toolSummaries } from "../../src/toolkits/lazy.js";
import { rank, searchIndex, searchToolkits, searchTools } from "../../src/toolkits/search.js";

const toolkits = providers.map((provider) => catalogToolkit(provider.slug, { clientId: "id" }));

/** Toolkit search as `rank` does it over every tool's text, without an index. */
function scanToolkits(list: readonly Toolkit[], keywords: string): string[] {
  return rank(list, keywords, (toolkit) => ({
    ...toolkit,
    related: toolSummaries(toolkit).flatMap((tool) => [tool.name, tool.description]),
    tools: toolSummaries(toolkit).map((tool) => `${tool.slug} ${tool.name}`),
  })).map((toolkit) => toolkit.slug);
}

const QUERIES = [
  "github",
  "GitHub",
  "gh",
  "google mail",
  "send an email",
  "send email",
  "create a calendar event",
  "calendar",
  "tickets",
  "crm",
  "project management",
  "files",
  "upload file",
  "search the web",
  "list issues",
  "create issue",
  "pay",
  "lists",
  "comments",
  "social",
  "ai",
  "in",
  "the and",
  "a",
  "ge",
  "messages channel",
  "zoho-crm",
  "GMAIL_SEND_EMAIL",
  "spreadsheet rows",
  "unknownword",
];

describe("the search index", () => {
  it.each(QUERIES)("ranks toolkits for %j as rank does", (query) => {
    expect(searchToolkits(toolkits, query).map((t) => t.slug)).toEqual(scanToolkits(toolkits, query));
  });

  it.each(QUERIES)("ranks each toolkit's tools for %j as rank does", (query) => {
    for (const toolkit of toolkits.filter((t) => t.tools.length > 0)) {
      const expected = rank(toolSummaries(toolkit), query, (tool) => tool).map((tool) => tool.slug);
      expect(
        searchTools(toolkit, query).map((tool) => tool.slug),
        toolkit.slug,
      ).toEqual(expected);
    }
  });

  it("ranks a toolkit's tools alike when no list of toolkits holding it was indexed", () => {
    const alone = catalogToolkit("gmail", { clientId: "other" });
    const expected = rank(toolSummaries(alone), "send email", (tool) => tool).map((tool) => tool.slug);
    expect(expected.length).toBeGreaterThan(0);
    expect(searchTools(alone, "send email").map((tool) => tool.slug)).toEqual(expected);
  });

  it("is made once per list of toolkits and made again for another list", () => {
    expect(searchIndex(toolkits)).toBe(searchIndex([...toolkits]));
    expect(searchIndex(toolkits.slice(1))).not.toBe(searchIndex(toolkits));
  });
});
