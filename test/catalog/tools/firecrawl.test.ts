/**
 * The curated Firecrawl tools through POST /execute, against an emulation of https://api.firecrawl.dev/v2 answering
 * as Firecrawl's API reference shows: `{ success, data }` for scrape and search, `{ success, links }` for map,
 * `{ success, id, url }` for a new crawl, the crawl status with `next` for its further pages, and
 * `{ success: false, error }` for failures.
 */
import { describe, expect, it } from "vitest";
import { firecrawlTools } from "../../../src/catalog/tools/firecrawl.js";
import { json, type Route, setupToolkit } from "./support-b.js";

const CRAWL = "550e8400-e29b-41d4-a716-446655440000";
const DOC = {
  markdown: "# Hello\n\nWorld",
  metadata: { title: "Hello", description: "A page", sourceURL: "https://example.com", url: "https://example.com/", statusCode: 200 },
};

const routes: Route[] = [
  {
    method: "POST",
    path: /^\/v2\/scrape$/,
    answer: (request) =>
      (request.body as any).url === "https://blocked.example/"
        ? json({ success: false, error: "Insufficient credits to perform this request." }, 402)
        : json({ success: true, data: { ...DOC, links: ["https://example.com/a"] } }),
  },
  {
    method: "POST",
    path: /^\/v2\/search$/,
    answer: () =>
      json({
        success: true,
        data: {
          web: [
            {
              url: "https://example.com/",
              title: "Hello",
              description: "A page",
              position: 1,
              markdown: "# Hello\n\nWorld",
              metadata: DOC.metadata,
            },
          ],
        },
      }),
  },
  {
    method: "POST",
    path: /^\/v2\/map$/,
    answer: () =>
      json({
        success: true,
        links: [{ url: "https://example.com/pricing", title: "Pricing", description: "Plans" }, "https://example.com/about"],
      }),
  },
  {
    method: "POST",
    path: /^\/v2\/crawl$/,
    answer: () => json({ success: true, id: CRAWL, url: `https://api.firecrawl.dev/v2/crawl/${CRAWL}` }),
  },
  {
    method: "GET",
    path: /^\/v2\/crawl\/[0-9a-f-]+$/,
    answer: (request) =>
      json({
        status: "scraping",
        total: 36,
        completed: 10,
        creditsUsed: 10,
        expiresAt: "2024-12-01T00:00:00.000Z",
        next: request.query.get("skip") ? null : `https://api.firecrawl.dev/v2/crawl/${CRAWL}?skip=10`,
        data: [{ ...DOC, markdown: "x".repeat(1500) }],
      }),
  },
];

routes.push({
  method: "GET",
  path: /^\/v2\/team\/credit-usage$/,
  answer: () =>
    json({
      success: true,
      data: {
        remainingCredits: 1000,
        planCredits: 500000,
        billingPeriodStart: "2025-01-01T00:00:00Z",
        billingPeriodEnd: "2025-01-31T23:59:59Z",
      },
    }),
});

const setup = () => setupToolkit({ slug: "firecrawl", baseUrl: "https://api.firecrawl.dev/v2", tools: firecrawlTools, routes });

describe("Firecrawl tools", () => {
  it("FIRECRAWL_SCRAPE_URL asks for markdown (and links) and returns the page trimmed", async () => {
    const fc = await setup();
    expect(await fc.ok("FIRECRAWL_SCRAPE_URL", { url: "https://example.com", includeLinks: true })).toEqual({
      url: "https://example.com/",
      title: "Hello",
      description: "A page",
      statusCode: 200,
      markdown: "# Hello\n\nWorld",
      truncated: false,
      links: ["https://example.com/a"],
    });
    expect([fc.last().method, fc.last().path, fc.last().body]).toEqual([
      "POST",
      "/v2/scrape",
      { url: "https://example.com", formats: ["markdown", "links"], onlyMainContent: true },
    ]);
  });

  it("a 402 is a failed result with Firecrawl's error and the credits advice", async () => {
    const fc = await setup();
    const result = await fc.execute("FIRECRAWL_SCRAPE_URL", { url: "https://blocked.example/" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 402 });
    expect(result.error).toBe(
      "Firecrawl answered 402: Insufficient credits to perform this request. The Firecrawl team is out of credits: add credits or upgrade the plan, then call again.",
    );
  });

  it("FIRECRAWL_SEARCH reads data.web, with markdown when scraping", async () => {
    const fc = await setup();
    expect(await fc.ok("FIRECRAWL_SEARCH", { query: "hello", limit: 3, timeRange: "qdr:w" })).toEqual({
      results: [{ url: "https://example.com/", title: "Hello", description: "A page" }],
    });
    expect(fc.last().body).toEqual({ query: "hello", limit: 3, tbs: "qdr:w" });
    const scraped = await fc.ok("FIRECRAWL_SEARCH", { query: "hello", scrape: true });
    expect(scraped.results[0]).toMatchObject({ url: "https://example.com/", markdown: "# Hello\n\nWorld", truncated: false });
    expect(fc.last().body).toMatchObject({ scrapeOptions: { formats: ["markdown"], onlyMainContent: true } });
  });

  it("FIRECRAWL_MAP_SITE takes link objects and plain URLs", async () => {
    const fc = await setup();
    expect(await fc.ok("FIRECRAWL_MAP_SITE", { url: "https://example.com", search: "pricing" })).toEqual({
      links: [
        { url: "https://example.com/pricing", title: "Pricing", description: "Plans" },
        { url: "https://example.com/about", title: null, description: null },
      ],
    });
    expect(fc.last().body).toEqual({ url: "https://example.com", search: "pricing", limit: 200, includeSubdomains: false });
  });

  it("FIRECRAWL_START_CRAWL and FIRECRAWL_GET_CRAWL: the crawl's next page is the cursor, markdown is cut", async () => {
    const fc = await setup();
    expect(await fc.ok("FIRECRAWL_START_CRAWL", { url: "https://example.com/docs", limit: 5, excludePaths: ["^/blog"] })).toEqual({
      crawlId: CRAWL,
    });
    expect(fc.last().body).toEqual({
      url: "https://example.com/docs",
      limit: 5,
      excludePaths: ["^/blog"],
      scrapeOptions: { formats: ["markdown"], onlyMainContent: true },
    });
    const first = await fc.ok("FIRECRAWL_GET_CRAWL", { crawlId: CRAWL, maxCharacters: 1000 });
    expect(first).toMatchObject({ status: "scraping", total: 36, completed: 10, nextCursor: "10" });
    expect(first.pages[0]).toMatchObject({ url: "https://example.com/", truncated: true });
    expect(first.pages[0].markdown).toHaveLength(1000);
    expect(await fc.ok("FIRECRAWL_GET_CRAWL", { crawlId: CRAWL, cursor: "10" })).toMatchObject({ nextCursor: null });
    expect([fc.last().path, fc.last().query.get("skip")]).toEqual([`/v2/crawl/${CRAWL}`, "10"]);
  });

  it("FIRECRAWL_GET_CREDITS reads the team's credit usage", async () => {
    const fc = await setup();
    expect(await fc.ok("FIRECRAWL_GET_CREDITS")).toEqual({
      remainingCredits: 1000,
      planCredits: 500000,
      billingPeriodEnd: "2025-01-31T23:59:59Z",
    });
    expect([fc.last().method, fc.last().path]).toEqual(["GET", "/v2/team/credit-usage"]);
  });
});
