/**
 * `npm run bench:mcp` (and the end of `npm run bench`): what the MCP server costs, in server time.
 *
 * One handler, in this process, with a toolkit of 1,000 tools that run locally (no upstream), so
 * that what is timed is the handler alone: no socket, no load generator. Two figures:
 *
 * - `tools/list` over the 1,000 tools (`?toolkits=bulk`): the time of one page, and of every page
 *   one after the other (the whole listing a client makes);
 * - the added cost of one MCP `tools/call` over the same call made as `POST /execute`, one at a
 *   time (one connection): the two are interleaved, call by call, and the difference is the median
 *   of per-round differences of medians.
 *
 * Environment: BENCH_RUNS (rounds, default 3), BENCH_MCP_CALLS (calls per round and kind, default
 * 2000). A report, not a test: it always exits 0.
 */
import { z } from "zod";
import { createToolsHandler, defineTool, defineToolkit, issueApiKey, memoryStore } from "../src/index.js";
import { median, positive, progress } from "./report.js";

const RUNS = positive("BENCH_RUNS", 3);
const CALLS = positive("BENCH_MCP_CALLS", 2000);
const TOOLS = 1000;
const LIST_TARGET_MS = 20;
const CALL_TARGET_MS = 0.3;

const bulk = defineToolkit({
  slug: "bulk",
  name: "Bulk",
  description: "A thousand tools that answer from memory.",
  auth: { type: "none" },
  tools: Array.from({ length: TOOLS }, (_, i) =>
    defineTool({
      slug: `BULK_TOOL_${i}`,
      name: `Bulk tool ${i}`,
      description: `Tool number ${i}: echoes its argument, with a description of a realistic length for a model to read.`,
      input: z.object({ text: z.string().max(100).describe("Any text; it comes back.") }),
      annotations: { readOnly: true },
      run: (args) => ({ echo: args.text }),
    }),
  ),
});

async function main(): Promise<void> {
  const store = memoryStore();
  const tools = createToolsHandler({ store, secret: "a-benchmark-secret-of-at-least-thirty-two-bytes", toolkits: [bulk] });
  const { key } = await issueApiKey(store, { workspaceId: "bench", agentId: "agent" });
  const base = "http://bench.test/proxy/tools";
  const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream", "x-api-key": key };

  let id = 0;
  const mcp = async (method: string, params: unknown, query = "?toolkits=bulk") => {
    const response = await tools(
      new Request(`${base}/mcp${query}`, {
        method: "POST",
        headers: mcpHeaders,
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
      }),
    );
    const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
    if (!body.result) throw new Error(`MCP ${method} failed: ${JSON.stringify(body.error)}`);
    return body.result;
  };
  const execute = async () => {
    const response = await tools(
      new Request(`${base}/execute`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: JSON.stringify({ tool: "BULK_TOOL_7", arguments: { text: "hi" } }),
      }),
    );
    const body = (await response.json()) as { successful?: boolean };
    if (!body.successful) throw new Error("execute failed");
  };
  const call = async () => {
    const result = await mcp("tools/call", { name: "BULK_TOOL_7", arguments: { text: "hi" } });
    if (result.isError) throw new Error("tools/call failed");
  };
  const listAll = async () => {
    let cursor: string | undefined;
    let count = 0;
    let pages = 0;
    do {
      const page = (await mcp("tools/list", cursor ? { cursor } : {})) as { tools: unknown[]; nextCursor?: string };
      count += page.tools.length;
      pages++;
      cursor = page.nextCursor;
    } while (cursor);
    if (count !== TOOLS) throw new Error(`tools/list gave ${count} tools, not ${TOOLS}`);
    return pages;
  };

  // Warm-up: the SDK's first load, JIT.
  await mcp("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } });
  for (let i = 0; i < 200; i++) await Promise.all([execute(), call()]).then(() => undefined);
  const pages = await listAll();

  const firstPage: number[] = [];
  const wholeList: number[] = [];
  const executeMs: number[] = [];
  const callMs: number[] = [];
  const added: number[] = [];
  for (let round = 1; round <= RUNS; round++) {
    progress(`mcp bench: round ${round} of ${RUNS}`);
    const listing: number[] = [];
    const page: number[] = [];
    for (let i = 0; i < 30; i++) {
      let start = performance.now();
      await mcp("tools/list", {});
      page.push(performance.now() - start);
      start = performance.now();
      await listAll();
      listing.push(performance.now() - start);
    }
    const e: number[] = [];
    const c: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      let start = performance.now();
      await execute();
      e.push(performance.now() - start);
      start = performance.now();
      await call();
      c.push(performance.now() - start);
    }
    firstPage.push(median(page));
    wholeList.push(median(listing));
    executeMs.push(median(e));
    callMs.push(median(c));
    added.push(median(c) - median(e));
  }
  progress("");

  const ms = (value: number) => `${value.toFixed(3)} ms`;
  const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
  const list = median(wholeList);
  const extra = median(added);
  process.stdout.write(
    [
      `MCP server time, in process (${RUNS} rounds, medians of round medians; node ${process.version})`,
      `  tools/list, ${TOOLS} tools: first page ${ms(median(firstPage))}, all ${pages} pages ${ms(list)}` +
        ` (target under ${LIST_TARGET_MS} ms: ${verdict(list < LIST_TARGET_MS)})`,
      `  one call, 1 at a time: POST /execute ${ms(median(executeMs))}, MCP tools/call ${ms(median(callMs))},` +
        ` added ${ms(extra)} (target within ${CALL_TARGET_MS} ms: ${verdict(extra <= CALL_TARGET_MS)})`,
      "",
    ].join("\n"),
  );
}

main().catch((error: unknown) => {
  process.stdout.write(`mcp bench failed: ${(error as Error).message}\n`);
});
