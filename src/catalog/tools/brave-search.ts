// Brave Search's curated tools, over https://api.search.brave.com/res/v1 (the X-Subscription-Token header). Facts from
// Brave's Search API documentation:
// https://api-dashboard.search.brave.com/app/documentation/web-search/query (GET /web/search: q, count up to 20, offset 0 to 9 in pages, country,
//   search_lang, safesearch, freshness pd/pw/pm/py, extra_snippets)
// https://api-dashboard.search.brave.com/app/documentation/web-search/responses (WebSearchApiResponse: query.more_results_available,
//   web.results [{ title, url, description, age, extra_snippets }])
// https://api-dashboard.search.brave.com/app/documentation/news-search/query (GET /news/search: count up to 50, offset 0 to 9)
// https://api-dashboard.search.brave.com/app/documentation/news-search/responses (NewsSearchApiResponse: results [{ title, url, description,
//   age, meta_url.hostname }])
// https://api-dashboard.search.brave.com/app/documentation/web-search/responses#ErrorResponse (errors: { type: "ErrorResponse", error: { code, detail, status } })
import { z } from "zod";
import { defineTool, type Tool } from "../../toolkits/define.js";
import { type ProviderErrors, requestJson } from "../../toolkits/provider-requests.js";
import { field } from "./content.js";

/** Brave's ErrorResponse: `{ error: { code, detail, meta } }`. */
function braveReason(body: unknown): string | undefined {
  const error = field(body, "error");
  const detail = field(error, "detail");
  const code = field(error, "code");
  if (typeof detail !== "string") return undefined;
  return typeof code === "string" ? `${code}: ${detail}` : detail;
}

const BRAVE: ProviderErrors = {
  name: "Brave Search",
  reason: braveReason,
  hints: { 402: "The Brave Search subscription's quota or plan does not cover this; check the plan in Brave's API dashboard." },
};

type Json = Record<string, unknown>;

/** Brave's offset counts pages of `count` results, 0 to 9; the cursor is the next page's offset. */
const pageCursor = z
  .string()
  .regex(/^[1-9]$/, "must be the nextCursor of a previous result")
  .optional()
  .describe("The nextCursor of a previous result, for the next page (Brave gives at most 10 pages).");
const common = {
  query: z.string().min(1).max(400).describe("The search query (at most 400 characters, 50 words)."),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/)
    .optional()
    .describe("Two-letter country code the results are for, e.g. US, DE."),
  language: z
    .string()
    .regex(/^[a-z]{2}(?:-[a-z]{2,4})?$/)
    .optional()
    .describe("Language of the results, e.g. en, fr, pt-br."),
  freshness: z
    .enum(["pd", "pw", "pm", "py"])
    .optional()
    .describe("Only results from the past day (pd), week (pw), month (pm) or year (py)."),
  safesearch: z.enum(["off", "moderate", "strict"]).default("moderate").describe("Adult content filter (default moderate)."),
  cursor: pageCursor,
};

/** The query parameters both searches take, from the common arguments. */
function searchQuery(
  args: { query: string; limit: number; country?: string; language?: string; freshness?: string; safesearch: string },
  offset: number,
) {
  return {
    q: args.query,
    count: args.limit,
    offset,
    country: args.country?.toUpperCase(),
    search_lang: args.language,
    freshness: args.freshness,
    safesearch: args.safesearch,
  };
}

const next = (offset: number, more: unknown) => (more === true && offset < 9 ? String(offset + 1) : null);

const searchWeb = defineTool({
  slug: "BRAVESEARCH_SEARCH_WEB",
  name: "Search the web with Brave",
  description:
    "Searches the web with Brave's independent index, for current facts, pages and sources. Returns { results: [{ title, url, " +
    "description, age, extraSnippets }], nextCursor }. Use BRAVESEARCH_SEARCH_NEWS for news.",
  input: z.object({
    ...common,
    limit: z.number().int().min(1).max(20).default(10).describe("Results per page (1 to 20, default 10)."),
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const offset = Number(args.cursor ?? 0);
    const answer = await requestJson<Json>(ctx, BRAVE, "/web/search", {
      query: { ...searchQuery(args, offset), extra_snippets: true },
    });
    const results = ((field(field(answer, "web"), "results") ?? []) as Json[]).map((r) => ({
      title: r.title,
      url: r.url,
      description: r.description ?? null,
      age: r.age ?? null,
      extraSnippets: r.extra_snippets ?? [],
    }));
    return { results, nextCursor: next(offset, field(field(answer, "query"), "more_results_available")) };
  },
});

const searchNews = defineTool({
  slug: "BRAVESEARCH_SEARCH_NEWS",
  name: "Search news with Brave",
  description:
    "Searches recent news articles. Returns { results: [{ title, url, description, age, source }], nextCursor }; narrow with " +
    "freshness (pd: past day).",
  input: z.object({
    ...common,
    limit: z.number().int().min(1).max(50).default(20).describe("Results per page (1 to 50, default 20)."),
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const offset = Number(args.cursor ?? 0);
    const answer = await requestJson<Json>(ctx, BRAVE, "/news/search", {
      query: searchQuery(args, offset),
    });
    const results = ((field(answer, "results") ?? []) as Json[]).map((r) => ({
      title: r.title,
      url: r.url,
      description: r.description ?? null,
      age: r.age ?? null,
      source: field(r.meta_url, "hostname") ?? null,
    }));
    return { results, nextCursor: next(offset, field(field(answer, "query"), "more_results_available")) };
  },
});

/** Brave Search's curated tools: web and news search. */
export const braveSearchTools: Tool[] = [searchWeb, searchNews];
