import { describe, expect, it } from "vitest";
import { catalogToolkit } from "../../src/catalog/index.js";
import { STAGED_FILE_FORMAT } from "../../src/index.js";
import type { ToolContext } from "../../src/toolkits/define.js";

/** The ten apps agents use most each have curated tools a model can act on. */

const APPS = [
  "github",
  "slack",
  "gmail",
  "google-calendar",
  "google-drive",
  "notion",
  "linear",
  "jira",
  "hubspot",
  "outlook",
  "google-sheets",
  "google-docs",
  "youtube",
  "airtable",
  "asana",
  "zendesk",
  "salesforce",
  "discord",
  "x",
  "supabase",
];
/** Lists the provider's API returns whole, without pages: their tools take no cursor. */
const UNPAGED = new Set([
  "GMAIL_LIST_LABELS", // users.labels.list answers every label at once
  "JIRA_LIST_TRANSITIONS", // an issue's transitions come in one answer
  "LINEAR_LIST_WORKFLOW_STATES", // a team's workflow states: a handful, fetched at the largest page
  "DISCORD_LIST_CHANNELS", // a server's channels come in one answer
  "SUPABASE_LIST_ORGANIZATIONS", // the Management API answers every organization at once
  "SUPABASE_LIST_PROJECTS", // and every project
  "SUPABASE_LIST_EDGE_FUNCTIONS", // and every function of a project
  "SALESFORCE_SEARCH_RECORDS", // SOSL answers once, up to its LIMIT, with no next page
]);
/** Reads that are not named as lists but page a long answer, and so take a cursor too. */
const PAGED_READS = new Set([
  "GOOGLEDOCS_GET_DOCUMENT", // a document's paragraphs; the Docs API lists no documents (Drive's search does)
]);
/** Apps where files go in or out, and so a tool takes or gives a staged file. */
const FILE_APPS = ["slack", "gmail", "google-drive", "outlook", "youtube", "airtable", "asana", "zendesk", "salesforce", "discord", "x"];
/** The web search APIs agents call most: two tools or more each, all reads. */
const SEARCH_APPS = ["perplexity", "tavily", "exa"];

describe.each(APPS)("%s's curated tools", (slug) => {
  const toolkit = catalogToolkit(slug, { clientId: "id" });

  it("has at least six, reads and writes, each named after its toolkit", () => {
    expect(toolkit.tools.length).toBeGreaterThanOrEqual(6);
    expect(toolkit.tools.some((t) => t.annotations?.readOnly === true)).toBe(true);
    expect(toolkit.tools.some((t) => t.annotations?.readOnly === false)).toBe(true);
    const prefix = slug.replace(/-/g, "").toUpperCase();
    for (const tool of toolkit.tools) expect(tool.slug.startsWith(`${prefix}_`), tool.slug).toBe(true);
  });

  it("describes each tool and each argument, and says whether it only reads", () => {
    for (const tool of toolkit.tools) {
      expect(tool.description.length, `${tool.slug}'s description`).toBeGreaterThanOrEqual(40);
      expect(typeof tool.annotations?.readOnly, `${tool.slug} says whether it only reads`).toBe("boolean");
      const properties = (tool.inputParameters.properties ?? {}) as Record<string, { description?: string }>;
      for (const [name, schema] of Object.entries(properties)) {
        expect(schema.description, `${tool.slug}.${name} has a description`).toBeTruthy();
      }
    }
  });

  it("pages its lists: a tool that lists or searches takes a cursor or page token", () => {
    const lists = toolkit.tools.filter(
      (t) => (/_(LIST|SEARCH|QUERY|HISTORY)/.test(t.slug) || PAGED_READS.has(t.slug)) && !UNPAGED.has(t.slug),
    );
    expect(lists.length).toBeGreaterThan(0);
    for (const tool of lists) {
      const names = Object.keys((tool.inputParameters.properties ?? {}) as object);
      expect(
        names.some((n) => /cursor|page/i.test(n)),
        `${tool.slug} takes a cursor (it has ${names.join(", ")})`,
      ).toBe(true);
    }
  });
});

describe.each(SEARCH_APPS)("%s's curated search tools", (slug) => {
  const toolkit = catalogToolkit(slug);

  it("has two or more, described, read-only and open-world, named after the toolkit", () => {
    expect(toolkit.tools.length).toBeGreaterThanOrEqual(2);
    for (const tool of toolkit.tools) {
      expect(tool.slug.startsWith(`${slug.toUpperCase()}_`), tool.slug).toBe(true);
      expect(tool.description.length, `${tool.slug}'s description`).toBeGreaterThanOrEqual(40);
      expect(tool.annotations, tool.slug).toMatchObject({ readOnly: true, openWorld: true });
      const properties = (tool.inputParameters.properties ?? {}) as Record<string, { description?: string }>;
      for (const [name, schema] of Object.entries(properties)) expect(schema.description, `${tool.slug}.${name}`).toBeTruthy();
    }
  });
});

describe.each(FILE_APPS)("%s, where files go in", (slug) => {
  it("has a tool that takes a staged file", () => {
    const takesFile = catalogToolkit(slug).tools.some((tool) => JSON.stringify(tool.inputParameters).includes(STAGED_FILE_FORMAT));
    expect(takesFile).toBe(true);
  });
});

/** The web search and scraping APIs agents call: two tools or more each, read-only ones described. */
describe.each(["brave-search", "serpapi", "firecrawl"])("%s's curated tools", (slug) => {
  it("has at least two, each named after its toolkit, described, saying whether it only reads", () => {
    const toolkit = catalogToolkit(slug);
    expect(toolkit.tools.length).toBeGreaterThanOrEqual(2);
    const prefix = slug.replace(/-/g, "").toUpperCase();
    for (const tool of toolkit.tools) {
      expect(tool.slug.startsWith(`${prefix}_`), tool.slug).toBe(true);
      expect(tool.description.length, `${tool.slug}'s description`).toBeGreaterThanOrEqual(40);
      expect(typeof tool.annotations?.readOnly, `${tool.slug} says whether it only reads`).toBe("boolean");
    }
  });
});

describe("identifiers in paths", () => {
  it('an argument of "." or ".." is refused before anything is sent, since it would climb the path', async () => {
    const tool = catalogToolkit("github").tools.find((t) => t.slug === "GITHUB_GET_ISSUE")!;
    const sent: string[] = [];
    const ctx = {
      fetch: async (url: string | URL) => {
        sent.push(String(url));
        return Response.json({});
      },
    } as unknown as ToolContext;
    for (const owner of [".", ".."]) {
      await expect(tool.run({ owner, repo: "hello", issueNumber: 1 }, ctx)).rejects.toMatchObject({ code: "invalid_arguments" });
    }
    expect(sent).toEqual([]);
  });
});
