/**
 * Perplexity's curated tools over an emulation of its API. Answer shapes follow Perplexity's reference:
 * https://docs.perplexity.ai/api-reference/search-post
 * https://docs.perplexity.ai/api-reference/chat-completions-post
 * Perplexity's answers are whole (no pages): a search returns at most 20 results.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { perplexityTools } from "../../../src/catalog/tools/perplexity.js";
import { expectAuthorized, reply, toolkitHarness } from "./support.js";

const API = "https://api.perplexity.ai";
let t: Awaited<ReturnType<typeof toolkitHarness>>;

beforeAll(async () => {
  t = await toolkitHarness({ slug: "perplexity", name: "Perplexity", baseUrl: API, tools: perplexityTools });
});
afterAll(() => t.close());

describe("PERPLEXITY_SEARCH_WEB", () => {
  it("posts the query and filters, and trims snippets", async () => {
    t.api.answer(() =>
      reply({
        id: "e38104d5-7f5c-4b3e-9a1d-8c2f0a6b1e11",
        results: [
          { title: "JWST news", url: "https://webb.nasa.gov/", snippet: "s".repeat(3000), date: "2024-03-01", last_updated: "2024-03-05" },
          { title: "Other", url: "https://example.org/", snippet: "short" },
        ],
      }),
    );
    const result = await t.execute("PERPLEXITY_SEARCH_WEB", {
      query: "JWST status",
      maxResults: 2,
      domains: ["nasa.gov", "-reddit.com"],
      recency: "month",
    });
    expect(result.successful, result.error ?? "").toBe(true);
    const [request] = t.api.sent;
    expect(request!.method).toBe("POST");
    expect(request!.url.href).toBe(`${API}/search`);
    expect(request!.json()).toEqual({
      query: "JWST status",
      max_results: 2,
      search_domain_filter: ["nasa.gov", "-reddit.com"],
      search_recency_filter: "month",
    });
    expectAuthorized(t.api.sent);
    expect(result.data.results[0]).toMatchObject({
      title: "JWST news",
      url: "https://webb.nasa.gov/",
      date: "2024-03-01",
      lastUpdated: "2024-03-05",
    });
    expect(result.data.results[0].snippet).toHaveLength(2000);
    expect(result.data.results[1]).toEqual({
      title: "Other",
      url: "https://example.org/",
      snippet: "short",
      date: null,
      lastUpdated: null,
    });
  });

  it("reports a refused key with what to do", async () => {
    t.api.answer(() => reply({ error: { message: "Invalid API key provided.", type: "invalid_api_key", code: 401 } }, 401));
    const result = await t.execute("PERPLEXITY_SEARCH_WEB", { query: "x" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 401 });
    expect(result.error).toMatch(/^Perplexity answered 401: Invalid API key provided\. The Perplexity connection's credential was refused/);
  });
});

describe("PERPLEXITY_ANSWER_QUESTION", () => {
  it("sends a chat completion and returns the answer without its reasoning, with the sources", async () => {
    t.api.answer(() =>
      reply({
        id: "chat-1",
        model: "sonar-reasoning-pro",
        object: "chat.completion",
        created: 1724369245,
        citations: ["https://webb.nasa.gov/"],
        search_results: [{ title: "JWST", url: "https://webb.nasa.gov/", date: "2024-03-01" }],
        choices: [
          {
            index: 0,
            finish_reason: "stop",
            message: { role: "assistant", content: "<think>Let me check.</think>\nIt is operating normally [1]." },
          },
        ],
        usage: { prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 },
      }),
    );
    const result = await t.execute("PERPLEXITY_ANSWER_QUESTION", {
      question: "Is JWST working?",
      model: "sonar-reasoning-pro",
      instructions: "Answer in one sentence.",
      recency: "week",
    });
    expect(t.api.sent[0]!.url.href).toBe(`${API}/chat/completions`);
    expect(t.api.sent[0]!.json()).toEqual({
      model: "sonar-reasoning-pro",
      messages: [
        { role: "system", content: "Answer in one sentence." },
        { role: "user", content: "Is JWST working?" },
      ],
      search_recency_filter: "week",
    });
    expect(result.data).toEqual({
      answer: "It is operating normally [1].",
      sources: [{ title: "JWST", url: "https://webb.nasa.gov/", date: "2024-03-01" }],
      model: "sonar-reasoning-pro",
      usage: { promptTokens: 12, completionTokens: 30, totalTokens: 42 },
    });
  });

  it("falls back to the citation URLs when there are no search results", async () => {
    t.api.answer(() => reply({ model: "sonar", citations: ["https://a.example/"], choices: [{ message: { content: "Yes [1]." } }] }));
    const result = await t.execute("PERPLEXITY_ANSWER_QUESTION", { question: "q" });
    expect(t.api.sent[0]!.json().model).toBe("sonar");
    expect(result.data.sources).toEqual([{ title: null, url: "https://a.example/", date: null }]);
  });
});
