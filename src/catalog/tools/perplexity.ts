// Perplexity's curated tools. Facts from Perplexity's API reference:
// https://docs.perplexity.ai/api-reference/search-post (POST /search: query, max_results 1-20, search_domain_filter,
//   search_recency_filter, country; results with title, url, snippet, date, last_updated)
// https://docs.perplexity.ai/api-reference/chat-completions-post (POST /chat/completions: model, messages,
//   search_domain_filter, search_recency_filter; choices[].message.content, citations, search_results, usage)
// https://docs.perplexity.ai/getting-started/models (sonar, sonar-pro, sonar-reasoning-pro, sonar-deep-research)
// https://docs.perplexity.ai/guides/search-domain-filter-guide ("-domain" excludes a domain)
import { z } from "zod";
import { defineTool, type Tool } from "../../toolkits/define.js";
import { type ProviderErrors, requestJson } from "../../toolkits/provider-requests.js";
import { excerpt } from "./content.js";

const PERPLEXITY: ProviderErrors = { name: "Perplexity" };

const domains = z
  .array(z.string().min(1).max(253))
  .max(20)
  .optional()
  .meta({ description: 'Only these domains, e.g. ["nature.com"]; prefix one with - to exclude it instead, e.g. ["-reddit.com"].' });
const recency = z
  .enum(["hour", "day", "week", "month", "year"])
  .optional()
  .meta({ description: "Only sources published within this past period." });

const searchWeb = defineTool({
  slug: "PERPLEXITY_SEARCH_WEB",
  name: "Search the web",
  description:
    "Searches the web with Perplexity's index and returns ranked results (title, url, snippet of page text, date, last updated), " +
    "without an AI answer. Use it to find sources to read; use PERPLEXITY_ANSWER_QUESTION for a written answer with citations.",
  input: z.object({
    query: z.string().min(1).max(2000).meta({ description: "What to search for." }),
    maxResults: z.number().int().min(1).max(20).default(10).meta({ description: "Results to return, 1 to 20 (default 10)." }),
    domains,
    recency,
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, "must be a two-letter country code")
      .optional()
      .meta({ description: "Prefer results from this country, e.g. US or DE." }),
    maxSnippetChars: z
      .number()
      .int()
      .min(100)
      .max(20_000)
      .default(2000)
      .meta({ description: "Longest snippet kept per result (default 2000)." }),
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const answer = await requestJson<{
      id?: string;
      results?: Array<{ title?: string; url: string; snippet?: string; date?: string | null; last_updated?: string | null }>;
    }>(ctx, PERPLEXITY, "/search", {
      method: "POST",
      json: {
        query: args.query,
        max_results: args.maxResults,
        search_domain_filter: args.domains,
        search_recency_filter: args.recency,
        country: args.country,
      },
    });
    return {
      results: (answer.results ?? []).map((r) => ({
        title: r.title ?? null,
        url: r.url,
        snippet: excerpt(r.snippet, args.maxSnippetChars),
        date: r.date ?? null,
        lastUpdated: r.last_updated ?? null,
      })),
    };
  },
});

interface ChatAnswer {
  id?: string;
  model?: string;
  choices?: Array<{ message?: { content?: string } }>;
  citations?: string[];
  search_results?: Array<{ title?: string; url: string; date?: string | null }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
}

const answerQuestion = defineTool({
  slug: "PERPLEXITY_ANSWER_QUESTION",
  name: "Answer a question from the web",
  description:
    "Asks a Sonar model, which searches the web and writes an answer citing its sources as [1], [2]... Returns `answer`, `sources` " +
    "(title, url, date, in citation order) and token usage. `sonar` is fast and cheap, `sonar-pro` handles harder questions, " +
    "`sonar-reasoning-pro` reasons step by step; `sonar-deep-research` writes long reports and can take minutes.",
  input: z.object({
    question: z.string().min(1).max(20_000).meta({ description: "The question, with any context the answer needs." }),
    model: z
      .enum(["sonar", "sonar-pro", "sonar-reasoning-pro", "sonar-deep-research"])
      .default("sonar")
      .meta({ description: "The Sonar model (default sonar)." }),
    instructions: z.string().max(4000).optional().meta({ description: "A system message: how to answer (length, tone, format)." }),
    domains,
    recency,
  }),
  annotations: { readOnly: true, idempotent: false, openWorld: true },
  async run(args, ctx) {
    const messages = [
      ...(args.instructions ? [{ role: "system", content: args.instructions }] : []),
      { role: "user", content: args.question },
    ];
    const answer = await requestJson<ChatAnswer>(ctx, PERPLEXITY, "/chat/completions", {
      method: "POST",
      json: { model: args.model, messages, search_domain_filter: args.domains, search_recency_filter: args.recency },
    });
    const text = answer.choices?.[0]?.message?.content ?? "";
    const sources = answer.search_results?.length
      ? answer.search_results.map((s) => ({ title: s.title ?? null, url: s.url, date: s.date ?? null }))
      : (answer.citations ?? []).map((url) => ({ title: null, url, date: null }));
    return {
      // Reasoning models put their thinking in <think> before the answer; the agent wants the answer.
      answer: text.replace(/^\s*<think>[\s\S]*?<\/think>\s*/, ""),
      sources,
      model: answer.model ?? args.model,
      usage: {
        promptTokens: answer.usage?.prompt_tokens ?? null,
        completionTokens: answer.usage?.completion_tokens ?? null,
        totalTokens: answer.usage?.total_tokens ?? null,
      },
    };
  },
});

/** Perplexity's curated tools: web search results, and search-grounded answers with sources. */
export const perplexityTools: Tool[] = [searchWeb, answerQuestion];
