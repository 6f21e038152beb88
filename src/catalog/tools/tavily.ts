// Tavily's curated tools. Facts from Tavily's API reference:
// https://docs.tavily.com/documentation/api-reference/endpoint/search (POST /search: query, topic, search_depth,
//   max_results 0-20, time_range, include_domains, exclude_domains, include_answer, include_raw_content, country;
//   answer, results with title, url, content, score, raw_content, published_date; response_time)
// https://docs.tavily.com/documentation/api-reference/endpoint/extract (POST /extract: urls, extract_depth, format;
//   results with url, raw_content; failed_results with url, error)
// https://docs.tavily.com/documentation/api-reference/endpoint/crawl (POST /crawl, beta: url, max_depth, max_breadth, limit,
//   instructions, select_paths, exclude_paths, allow_external, extract_depth, format; base_url, results with url, raw_content)
// https://docs.tavily.com/documentation/api-reference/endpoint/map (POST /map: the same traversal; results as URLs)
// The pages show error bodies as { "detail": { "error": "..." } } for 400, 401, 429 and 432.
import { z } from "zod";
import { defineTool, type Tool } from "../../toolkits/define.js";
import { type ProviderErrors, requestJson } from "../../toolkits/provider-requests.js";
import { excerpt, field } from "./content.js";

/** Tavily's `detail.error`, or a `detail` string (FastAPI's validation errors as a list are quoted whole). */
function tavilyReason(body: unknown): string | undefined {
  const detail = field(body, "detail");
  const error = field(detail, "error");
  if (typeof error === "string") return error;
  if (typeof detail === "string") return detail;
  return undefined;
}

const TAVILY: ProviderErrors = {
  name: "Tavily",
  reason: tavilyReason,
  hints: { 432: "The Tavily plan's credit limit is reached: raise the plan or wait for the next billing period." },
};

const domainList = (what: string) => z.array(z.string().min(1).max(253)).max(300).optional().meta({ description: what });

const searchWeb = defineTool({
  slug: "TAVILY_SEARCH_WEB",
  name: "Search the web",
  description:
    "Searches the web for agents: returns the most relevant pages with the passage of each that answers the query (`content`), a " +
    "relevance score and, for news, the publish date; optionally a short LLM-written `answer`. `advanced` depth finds better " +
    "passages for 2 credits instead of 1. Use TAVILY_EXTRACT_PAGES to read whole pages.",
  input: z.object({
    query: z.string().min(1).max(2000).meta({ description: "What to search for, as a question or keywords." }),
    topic: z.enum(["general", "news", "finance"]).default("general").meta({ description: "general (default), news or finance." }),
    searchDepth: z.enum(["basic", "advanced"]).default("basic").meta({ description: "basic (default, 1 credit) or advanced (2 credits)." }),
    maxResults: z.number().int().min(1).max(20).default(5).meta({ description: "Results to return, 1 to 20 (default 5)." }),
    timeRange: z.enum(["day", "week", "month", "year"]).optional().meta({ description: "Only pages from this past period." }),
    includeDomains: domainList("Only results from these domains."),
    excludeDomains: domainList("No results from these domains."),
    includeAnswer: z.boolean().default(false).meta({ description: "Also write a short answer from the results (default false)." }),
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const answer = await requestJson<{
      query?: string;
      answer?: string | null;
      results?: Array<{ title?: string; url: string; content?: string; score?: number; published_date?: string }>;
      response_time?: number | string;
    }>(ctx, TAVILY, "/search", {
      method: "POST",
      json: {
        query: args.query,
        topic: args.topic,
        search_depth: args.searchDepth,
        max_results: args.maxResults,
        time_range: args.timeRange,
        include_domains: args.includeDomains,
        exclude_domains: args.excludeDomains,
        include_answer: args.includeAnswer,
        include_raw_content: false,
      },
    });
    return {
      answer: answer.answer ?? null,
      results: (answer.results ?? []).map((r) => ({
        title: r.title ?? null,
        url: r.url,
        content: r.content ?? null,
        score: r.score ?? null,
        publishedDate: r.published_date ?? null,
      })),
    };
  },
});

const extractPages = defineTool({
  slug: "TAVILY_EXTRACT_PAGES",
  name: "Extract page content",
  description:
    "Reads 1 to 20 web pages and returns each one's main content as markdown (or plain text), without navigation and ads, cut at " +
    "`maxChars`. Pages that could not be read are listed in `failed` with the reason. `advanced` depth also reads tables and " +
    "embedded content, for 2 credits per 5 pages instead of 1.",
  input: z.object({
    urls: z.array(z.url().max(2000)).min(1).max(20).meta({ description: "The pages' URLs." }),
    extractDepth: z.enum(["basic", "advanced"]).default("basic").meta({ description: "basic (default) or advanced." }),
    format: z.enum(["markdown", "text"]).default("markdown").meta({ description: "markdown (default) or text." }),
    maxChars: z
      .number()
      .int()
      .min(100)
      .max(200_000)
      .default(20_000)
      .meta({ description: "Longest content kept per page (default 20000)." }),
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const answer = await requestJson<{
      results?: Array<{ url: string; raw_content?: string | null }>;
      failed_results?: Array<{ url: string; error?: string }>;
    }>(ctx, TAVILY, "/extract", {
      method: "POST",
      json: { urls: args.urls, extract_depth: args.extractDepth, format: args.format },
    });
    return {
      pages: (answer.results ?? []).map((r) => ({
        url: r.url,
        content: excerpt(r.raw_content, args.maxChars),
        truncated: (r.raw_content?.length ?? 0) > args.maxChars,
      })),
      failed: (answer.failed_results ?? []).map((f) => ({ url: f.url, error: f.error ?? null })),
    };
  },
});

const traversal = {
  url: z.string().min(1).max(2000).meta({ description: "The site's root URL, e.g. https://docs.example.com." }),
  instructions: z
    .string()
    .max(2000)
    .optional()
    .meta({ description: "What to look for, in words, e.g. `pages about the Python SDK`; it steers the crawler and costs more credits." }),
  maxDepth: z.number().int().min(1).max(5).default(1).meta({ description: "How many links away from the root to go, 1 to 5 (default 1)." }),
  limit: z.number().int().min(1).max(500).default(50).meta({ description: "Most pages to visit (default 50)." }),
  selectPaths: z
    .array(z.string().min(1).max(200))
    .max(50)
    .optional()
    .meta({ description: 'Regular expressions: only paths matching one, e.g. ["/docs/.*"].' }),
  excludePaths: z.array(z.string().min(1).max(200)).max(50).optional().meta({ description: "Regular expressions of paths to skip." }),
  allowExternal: z.boolean().default(false).meta({ description: "Follow links to other sites too (default false)." }),
};
const traversalBody = (args: {
  url: string;
  instructions?: string | undefined;
  maxDepth: number;
  limit: number;
  selectPaths?: string[] | undefined;
  excludePaths?: string[] | undefined;
  allowExternal: boolean;
}) => ({
  url: args.url,
  instructions: args.instructions,
  max_depth: args.maxDepth,
  limit: args.limit,
  select_paths: args.selectPaths,
  exclude_paths: args.excludePaths,
  allow_external: args.allowExternal,
});

const crawlSite = defineTool({
  slug: "TAVILY_CRAWL_SITE",
  name: "Crawl a site",
  description:
    "Crawls a website from its root URL, following links up to `maxDepth` and `limit` pages (optionally only paths matching " +
    "`selectPaths`, or steered by `instructions`), and returns each page's content as markdown cut at `maxChars`. Use " +
    "TAVILY_MAP_SITE first when only the URLs are needed.",
  input: z.object({
    ...traversal,
    maxChars: z.number().int().min(100).max(100_000).default(5000).meta({ description: "Longest content kept per page (default 5000)." }),
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const answer = await requestJson<{ base_url?: string; results?: Array<{ url: string; raw_content?: string | null }> }>(
      ctx,
      TAVILY,
      "/crawl",
      { method: "POST", json: { ...traversalBody(args), extract_depth: "basic", format: "markdown" } },
    );
    return {
      baseUrl: answer.base_url ?? args.url,
      pages: (answer.results ?? []).map((r) => ({
        url: r.url,
        content: excerpt(r.raw_content, args.maxChars),
        truncated: (r.raw_content?.length ?? 0) > args.maxChars,
      })),
    };
  },
});

const mapSite = defineTool({
  slug: "TAVILY_MAP_SITE",
  name: "Map a website's URLs",
  description:
    "Lists the URLs of a website found by following links from its root (up to `maxDepth` and `limit`), without their content: " +
    "a site map to choose pages from before reading them with TAVILY_EXTRACT_PAGES.",
  input: z.object(traversal),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const answer = await requestJson<{ base_url?: string; results?: string[] }>(ctx, TAVILY, "/map", {
      method: "POST",
      json: traversalBody(args),
    });
    return { baseUrl: answer.base_url ?? args.url, urls: answer.results ?? [] };
  },
});

/** Tavily's curated tools: web search with answer passages, page extraction, and site crawling and mapping. */
export const tavilyTools: Tool[] = [searchWeb, extractPages, crawlSite, mapSite];
