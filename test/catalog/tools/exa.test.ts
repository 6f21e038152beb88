/**
 * Exa's curated tools over an emulation of its API. Answer shapes follow Exa's reference:
 * https://exa.ai/docs/reference/search
 * https://exa.ai/docs/reference/get-contents
 * https://exa.ai/docs/reference/find-similar-links
 * https://exa.ai/docs/reference/answer
 * Exa's answers are whole (no pages): a search returns at most 100 results.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exaTools } from "../../../src/catalog/tools/exa.js";
import { expectAuthorized, reply, toolkitHarness } from "./support.js";

const API = "https://api.exa.ai";
let t: Awaited<ReturnType<typeof toolkitHarness>>;

beforeAll(async () => {
  t = await toolkitHarness({ slug: "exa", name: "Exa", baseUrl: API, tools: exaTools });
});
afterAll(() => t.close());

const page = (url: string, extra: Record<string, unknown> = {}) => ({
  id: url,
  url,
  title: "Adept: Useful General Intelligence",
  publishedDate: "2024-01-01T00:00:00.000Z",
  author: null,
  text: "Adept is building AI...",
  ...extra,
});

describe("EXA_SEARCH_WEB", () => {
  it("posts the search with text contents", async () => {
    t.api.answer(() =>
      reply({ requestId: "a78ebce717f4d712b6f8fe0d5d7753f8", resolvedSearchType: "neural", results: [page("https://www.adept.ai/")] }),
    );
    const result = await t.execute("EXA_SEARCH_WEB", {
      query: "hottest AI startups",
      numResults: 5,
      category: "company",
      includeDomains: ["adept.ai"],
    });
    expect(result.successful, result.error ?? "").toBe(true);
    expect(t.api.sent[0]!.method).toBe("POST");
    expect(t.api.sent[0]!.url.href).toBe(`${API}/search`);
    expect(t.api.sent[0]!.json()).toEqual({
      query: "hottest AI startups",
      type: "auto",
      category: "company",
      numResults: 5,
      includeDomains: ["adept.ai"],
      contents: { text: { maxCharacters: 3000 } },
    });
    expectAuthorized(t.api.sent);
    expect(result.data).toEqual({
      results: [
        {
          title: "Adept: Useful General Intelligence",
          url: "https://www.adept.ai/",
          publishedDate: "2024-01-01T00:00:00.000Z",
          author: null,
          text: "Adept is building AI...",
          highlights: [],
        },
      ],
      requestId: "a78ebce717f4d712b6f8fe0d5d7753f8",
    });
  });

  it("asks for highlights only when maxChars is 0", async () => {
    t.api.answer(() => reply({ results: [page("https://a.example/", { text: undefined, highlights: ["a key sentence"] })] }));
    const result = await t.execute("EXA_SEARCH_WEB", { query: "q", maxChars: 0 });
    expect(t.api.sent[0]!.json().contents).toEqual({ highlights: true });
    expect(result.data.results[0].highlights).toEqual(["a key sentence"]);
  });

  it("reports Exa's tagged error", async () => {
    t.api.answer(() => reply({ requestId: "r1", error: "You have run out of credits", tag: "NO_MORE_CREDITS" }, 402));
    const result = await t.execute("EXA_SEARCH_WEB", { query: "q" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 402 });
    expect(result.error).toMatch(/^Exa answered 402: NO_MORE_CREDITS: You have run out of credits\. The Exa account is out of credits/);
  });
});

describe("contents, similar pages and answers", () => {
  it("EXA_GET_CONTENTS returns the pages read and those that failed", async () => {
    t.api.answer(() =>
      reply({
        requestId: "r2",
        results: [page("https://www.adept.ai/")],
        statuses: [
          { id: "https://www.adept.ai/", status: "success", error: null },
          { id: "https://gone.example/", status: "error", error: { tag: "CRAWL_NOT_FOUND", httpStatusCode: 404 } },
        ],
      }),
    );
    const result = await t.execute("EXA_GET_CONTENTS", { urls: ["https://www.adept.ai/", "https://gone.example/"] });
    expect(t.api.sent[0]!.url.href).toBe(`${API}/contents`);
    expect(t.api.sent[0]!.json()).toEqual({ urls: ["https://www.adept.ai/", "https://gone.example/"], text: { maxCharacters: 10000 } });
    expect(result.data.pages).toHaveLength(1);
    expect(result.data.failed).toEqual([{ url: "https://gone.example/", error: "CRAWL_NOT_FOUND", httpStatus: 404 }]);
  });

  it("EXA_FIND_SIMILAR leaves out the source's site by default", async () => {
    t.api.answer(() => reply({ results: [page("https://www.other.ai/")] }));
    await t.execute("EXA_FIND_SIMILAR", { url: "https://www.adept.ai/", numResults: 3 });
    expect(t.api.sent[0]!.url.href).toBe(`${API}/findSimilar`);
    expect(t.api.sent[0]!.json()).toEqual({
      url: "https://www.adept.ai/",
      numResults: 3,
      excludeSourceDomain: true,
      contents: { text: { maxCharacters: 3000 } },
    });
  });

  it("EXA_ANSWER_QUESTION returns the answer and its citations", async () => {
    t.api.answer(() =>
      reply({
        answer: "A vector database stores embeddings.",
        citations: [page("https://docs.example/vdb", { title: "Vector DBs" })],
        requestId: "r3",
      }),
    );
    const result = await t.execute("EXA_ANSWER_QUESTION", { question: "What is a vector database?" });
    expect(t.api.sent[0]!.url.href).toBe(`${API}/answer`);
    expect(t.api.sent[0]!.json()).toEqual({ query: "What is a vector database?", text: false });
    expect(result.data).toEqual({
      answer: "A vector database stores embeddings.",
      citations: [{ title: "Vector DBs", url: "https://docs.example/vdb", publishedDate: "2024-01-01T00:00:00.000Z", author: null }],
    });
  });
});
