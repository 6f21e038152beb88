// Firecrawl's curated tools, over its v2 API at https://api.firecrawl.dev/v2 (a bearer API key). Facts from Firecrawl's
// API reference:
// https://docs.firecrawl.dev/api-reference/v2-introduction (base URL, Authorization: Bearer, { success, error } failures, 402 and 429)
// https://docs.firecrawl.dev/api-reference/endpoint/scrape (POST /scrape: url, formats, onlyMainContent, waitFor, timeout;
//   { success, data: { markdown, links, metadata: { title, description, sourceURL, url, statusCode } } })
// https://docs.firecrawl.dev/api-reference/endpoint/search (POST /search: query, limit, tbs, location, scrapeOptions; { success, data: { web: [...] } })
// https://docs.firecrawl.dev/api-reference/endpoint/map (POST /map: url, search, limit, includeSubdomains; { success, links: [{ url, title, description }] })
// https://docs.firecrawl.dev/api-reference/endpoint/crawl-post (POST /crawl: url, limit, includePaths, excludePaths, scrapeOptions; { success, id, url })
// https://docs.firecrawl.dev/api-reference/endpoint/crawl-get (GET /crawl/{id}: status, total, completed, creditsUsed, expiresAt, next, data)
// https://docs.firecrawl.dev/api-reference/endpoint/credit-usage (GET /team/credit-usage: { data: { remainingCredits, planCredits, billingPeriodEnd } })
import { z } from "zod";
import { defineTool, type Tool } from "../../toolkits/define.js";
import { type ProviderErrors, requestJson, segment } from "../../toolkits/provider-requests.js";
import { field } from "./content.js";

const FIRECRAWL: ProviderErrors = {
  name: "Firecrawl",
  hints: { 402: "The Firecrawl team is out of credits: add credits or upgrade the plan, then call again." },
};

type Json = Record<string, unknown>;

const webUrl = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .describe("The page's URL (http or https).");
const maxCharacters = z
  .number()
  .int()
  .min(1000)
  .max(200_000)
  .default(30_000)
  .describe("Longest markdown returned per page, in characters (default 30000); longer pages are cut and say so.");

/** A scraped document trimmed for a model: its markdown (cut at `max`), title, URL and status. */
function page(document: unknown, max: number) {
  const metadata = (field(document, "metadata") ?? {}) as Json;
  const markdown = field(document, "markdown");
  const text = typeof markdown === "string" ? markdown : null;
  return {
    url: metadata.url ?? metadata.sourceURL ?? field(document, "url") ?? null,
    title: metadata.title ?? field(document, "title") ?? null,
    description: metadata.description ?? field(document, "description") ?? null,
    statusCode: metadata.statusCode ?? null,
    markdown: text && text.length > max ? text.slice(0, max) : text,
    truncated: text !== null && text.length > max,
  };
}

const scrapeUrl = defineTool({
  slug: "FIRECRAWL_SCRAPE_URL",
  name: "Scrape a web page to markdown",
  description:
    "Fetches one web page (rendering JavaScript) and returns its main content as clean markdown: { url, title, description, " +
    "statusCode, markdown, truncated, links }. Use it to read an article, docs page or product page an agent found.",
  input: z.object({
    url: webUrl,
    onlyMainContent: z.boolean().default(true).describe("Leave out headers, navigation and footers (default true)."),
    includeLinks: z.boolean().default(false).describe("Also return the page's links."),
    waitFor: z.number().int().min(0).max(30_000).optional().describe("Milliseconds to wait for the page to render before reading it."),
    maxCharacters,
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const answer = await requestJson<Json>(ctx, FIRECRAWL, "/scrape", {
      method: "POST",
      json: {
        url: args.url,
        formats: args.includeLinks ? ["markdown", "links"] : ["markdown"],
        onlyMainContent: args.onlyMainContent,
        waitFor: args.waitFor,
      },
    });
    const data = field(answer, "data");
    const links = field(data, "links");
    return { ...page(data, args.maxCharacters), ...(args.includeLinks ? { links: Array.isArray(links) ? links : [] } : {}) };
  },
});

const search = defineTool({
  slug: "FIRECRAWL_SEARCH",
  name: "Search the web with Firecrawl",
  description:
    "Searches the web and returns { results: [{ url, title, description }] }; with scrape true, each result also carries its page's " +
    "markdown (costs more credits). Firecrawl has no further pages: raise limit instead.",
  input: z.object({
    query: z.string().min(1).max(1000).describe("The search query."),
    limit: z.number().int().min(1).max(50).default(5).describe("How many results (1 to 50, default 5)."),
    timeRange: z
      .enum(["qdr:h", "qdr:d", "qdr:w", "qdr:m", "qdr:y"])
      .optional()
      .describe("Only results from the past hour, day, week, month or year (tbs)."),
    location: z.string().max(200).optional().describe("Where the search is made from, e.g. 'Germany'."),
    scrape: z.boolean().default(false).describe("Also scrape each result to markdown."),
    maxCharacters: maxCharacters.describe("Longest markdown per scraped result (default 30000)."),
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const answer = await requestJson<Json>(ctx, FIRECRAWL, "/search", {
      method: "POST",
      json: {
        query: args.query,
        limit: args.limit,
        tbs: args.timeRange,
        location: args.location,
        scrapeOptions: args.scrape ? { formats: ["markdown"], onlyMainContent: true } : undefined,
      },
    });
    const data = field(answer, "data");
    // v2 groups results by source ({ web, news, images }); v1 answered a plain list.
    const web = (Array.isArray(data) ? data : (field(data, "web") ?? [])) as Json[];
    return {
      results: web.map((result) => {
        const base = { url: result.url, title: result.title ?? null, description: result.description ?? null };
        return args.scrape ? { ...base, ...page(result, args.maxCharacters), url: result.url } : base;
      }),
    };
  },
});

const mapSite = defineTool({
  slug: "FIRECRAWL_MAP_SITE",
  name: "List a website's URLs",
  description:
    "Lists the URLs of a website quickly, from its sitemap and links, optionally those matching words: { links: [{ url, title, " +
    "description }] }. Use it to find the right page before scraping it.",
  input: z.object({
    url: webUrl.describe("The site's address, e.g. https://docs.example.com."),
    search: z.string().max(200).optional().describe("Words the URLs are ranked by, e.g. 'pricing'."),
    limit: z.number().int().min(1).max(5000).default(200).describe("Most URLs returned (default 200)."),
    includeSubdomains: z.boolean().default(false).describe("Include the site's subdomains."),
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const answer = await requestJson<Json>(ctx, FIRECRAWL, "/map", {
      method: "POST",
      json: { url: args.url, search: args.search, limit: args.limit, includeSubdomains: args.includeSubdomains },
    });
    const links = (field(answer, "links") ?? []) as unknown[];
    return {
      links: links.map((link) =>
        typeof link === "string"
          ? { url: link, title: null, description: null }
          : { url: field(link, "url"), title: field(link, "title") ?? null, description: field(link, "description") ?? null },
      ),
    };
  },
});

const startCrawl = defineTool({
  slug: "FIRECRAWL_START_CRAWL",
  name: "Start crawling a site",
  description:
    "Starts crawling a site from a URL (its pages under that path), scraping each to markdown in the background. Returns { crawlId }; " +
    "read the pages with FIRECRAWL_GET_CRAWL. Each page costs credits: keep limit small.",
  input: z.object({
    url: webUrl.describe("Where the crawl starts; pages under its path are followed."),
    limit: z.number().int().min(1).max(1000).default(20).describe("Most pages to crawl (default 20)."),
    includePaths: z.array(z.string().max(200)).max(20).optional().describe("Only URLs whose path matches these regular expressions."),
    excludePaths: z.array(z.string().max(200)).max(20).optional().describe("Skip URLs whose path matches these regular expressions."),
    maxDepth: z.number().int().min(1).max(20).optional().describe("How many links deep to follow from the start URL."),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  async run(args, ctx) {
    const answer = await requestJson<Json>(ctx, FIRECRAWL, "/crawl", {
      method: "POST",
      json: {
        url: args.url,
        limit: args.limit,
        includePaths: args.includePaths,
        excludePaths: args.excludePaths,
        maxDiscoveryDepth: args.maxDepth,
        scrapeOptions: { formats: ["markdown"], onlyMainContent: true },
      },
    });
    return { crawlId: field(answer, "id") };
  },
});

const getCrawl = defineTool({
  slug: "FIRECRAWL_GET_CRAWL",
  name: "Get a Firecrawl crawl's pages",
  description:
    "Reads a crawl's status (scraping, completed, failed) and a page of its scraped pages: { status, total, completed, pages: [{ url, " +
    "title, markdown, truncated }], nextCursor }. Call again while status is scraping; pass nextCursor for more pages.",
  input: z.object({
    crawlId: z.uuid().describe("The crawlId from FIRECRAWL_START_CRAWL."),
    cursor: z
      .string()
      .regex(/^\d{1,6}$/, "must be the nextCursor of a previous result")
      .optional()
      .describe("The nextCursor of a previous result."),
    maxCharacters: maxCharacters.describe("Longest markdown per page (default 30000)."),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const answer = await requestJson<Json>(ctx, FIRECRAWL, `/crawl/${segment(args.crawlId)}`, { query: { skip: args.cursor } });
    const next = field(answer, "next");
    return {
      status: answer.status ?? null,
      total: answer.total ?? null,
      completed: answer.completed ?? null,
      creditsUsed: answer.creditsUsed ?? null,
      expiresAt: answer.expiresAt ?? null,
      pages: ((answer.data ?? []) as unknown[]).map((document) => page(document, args.maxCharacters)),
      nextCursor: typeof next === "string" && URL.canParse(next) ? new URL(next).searchParams.get("skip") : null,
    };
  },
});

const getCredits = defineTool({
  slug: "FIRECRAWL_GET_CREDITS",
  name: "Get Firecrawl's remaining credits",
  description:
    "Reads the team's remaining credits and the billing period's end, before a large crawl: { remainingCredits, planCredits, billingPeriodEnd }.",
  input: z.object({}),
  annotations: { readOnly: true, idempotent: true },
  async run(_args, ctx) {
    const data = (field(await requestJson(ctx, FIRECRAWL, "/team/credit-usage"), "data") ?? {}) as Json;
    return {
      remainingCredits: data.remainingCredits ?? null,
      planCredits: data.planCredits ?? null,
      billingPeriodEnd: data.billingPeriodEnd ?? null,
    };
  },
});

/** Firecrawl's curated tools: scrape a page, search, map a site, crawl one and read its pages, the credits left. */
export const firecrawlTools: Tool[] = [scrapeUrl, search, mapSite, startCrawl, getCrawl, getCredits];
