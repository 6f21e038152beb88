/**
 * The curated Brave Search tools through POST /execute, against an emulation of https://api.search.brave.com/res/v1
 * answering as Brave's documentation shows: WebSearchApiResponse (`query.more_results_available`, `web.results`),
 * NewsSearchApiResponse (`results` with `meta_url`), and ErrorResponse (`{ type, error: { code, detail, status } }`).
 */
import { describe, expect, it } from "vitest";
import { braveSearchTools } from "../../../src/catalog/tools/brave-search.js";
import { json, type Route, setupToolkit } from "./support-b.js";

const routes: Route[] = [
  {
    method: "GET",
    path: /^\/res\/v1\/web\/search$/,
    answer: (request) =>
      request.query.get("q") === "bad"
        ? json(
            {
              type: "ErrorResponse",
              error: { id: "e1", status: 422, code: "VALIDATION", detail: "Unable to validate request parameter(s)", meta: {} },
              time: 1,
            },
            422,
          )
        : json({
            type: "search",
            query: { original: request.query.get("q"), more_results_available: request.query.get("offset") !== "9" },
            mixed: { type: "mixed", main: [] },
            web: {
              type: "search",
              results: [
                {
                  title: "Brave Search API",
                  url: "https://brave.com/search/api/",
                  description: "Power your search with <strong>Brave</strong>",
                  age: "2 days ago",
                  language: "en",
                  family_friendly: true,
                  extra_snippets: ["More text"],
                },
              ],
            },
          }),
  },
  {
    method: "GET",
    path: /^\/res\/v1\/news\/search$/,
    answer: () =>
      json({
        type: "news",
        query: { original: "launch", more_results_available: false },
        results: [
          {
            type: "news_result",
            title: "Rocket launch",
            url: "https://news.example/launch",
            description: "Liftoff",
            age: "1 hour ago",
            meta_url: { hostname: "news.example" },
          },
        ],
      }),
  },
];

const setup = () =>
  setupToolkit({
    slug: "brave-search",
    baseUrl: "https://api.search.brave.com/res/v1",
    headers: { Accept: "application/json" },
    tools: braveSearchTools,
    routes,
  });

describe("Brave Search tools", () => {
  it("BRAVESEARCH_SEARCH_WEB sends q, count, offset and filters, and pages while more results are available", async () => {
    const brave = await setup();
    expect(
      await brave.ok("BRAVESEARCH_SEARCH_WEB", { query: "brave api", country: "de", language: "en", freshness: "pw", limit: 5 }),
    ).toEqual({
      results: [
        {
          title: "Brave Search API",
          url: "https://brave.com/search/api/",
          description: "Power your search with <strong>Brave</strong>",
          age: "2 days ago",
          extraSnippets: ["More text"],
        },
      ],
      nextCursor: "1",
    });
    expect([brave.last().method, brave.last().path]).toEqual(["GET", "/res/v1/web/search"]);
    expect(Object.fromEntries(brave.last().query)).toEqual({
      q: "brave api",
      count: "5",
      offset: "0",
      country: "DE",
      search_lang: "en",
      freshness: "pw",
      safesearch: "moderate",
      extra_snippets: "true",
    });
    expect(await brave.ok("BRAVESEARCH_SEARCH_WEB", { query: "brave api", cursor: "9" })).toMatchObject({ nextCursor: null });
    expect(brave.last().query.get("offset")).toBe("9");
  });

  it("an ErrorResponse is a failed result with Brave's code and detail", async () => {
    const brave = await setup();
    const result = await brave.execute("BRAVESEARCH_SEARCH_WEB", { query: "bad" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 422 });
    expect(result.error).toBe(
      "Brave Search answered 422: VALIDATION: Unable to validate request parameter(s). Fix the arguments named in the message and call again.",
    );
  });

  it("BRAVESEARCH_SEARCH_NEWS returns articles with their source", async () => {
    const brave = await setup();
    expect(await brave.ok("BRAVESEARCH_SEARCH_NEWS", { query: "launch", freshness: "pd" })).toEqual({
      results: [
        { title: "Rocket launch", url: "https://news.example/launch", description: "Liftoff", age: "1 hour ago", source: "news.example" },
      ],
      nextCursor: null,
    });
    expect(Object.fromEntries(brave.last().query)).toEqual({
      q: "launch",
      count: "20",
      offset: "0",
      freshness: "pd",
      safesearch: "moderate",
    });
    expect(brave.last().headers.get("accept")).toBe("application/json");
  });
});
