// SerpApi's curated tools, over https://serpapi.com (the api_key query parameter). Facts from SerpApi's documentation:
// https://serpapi.com/search-api (GET /search.json: engine, q, location, gl, hl, num, start; search_metadata, organic_results, error)
// https://serpapi.com/organic-results (organic_results [{ position, title, link, snippet, date, source }])
// https://serpapi.com/answer-box and https://serpapi.com/knowledge-graph (answer_box, knowledge_graph)
// https://serpapi.com/news-results (tbm=nws: news_results [{ position, title, link, source, date, snippet }])
// https://serpapi.com/pagination (serpapi_pagination.next: the same search with the next start)
// https://serpapi.com/account-api (GET /account.json: plan and searches left)
import { z } from "zod";
import { defineTool, type Tool, type ToolContext } from "../../toolkits/define.js";
import { type ProviderErrors, requestJson } from "../../toolkits/provider-requests.js";
import { field } from "./content.js";

// SerpApi's failures are `{ "error": "..." }`, which the common reading takes.
const SERPAPI: ProviderErrors = {
  name: "SerpApi",
  hints: { 429: "SerpApi's hourly limit or the plan's monthly searches are used up: wait, or check the account (SERPAPI_GET_ACCOUNT)." },
};

type Json = Record<string, unknown>;

/** "Google hasn't returned any results for this query." comes as a 200 with `error`: an empty page, not a failure. */
const NO_RESULTS = /hasn't returned any results/i;

/** The `start` of `serpapi_pagination.next`, the next page's cursor. */
function nextStart(answer: unknown): string | null {
  const next = field(field(answer, "serpapi_pagination"), "next");
  if (typeof next !== "string" || !URL.canParse(next)) return null;
  return new URL(next).searchParams.get("start");
}

const common = {
  query: z.string().min(1).max(2000).describe("The search query, as typed into Google (operators such as site: work)."),
  location: z.string().max(200).optional().describe("Where the search is made from, e.g. 'Austin, Texas, United States'."),
  country: z
    .string()
    .regex(/^[a-z]{2}$/)
    .optional()
    .describe("Two-letter Google country code (gl), e.g. us, de."),
  language: z
    .string()
    .regex(/^[a-z]{2}(?:-[a-z]{2})?$/i)
    .optional()
    .describe("Two-letter Google interface language (hl), e.g. en."),
  cursor: z
    .string()
    .regex(/^\d{1,4}$/, "must be the nextCursor of a previous result")
    .optional()
    .describe("The nextCursor of a previous result, for the next page."),
};

const searchQuery = (args: { query: string; location?: string; country?: string; language?: string; cursor?: string }) => ({
  q: args.query,
  location: args.location,
  gl: args.country,
  hl: args.language,
  start: args.cursor,
});

async function search(ctx: ToolContext, query: Record<string, string | number | undefined>) {
  const answer = await requestJson<Json>(ctx, SERPAPI, "/search.json", { query: { engine: "google", output: "json", ...query } });
  const error = field(answer, "error");
  const empty = typeof error === "string" && NO_RESULTS.test(error);
  return { answer, empty };
}

const searchWeb = defineTool({
  slug: "SERPAPI_SEARCH_WEB",
  name: "Search the web (SerpApi)",
  description:
    "Runs a Google search and returns its results page as data: { results: [{ position, title, link, snippet, date, source }], " +
    "answerBox, knowledgeGraph, totalResults, nextCursor }. Use it for current facts and sources; each call spends one SerpApi search.",
  input: z.object({ ...common, limit: z.number().int().min(1).max(100).default(10).describe("Results per page (default 10).") }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const { answer, empty } = await search(ctx, { ...searchQuery(args), num: args.limit });
    const box = field(answer, "answer_box") as Json | undefined;
    const graph = field(answer, "knowledge_graph") as Json | undefined;
    return {
      results: ((field(answer, "organic_results") ?? []) as Json[]).map((r) => ({
        position: r.position,
        title: r.title,
        link: r.link,
        snippet: r.snippet ?? null,
        date: r.date ?? null,
        source: r.source ?? null,
      })),
      answerBox: box ? { title: box.title ?? null, answer: box.answer ?? box.snippet ?? null, link: box.link ?? null } : null,
      knowledgeGraph: graph ? { title: graph.title ?? null, type: graph.type ?? null, description: graph.description ?? null } : null,
      totalResults: field(field(answer, "search_information"), "total_results") ?? null,
      nextCursor: empty ? null : nextStart(answer),
    };
  },
});

const searchNews = defineTool({
  slug: "SERPAPI_SEARCH_NEWS",
  name: "Search news (SerpApi)",
  description:
    "Runs a Google News search (the News tab): { results: [{ position, title, link, source, date, snippet }], nextCursor }, for " +
    "recent coverage of a topic.",
  input: z.object({ ...common }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const { answer, empty } = await search(ctx, { ...searchQuery(args), tbm: "nws" });
    return {
      results: ((field(answer, "news_results") ?? []) as Json[]).map((r) => ({
        position: r.position,
        title: r.title,
        link: r.link,
        source: r.source ?? null,
        date: r.date ?? null,
        snippet: r.snippet ?? null,
      })),
      nextCursor: empty ? null : nextStart(answer),
    };
  },
});

const getAccount = defineTool({
  slug: "SERPAPI_GET_ACCOUNT",
  name: "Get the SerpApi account's quota",
  description: "Reads the SerpApi plan and how many searches are left this month and this hour; costs no search.",
  input: z.object({}),
  annotations: { readOnly: true, idempotent: true },
  async run(_args, ctx) {
    const account = await requestJson<Json>(ctx, SERPAPI, "/account.json");
    return {
      plan: account.plan_name ?? null,
      searchesPerMonth: account.searches_per_month ?? null,
      searchesLeft: account.total_searches_left ?? account.plan_searches_left ?? null,
      thisMonthUsage: account.this_month_usage ?? null,
      hourlyLimit: account.account_rate_limit_per_hour ?? null,
    };
  },
});

/** SerpApi's curated tools: Google web and news results, and the account's quota. */
export const serpapiTools: Tool[] = [searchWeb, searchNews, getAccount];
