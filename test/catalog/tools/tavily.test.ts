/**
 * Tavily's curated tools over an emulation of its API. Answer shapes follow Tavily's reference:
 * https://docs.tavily.com/documentation/api-reference/endpoint/search
 * https://docs.tavily.com/documentation/api-reference/endpoint/extract
 * https://docs.tavily.com/documentation/api-reference/endpoint/crawl
 * https://docs.tavily.com/documentation/api-reference/endpoint/map
 * Tavily's answers are whole (no pages): a search returns at most 20 results.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tavilyTools } from "../../../src/catalog/tools/tavily.js";
import { expectAuthorized, reply, toolkitHarness } from "./support.js";

const API = "https://api.tavily.com";
let t: Awaited<ReturnType<typeof toolkitHarness>>;

beforeAll(async () => {
  t = await toolkitHarness({ slug: "tavily", name: "Tavily", baseUrl: API, tools: tavilyTools });
});
afterAll(() => t.close());

describe("TAVILY_SEARCH_WEB", () => {
  it("posts Tavily's body names and returns the answer and results", async () => {
    t.api.answer(() =>
      reply({
        query: "Who is Leo Messi?",
        answer: "Lionel Messi is an Argentine footballer.",
        images: [],
        results: [
          {
            title: "Lionel Messi Facts | Britannica",
            url: "https://www.britannica.com/facts/Lionel-Messi",
            content: "Lionel Messi, an Argentine footballer...",
            score: 0.81025416,
            raw_content: null,
          },
        ],
        response_time: "1.67",
      }),
    );
    const result = await t.execute("TAVILY_SEARCH_WEB", {
      query: "Who is Leo Messi?",
      maxResults: 1,
      includeAnswer: true,
      excludeDomains: ["x.com"],
    });
    expect(result.successful, result.error ?? "").toBe(true);
    expect(t.api.sent[0]!.method).toBe("POST");
    expect(t.api.sent[0]!.url.href).toBe(`${API}/search`);
    expect(t.api.sent[0]!.json()).toEqual({
      query: "Who is Leo Messi?",
      topic: "general",
      search_depth: "basic",
      max_results: 1,
      exclude_domains: ["x.com"],
      include_answer: true,
      include_raw_content: false,
    });
    expectAuthorized(t.api.sent);
    expect(result.data).toEqual({
      answer: "Lionel Messi is an Argentine footballer.",
      results: [
        {
          title: "Lionel Messi Facts | Britannica",
          url: "https://www.britannica.com/facts/Lionel-Messi",
          content: "Lionel Messi, an Argentine footballer...",
          score: 0.81025416,
          publishedDate: null,
        },
      ],
    });
  });

  it("reports Tavily's detail.error, and the plan limit's own advice", async () => {
    t.api.answer(() => reply({ detail: { error: "Unauthorized: missing or invalid API key." } }, 401));
    const refused = await t.execute("TAVILY_SEARCH_WEB", { query: "x" });
    expect(refused).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 401 });
    expect(refused.error).toMatch(
      /^Tavily answered 401: Unauthorized: missing or invalid API key\. The Tavily connection's credential was refused/,
    );
    t.api.answer(() => reply({ detail: { error: "This request exceeds your plan's set usage limit." } }, 432));
    const limited = await t.execute("TAVILY_SEARCH_WEB", { query: "x" });
    expect(limited.error).toMatch(/exceeds your plan's set usage limit\. The Tavily plan's credit limit is reached/);
  });
});

describe("TAVILY_EXTRACT_PAGES", () => {
  it("posts the URLs and returns content cut at maxChars, with the failures", async () => {
    t.api.answer(() =>
      reply({
        results: [{ url: "https://en.wikipedia.org/wiki/Artificial_intelligence", raw_content: "# AI\n".padEnd(500, "x"), images: [] }],
        failed_results: [{ url: "https://blocked.example/", error: "Failed to fetch url" }],
        response_time: 0.02,
      }),
    );
    const result = await t.execute("TAVILY_EXTRACT_PAGES", {
      urls: ["https://en.wikipedia.org/wiki/Artificial_intelligence", "https://blocked.example/"],
      maxChars: 100,
    });
    expect(t.api.sent[0]!.url.href).toBe(`${API}/extract`);
    expect(t.api.sent[0]!.json()).toEqual({
      urls: ["https://en.wikipedia.org/wiki/Artificial_intelligence", "https://blocked.example/"],
      extract_depth: "basic",
      format: "markdown",
    });
    expect(result.data.pages[0].content).toHaveLength(100);
    expect(result.data.pages[0].truncated).toBe(true);
    expect(result.data.failed).toEqual([{ url: "https://blocked.example/", error: "Failed to fetch url" }]);
  });
});

describe("sites", () => {
  it("TAVILY_CRAWL_SITE crawls from the root and returns each page's content", async () => {
    t.api.answer(() =>
      reply({
        base_url: "docs.tavily.com",
        results: [{ url: "https://docs.tavily.com/welcome", raw_content: "Welcome - Tavily Docs" }],
        response_time: 1.23,
      }),
    );
    const result = await t.execute("TAVILY_CRAWL_SITE", {
      url: "https://docs.tavily.com",
      instructions: "Python SDK",
      selectPaths: ["/sdk/.*"],
      limit: 10,
    });
    expect(t.api.sent[0]!.method).toBe("POST");
    expect(t.api.sent[0]!.url.href).toBe(`${API}/crawl`);
    expect(t.api.sent[0]!.json()).toEqual({
      url: "https://docs.tavily.com",
      instructions: "Python SDK",
      max_depth: 1,
      limit: 10,
      select_paths: ["/sdk/.*"],
      allow_external: false,
      extract_depth: "basic",
      format: "markdown",
    });
    expect(result.data).toEqual({
      baseUrl: "docs.tavily.com",
      pages: [{ url: "https://docs.tavily.com/welcome", content: "Welcome - Tavily Docs", truncated: false }],
    });
  });

  it("TAVILY_MAP_SITE returns the URLs found", async () => {
    t.api.answer(() =>
      reply({
        base_url: "docs.tavily.com",
        results: ["https://docs.tavily.com/welcome", "https://docs.tavily.com/faq"],
        response_time: 0.5,
      }),
    );
    const result = await t.execute("TAVILY_MAP_SITE", { url: "https://docs.tavily.com", maxDepth: 2 });
    expect(t.api.sent[0]!.url.href).toBe(`${API}/map`);
    expect(t.api.sent[0]!.json()).toEqual({ url: "https://docs.tavily.com", max_depth: 2, limit: 50, allow_external: false });
    expect(result.data).toEqual({ baseUrl: "docs.tavily.com", urls: ["https://docs.tavily.com/welcome", "https://docs.tavily.com/faq"] });
  });
});
