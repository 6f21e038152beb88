// Exa's curated tools. Facts from Exa's API reference:
// https://exa.ai/docs/reference/search (POST /search: query, type, category, numResults, includeDomains, excludeDomains,
//   startPublishedDate, endPublishedDate, contents { text { maxCharacters }, highlights }; results with id, url, title,
//   publishedDate, author, text, highlights; requestId)
// https://exa.ai/docs/reference/get-contents (POST /contents: urls, text; results, statuses with id, status, error)
// https://exa.ai/docs/reference/find-similar-links (POST /findSimilar: url, numResults, excludeSourceDomain, contents)
// https://exa.ai/docs/reference/answer (POST /answer: query, text; answer, citations)
// https://exa.ai/docs/reference/error-codes (requestId, error, tag)
import { z } from "zod";
import { defineTool, type Tool } from "../../toolkits/define.js";
import { type ProviderErrors, requestJson } from "../../toolkits/provider-requests.js";
import { field } from "./content.js";

/** Exa's `tag` (e.g. NO_MORE_CREDITS) with its `error` message. */
function exaReason(body: unknown): string | undefined {
  const error = field(body, "error");
  const tag = field(body, "tag");
  if (typeof error !== "string") return typeof tag === "string" ? tag : undefined;
  return typeof tag === "string" && !error.includes(tag) ? `${tag}: ${error}` : error;
}

const EXA: ProviderErrors = {
  name: "Exa",
  reason: exaReason,
  hints: { 402: "The Exa account is out of credits or over its key's budget: top it up at dashboard.exa.ai." },
};

interface ExaResult {
  id?: string;
  url: string;
  title?: string | null;
  publishedDate?: string | null;
  author?: string | null;
  text?: string;
  highlights?: string[];
}
const resultSummary = (r: ExaResult) => ({
  title: r.title ?? null,
  url: r.url,
  publishedDate: r.publishedDate ?? null,
  author: r.author ?? null,
  text: r.text ?? null,
  highlights: r.highlights ?? [],
});

const maxChars = z
  .number()
  .int()
  .min(0)
  .max(100_000)
  .default(3000)
  .meta({ description: "Characters of each page's text to return (default 3000; 0 returns highlights only)." });
const numResults = z.number().int().min(1).max(100).default(10).meta({ description: "Results to return, 1 to 100 (default 10)." });
const contents = (chars: number) => (chars > 0 ? { text: { maxCharacters: chars } } : { highlights: true });

const searchWeb = defineTool({
  slug: "EXA_SEARCH_WEB",
  name: "Search the web",
  description:
    "Searches the web with Exa's neural (meaning-based) and keyword index and returns pages with their text: describe what you " +
    "want (`blog posts about vector databases written by practitioners`) rather than typing keywords. Filters: a category (company, " +
    "research paper, news, pdf, github, personal site, linkedin profile, financial report), domains and publish dates.",
  input: z.object({
    query: z.string().min(1).max(2000).meta({ description: "What to find, described in words." }),
    type: z.enum(["auto", "neural", "keyword", "fast"]).default("auto").meta({ description: "Search type (default auto)." }),
    category: z
      .enum(["company", "research paper", "news", "pdf", "github", "personal site", "linkedin profile", "financial report"])
      .optional()
      .meta({ description: "Only this kind of page." }),
    numResults,
    includeDomains: z.array(z.string().min(1).max(253)).max(100).optional().meta({ description: "Only these domains." }),
    excludeDomains: z.array(z.string().min(1).max(253)).max(100).optional().meta({ description: "Not these domains." }),
    startPublishedDate: z.iso.datetime().optional().meta({ description: "Only pages published after, e.g. 2024-01-01T00:00:00Z." }),
    endPublishedDate: z.iso.datetime().optional().meta({ description: "Only pages published before." }),
    maxChars,
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const { maxChars: chars, ...search } = args;
    const answer = await requestJson<{ requestId?: string; results?: ExaResult[] }>(ctx, EXA, "/search", {
      method: "POST",
      json: { ...search, contents: contents(chars) },
    });
    return { results: (answer.results ?? []).map(resultSummary), requestId: answer.requestId ?? null };
  },
});

const getContents = defineTool({
  slug: "EXA_GET_CONTENTS",
  name: "Get page contents",
  description:
    "Reads the clean text of 1 to 100 pages by URL (from Exa's cache, or crawled live when missing). Returns `pages` (title, url, " +
    "date, author, text) and `failed` (url and the reason) for pages that could not be read.",
  input: z.object({
    urls: z.array(z.url().max(2000)).min(1).max(100).meta({ description: "The pages' URLs." }),
    maxChars: maxChars.default(10_000).meta({ description: "Characters of each page's text to return (default 10000)." }),
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const answer = await requestJson<{
      results?: ExaResult[];
      statuses?: Array<{ id: string; status: string; error?: { tag?: string; httpStatusCode?: number } | null }>;
    }>(ctx, EXA, "/contents", { method: "POST", json: { urls: args.urls, ...contents(args.maxChars) } });
    return {
      pages: (answer.results ?? []).map(resultSummary),
      failed: (answer.statuses ?? [])
        .filter((s) => s.status !== "success")
        .map((s) => ({ url: s.id, error: s.error?.tag ?? s.status, httpStatus: s.error?.httpStatusCode ?? null })),
    };
  },
});

const findSimilar = defineTool({
  slug: "EXA_FIND_SIMILAR",
  name: "Find similar pages",
  description:
    "Finds pages similar in meaning to a given page (competitors of a company's site, papers like a paper, posts like a post), " +
    "with their text. Pages of the same site are left out unless `includeSourceDomain`.",
  input: z.object({
    url: z.url().max(2000).meta({ description: "The page to find others like." }),
    numResults,
    includeSourceDomain: z.boolean().default(false).meta({ description: "Keep pages of the given page's own site (default false)." }),
    maxChars,
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const answer = await requestJson<{ results?: ExaResult[] }>(ctx, EXA, "/findSimilar", {
      method: "POST",
      json: {
        url: args.url,
        numResults: args.numResults,
        excludeSourceDomain: !args.includeSourceDomain,
        contents: contents(args.maxChars),
      },
    });
    return { results: (answer.results ?? []).map(resultSummary) };
  },
});

const answerQuestion = defineTool({
  slug: "EXA_ANSWER_QUESTION",
  name: "Answer a question from the web",
  description:
    "Searches with Exa and writes a short answer to a question, with the pages it cites (title, url, date, author). Use it for a " +
    "fact or summary; use EXA_SEARCH_WEB to read the sources yourself.",
  input: z.object({ question: z.string().min(1).max(2000).meta({ description: "The question." }) }),
  annotations: { readOnly: true, idempotent: false, openWorld: true },
  async run(args, ctx) {
    const answer = await requestJson<{ answer?: string; citations?: ExaResult[]; requestId?: string }>(ctx, EXA, "/answer", {
      method: "POST",
      json: { query: args.question, text: false },
    });
    return {
      answer: typeof answer.answer === "string" ? answer.answer : JSON.stringify(answer.answer ?? null),
      citations: (answer.citations ?? []).map((c) => ({
        title: c.title ?? null,
        url: c.url,
        publishedDate: c.publishedDate ?? null,
        author: c.author ?? null,
      })),
    };
  },
});

/** Exa's curated tools: neural web search, page contents, similar pages and cited answers. */
export const exaTools: Tool[] = [searchWeb, getContents, findSimilar, answerQuestion];
