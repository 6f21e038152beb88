/**
 * Search over the whole catalog: each query of the table below, run against every catalog
 * provider as a toolkit, must put the expected providers at the top. The table is the definition
 * of "search ranks well": change the scoring (src/toolkits/search.ts) or a provider's aliases,
 * categories or description, and this says which queries got worse.
 */
import { describe, expect, it } from "vitest";
import { catalogToolkit, providers } from "../../src/catalog/index.js";
import { searchToolkits } from "../../src/toolkits/search.js";

const toolkits = providers.map((provider) => catalogToolkit(provider.slug, { clientId: "id" }));

interface Row {
  query: string;
  /** These providers come first, in any order among themselves. */
  first?: string[];
  /** These providers are all among the first `within` results. */
  top?: string[];
  within?: number;
}

const TABLE: Row[] = [
  // Names, slugs and aliases.
  { query: "github", first: ["github"] },
  { query: "gh", first: ["github"] },
  { query: "GitHub", first: ["github"] },
  { query: "google sheets", first: ["google-sheets"] },
  { query: "google mail", first: ["gmail"] },
  { query: "google", top: ["gmail", "google-calendar", "google-drive", "google-sheets", "google-docs"], within: 5 },
  { query: "microsoft", top: ["outlook", "onedrive", "microsoft-teams", "microsoft-graph"], within: 4 },
  { query: "twitter", first: ["x"] },
  { query: "tweet", first: ["x"] },
  { query: "zoho", first: ["zoho-crm"] },
  { query: "monday.com", first: ["monday"] },
  { query: "chatgpt", first: ["openai"] },
  { query: "todo", top: ["todoist", "asana"], within: 2 },
  // Categories, singular or plural.
  { query: "email", first: ["gmail", "outlook"] },
  { query: "crm", top: ["hubspot", "salesforce", "pipedrive", "attio", "zoho-crm"], within: 5 },
  { query: "tickets", top: ["jira", "linear", "zendesk"], within: 5 },
  { query: "ticket", top: ["jira", "linear", "zendesk"], within: 5 },
  { query: "calendar", first: ["google-calendar"], top: ["outlook"], within: 3 },
  { query: "files", top: ["google-drive", "dropbox", "box", "onedrive"], within: 5 },
  { query: "chat", top: ["slack", "microsoft-teams", "discord"], within: 5 },
  { query: "payments", first: ["stripe"] },
  { query: "design", first: ["figma", "canva"], top: ["miro"], within: 4 },
  { query: "spreadsheet", first: ["google-sheets"], top: ["airtable"], within: 3 },
  { query: "invoices", top: ["stripe", "quickbooks", "xero"], within: 4 },
  { query: "accounting", first: ["quickbooks", "xero"] },
  { query: "ecommerce", first: ["shopify"], top: ["stripe"], within: 3 },
  { query: "forms", first: ["typeform"] },
  { query: "incident", first: ["pagerduty"] },
  { query: "scheduling", first: ["calendly"] },
  { query: "sms", first: ["twilio"] },
  { query: "ai", first: ["openai"] },
  { query: "website", first: ["webflow"] },
  { query: "code", top: ["github", "gitlab", "bitbucket"], within: 3 },
  { query: "git", top: ["github", "gitlab", "bitbucket"], within: 4 }, // gitlab-self-managed is the fourth git host
  { query: "video", first: ["youtube"] },
  { query: "social", top: ["x", "linkedin", "reddit"], within: 4 },
  { query: "marketing", top: ["mailchimp", "hubspot"], within: 4 },
  { query: "knowledge base", top: ["confluence"], within: 3 },
  { query: "project management", top: ["asana", "clickup", "monday", "trello"], within: 8 },
  { query: "customer support", top: ["zendesk", "intercom", "front"], within: 4 },
  // Several words.
  { query: "pull requests", top: ["github", "bitbucket"], within: 3 },
  { query: "video meetings", first: ["zoom"] },
  { query: "send sms", first: ["twilio"] },
  { query: "web search", first: ["brave-search"] },
  { query: "sign documents", first: ["docusign"] },
  { query: "transactional email", top: ["sendgrid", "resend"], within: 3 },
  { query: "file storage", top: ["google-drive", "dropbox", "box", "onedrive"], within: 6 },
  { query: "on-call", first: ["pagerduty"] },
  { query: "help desk", top: ["zendesk", "intercom"], within: 3 },
  // What an agent asks for: toolkits with a tool that does it come first (the agents guide's search).
  { query: "send an email", first: ["gmail", "outlook"] },
  { query: "send email", first: ["gmail", "outlook"] },
  { query: "create an issue", first: ["github", "jira", "linear"] },
  { query: "post message", first: ["slack"] },
  { query: "upload a file", top: ["google-drive", "slack"], within: 2 },
  { query: "list calendar events", first: ["outlook"], top: ["google-calendar"], within: 2 },
];

const slugs = (query: string) => searchToolkits(toolkits, query).map((toolkit) => toolkit.slug);

describe("catalog search", () => {
  it("searches every catalog provider", () => {
    const named = new Set(TABLE.flatMap((row) => [...(row.first ?? []), ...(row.top ?? [])]));
    expect([...named].filter((slug) => !providers.some((provider) => provider.slug === slug))).toEqual([]);
    expect(TABLE.length).toBeGreaterThanOrEqual(30);
  });

  it.each(TABLE)("$query", ({ query, first = [], top = [], within = 0 }) => {
    const found = slugs(query);
    // The message shows the ranking, so a failure says which providers got in the way.
    const shown = `"${query}" ranked: ${found.slice(0, Math.max(first.length, within) + 3).join(", ")}`;
    expect(found.slice(0, first.length).sort(), shown).toEqual([...first].sort());
    expect(
      top.filter((slug) => !found.slice(0, within).includes(slug)),
      shown,
    ).toEqual([]);
  });
});
