/**
 * The curated SerpApi tools through POST /execute, against an emulation of https://serpapi.com answering as SerpApi's
 * documentation shows: `search_metadata`, `organic_results`, `answer_box`, `news_results` and `serpapi_pagination.next`
 * for a search, `{ error }` for a failure (and a 200 `{ error }` when Google has no results), and the Account API.
 */
import { describe, expect, it } from "vitest";
import { serpapiTools } from "../../../src/catalog/tools/serpapi.js";
import { json, type Route, setupToolkit } from "./support-b.js";

const routes: Route[] = [
  {
    method: "GET",
    path: /^\/search\.json$/,
    answer: (request) => {
      const q = request.query.get("q");
      if (q === "quota") return json({ error: "Your account has run out of searches." }, 429);
      if (q === "zzqqxx")
        return json({ search_metadata: { id: "s2", status: "Success" }, error: "Google hasn't returned any results for this query." });
      const start = Number(request.query.get("start") ?? 0);
      const next = `https://serpapi.com/search.json?engine=google&q=${q}&start=${start + 10}`;
      if (request.query.get("tbm") === "nws")
        return json({
          search_metadata: { id: "s3", status: "Success" },
          news_results: [
            {
              position: 1,
              link: "https://news.example/a",
              title: "Coffee prices",
              source: "News Example",
              date: "3 hours ago",
              snippet: "Up again",
            },
          ],
          serpapi_pagination: { current: 1, next },
        });
      return json({
        search_metadata: { id: "s1", status: "Success", google_url: "https://www.google.com/search?q=coffee" },
        search_parameters: { engine: "google", q },
        search_information: { total_results: 2190000000, time_taken_displayed: 0.42 },
        answer_box: { type: "organic_result", title: "Coffee", snippet: "A brewed drink", link: "https://en.wikipedia.org/wiki/Coffee" },
        organic_results: [
          {
            position: 1,
            title: "Coffee - Wikipedia",
            link: "https://en.wikipedia.org/wiki/Coffee",
            displayed_link: "en.wikipedia.org",
            snippet: "Coffee is a beverage",
            source: "Wikipedia",
          },
        ],
        serpapi_pagination: { current: 1, next, other_pages: {} },
      });
    },
  },
  {
    method: "GET",
    path: /^\/account\.json$/,
    answer: () =>
      json({
        account_id: "a1",
        plan_name: "Developer",
        searches_per_month: 5000,
        plan_searches_left: 4000,
        total_searches_left: 4100,
        this_month_usage: 900,
        account_rate_limit_per_hour: 1000,
      }),
  },
];

const setup = () => setupToolkit({ slug: "serpapi", baseUrl: "https://serpapi.com", tools: serpapiTools, routes });

describe("SerpApi tools", () => {
  it("SERPAPI_SEARCH_WEB sends engine=google with the filters and takes the next start as the cursor", async () => {
    const serp = await setup();
    expect(
      await serp.ok("SERPAPI_SEARCH_WEB", {
        query: "coffee",
        location: "Austin, Texas, United States",
        country: "us",
        language: "en",
        cursor: "10",
      }),
    ).toEqual({
      results: [
        {
          position: 1,
          title: "Coffee - Wikipedia",
          link: "https://en.wikipedia.org/wiki/Coffee",
          snippet: "Coffee is a beverage",
          date: null,
          source: "Wikipedia",
        },
      ],
      answerBox: { title: "Coffee", answer: "A brewed drink", link: "https://en.wikipedia.org/wiki/Coffee" },
      knowledgeGraph: null,
      totalResults: 2190000000,
      nextCursor: "20",
    });
    expect([serp.last().method, serp.last().path]).toEqual(["GET", "/search.json"]);
    expect(Object.fromEntries(serp.last().query)).toEqual({
      engine: "google",
      output: "json",
      q: "coffee",
      location: "Austin, Texas, United States",
      gl: "us",
      hl: "en",
      start: "10",
      num: "10",
    });
  });

  it("a 200 saying Google has no results is an empty last page", async () => {
    const serp = await setup();
    expect(await serp.ok("SERPAPI_SEARCH_WEB", { query: "zzqqxx" })).toMatchObject({ results: [], nextCursor: null });
  });

  it("a 429 is a failed result with SerpApi's error and the quota advice", async () => {
    const serp = await setup();
    const result = await serp.execute("SERPAPI_SEARCH_WEB", { query: "quota" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 429 });
    expect(result.error).toBe(
      "SerpApi answered 429: Your account has run out of searches. SerpApi's hourly limit or the plan's monthly searches are used up: wait, or check the account (SERPAPI_GET_ACCOUNT).",
    );
  });

  it("SERPAPI_SEARCH_NEWS asks for the news tab", async () => {
    const serp = await setup();
    expect(await serp.ok("SERPAPI_SEARCH_NEWS", { query: "coffee prices" })).toEqual({
      results: [
        {
          position: 1,
          title: "Coffee prices",
          link: "https://news.example/a",
          source: "News Example",
          date: "3 hours ago",
          snippet: "Up again",
        },
      ],
      nextCursor: "10",
    });
    expect(serp.last().query.get("tbm")).toBe("nws");
  });

  it("SERPAPI_GET_ACCOUNT reads the plan and searches left", async () => {
    const serp = await setup();
    expect(await serp.ok("SERPAPI_GET_ACCOUNT")).toEqual({
      plan: "Developer",
      searchesPerMonth: 5000,
      searchesLeft: 4100,
      thisMonthUsage: 900,
      hourlyLimit: 1000,
    });
    expect(serp.last().path).toBe("/account.json");
  });
});
