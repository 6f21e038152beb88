/**
 * The search benchmark, `npm run bench:search`: how long one search over the whole catalog takes,
 * as `GET /search` and `search_toolkits` run it (`searchToolkits` over every catalog provider),
 * and a search over every curated tool of the catalog (`rank` over the tools, each with its
 * toolkit's name, aliases and categories, as test/catalog/search.test.ts searches them). Each
 * query of a mixed set (names, categories, what an agent asks) runs `BENCH_SEARCH_ROUNDS` times
 * after a warm-up; it prints the median, p99 and maximum per search, in milliseconds of wall time,
 * and the mean CPU time per search (the process's user and system time over all of them), which a
 * busy machine inflates less. A report, not a test: exits 0.
 *
 * Environment: BENCH_SEARCH_ROUNDS (runs of each query, 100).
 */
import { loadavg } from "node:os";
import { catalogToolkit, providers } from "../src/catalog/index.js";
import { rank, searchToolkits } from "../src/toolkits/search.js";
import { median, positive, printTable, report } from "./report.js";

const ROUNDS = positive("BENCH_SEARCH_ROUNDS", 100);

const QUERIES = [
  "github",
  "gh",
  "google",
  "microsoft",
  "crm",
  "email",
  "ai",
  "llm",
  "project management",
  "customer support",
  "data warehouse",
  "speech to text",
  "product analytics",
  "time tracking",
  "send an email",
  "create a calendar event",
  "search the web",
  "scrape a website",
  "create an issue",
  "post a message to a channel",
  "append a row to a spreadsheet",
  "upload a video",
  "query a database",
  "add a contact to a crm",
  "move a jira issue to done",
  "read a file from a github repository",
  "xyzzy nothing matches",
];

/** The p-quantile of sorted values (nearest rank). */
function quantile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

/**
 * Milliseconds per call of `search` over every query, `ROUNDS` times each, after one warm-up
 * round, sorted; and the mean CPU milliseconds per call.
 */
function measure(search: (query: string) => unknown): { times: number[]; cpuMs: number } {
  for (const query of QUERIES) search(query);
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (let round = 0; round < ROUNDS; round++) {
    for (const query of QUERIES) {
      const started = performance.now();
      search(query);
      times.push(performance.now() - started);
    }
  }
  const used = process.cpuUsage(cpu);
  return { times: times.sort((a, b) => a - b), cpuMs: (used.user + used.system) / 1000 / times.length };
}

async function main(): Promise<void> {
  const toolkits = providers.map((provider) => catalogToolkit(provider.slug, { clientId: "id" }));
  const tools = toolkits.flatMap((toolkit) => toolkit.tools.map((tool) => ({ toolkit, tool })));
  const searchTools = (query: string) =>
    rank(tools, query, ({ toolkit, tool }) => ({
      slug: tool.slug,
      name: tool.name,
      description: tool.description,
      aliases: [toolkit.name, ...toolkit.aliases],
      categories: toolkit.categories,
    }));

  const rows = [["search", "items", "searches", "median ms", "p99 ms", "max ms", "cpu ms (mean)"]];
  for (const [name, items, search] of [
    ["toolkits (searchToolkits)", toolkits.length, (query: string) => searchToolkits(toolkits, query)],
    ["curated tools (rank)", tools.length, searchTools],
  ] as const) {
    const { times, cpuMs } = measure(search);
    rows.push([
      name,
      String(items),
      String(times.length),
      median(times).toFixed(3),
      quantile(times, 0.99).toFixed(3),
      times.at(-1)!.toFixed(3),
      cpuMs.toFixed(3),
    ]);
  }
  const load = loadavg()[0]!.toFixed(1);
  console.log(`Search over the catalog: ${QUERIES.length} queries, ${ROUNDS} rounds each, node ${process.version}, load average ${load}\n`);
  printTable(rows, 1);
}

report(main);
