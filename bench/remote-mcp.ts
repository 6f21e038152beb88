/**
 * `npm run bench:remote-mcp` (and the end of `npm run bench`): the time a call to a remote MCP
 * server's tool gains by going through a remote MCP toolkit, against calling the server directly
 * with the SDK's client (target: within 1 ms at p50, 10 concurrent calls).
 *
 * Processes: the remote MCP server (the official SDK's, with a static bearer token; see
 * `bench/remote-mcp-servers.ts`) in one child process, the handler served over `node:http` in
 * another, and the callers in this one: on 2 cores, the server's and the handler's CPU time then
 * stay out of the callers' event loop, as they would on separate machines. Four ways to call the
 * same tool, each a closed loop of N concurrent callers that each start a call when their last
 * one answers, every call timed on its own:
 *
 * - (h) calibration: fetch `POST /ping` to the server's process, answered `{}` at once by `node:http`
 *   (one loopback HTTP round trip, what the extra hop of (b) costs at the least);
 * - (r) calibration: the same `tools/call` as (a) made with fetch and `JSON.parse` alone, in a session
 *   opened the same way (what the SDK's client costs above the bare protocol);
 * - (a) direct: the SDK `Client` on `StreamableHTTPClientTransport` to the server, with the bearer;
 * - (b) `POST /execute { tool: "remote.echo" }` over HTTP to the handler (fetch, keep-alive);
 * - (b') the same request given to the handler function in this process (no socket of its own:
 *   the handler's work without the extra hop);
 * - (c) the SDK `Client` to the handler's own `/mcp?toolkits=remote`.
 *
 * Rounds are interleaved (each way once per round, order reversed every other round) so that all
 * see the same machine; every figure is the median over rounds, and an added figure the median of
 * per-round differences of the two sides' percentiles. A report, not a test: it always exits 0.
 *
 * Environment: BENCH_RUNS (rounds, default 5), BENCH_SECONDS (per sample, default 2),
 * BENCH_WARMUP (seconds per way before the rounds, default 3), BENCH_CONCURRENCY (default "1,10";
 * the target is judged at 10), BENCH_FETCH (the handler's outbound fetch: "undici", the default,
 * for `createUndiciFetch`, or "global"), BENCH_REMOTE_JSON=1 (the server answers JSON instead of
 * the SDK's default one-event SSE stream), BENCH_WAYS (the ways to run, e.g. "a,b"; default all),
 * BENCH_REMOTE_PROFILE=1 (the handler's process runs under `--cpu-prof`; summarize the profile it
 * names with `npx tsx bench/profile.ts FILE`).
 */
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type ChildServer, startChild } from "./child.js";
import {
  MCP_PATH,
  PING_PATH,
  REMOTE_TOOL,
  REMOTE_TOOL_SLUG,
  REMOTE_TOOLKIT,
  type RemoteReady,
  type RemoteServerConfig,
  remoteToolsHandler,
} from "./remote-mcp-servers.js";
import { median, positive, printTable, progress, report } from "./report.js";
import { machineLine } from "./rounds.js";

const RUNS = positive("BENCH_RUNS", 5);
const SECONDS = positive("BENCH_SECONDS", 2);
const WARMUP = positive("BENCH_WARMUP", 3);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? "1,10")
  .split(",")
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);
const FETCH = process.env.BENCH_FETCH === "global" ? "global" : "undici";
const JSON_ANSWERS = process.env.BENCH_REMOTE_JSON === "1";
const ONLY = process.env.BENCH_WAYS?.split(",").map((id) => id.trim());
const PROFILE_DIR = process.env.BENCH_REMOTE_PROFILE === "1" ? mkdtempSync(join(tmpdir(), "tp-bench-remote-mcp-prof-")) : undefined;
const TARGET_MS = 1;
const TARGET_CONCURRENCY = 10;
const TOKEN = "remote-mcp-bearer-token-for-the-bench";
const TEXT = "hello from the remote MCP bench";
const SERVERS = new URL("./remote-mcp-servers.ts", import.meta.url).pathname;

/** One call of a way, which throws unless the tool answered as expected. */
type Call = () => Promise<void>;

interface Way {
  id: "h" | "r" | "a" | "b" | "b'" | "c";
  label: string;
  call: Call;
  /** Per concurrency, one sample per round. */
  samples: Map<number, Sample[]>;
}

interface Sample {
  p50: number;
  p90: number;
  callsPerSecond: number;
  failures: number;
  /** CPU µs per call of this process (the callers, and for b' the handler), the handler's process, the server's process. */
  cpu: { here: number; handler: number; server: number };
}

async function main(): Promise<void> {
  const children: ChildServer[] = [];
  const clients: Client[] = [];
  try {
    const remote = await start({ role: "mcp", token: TOKEN, json: JSON_ANSWERS }, children);
    const mcpUrl = `${remote.origin}${MCP_PATH}`;
    const direct = await connect(new URL(mcpUrl), { authorization: `Bearer ${TOKEN}` }, clients);
    const ways: Way[] = [
      way("h", "calibration: fetch POST /ping, one loopback round trip", async () => {
        const response = await fetch(`${remote.origin}${PING_PATH}`, { method: "POST", body: "{}" });
        if ((await response.text()) !== "{}") throw new Error(`POST /ping answered ${response.status}`);
      }),
      way("r", "calibration: raw JSON-RPC tools/call over fetch, no SDK", await rawCaller(mcpUrl)),
      way("a", "direct: SDK Client -> remote server", () => callTool(direct, REMOTE_TOOL)),
    ];
    // Without the handler side (a build without remote MCP toolkits, or one that fails), the rest is still measured.
    let tools: (ChildServer & RemoteReady) | undefined;
    let undici = false;
    try {
      const profile = PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`] : [];
      tools = await start({ role: "tools", mcp: mcpUrl, token: TOKEN, fetch: FETCH }, children, profile);
      const handlerSide = await handlerWays(mcpUrl, tools, clients);
      ways.push(...handlerSide.ways);
      undici = handlerSide.undici;
    } catch (error) {
      console.log(`the handler side is not measured: ${(error as Error).message.split("\n")[0]}`);
    }
    if (ONLY) ways.splice(0, ways.length, ...ways.filter((w) => ONLY.includes(w.id)));
    for (const w of ways) await w.call().catch((error: Error) => Promise.reject(new Error(`way (${w.id}) fails: ${error.message}`)));

    printSetup(remote, tools, undici);
    const cpuOf = async () => ({ here: hereCpu(), handler: tools ? await tools.cpu() : Number.NaN, server: await remote.cpu() });
    for (const w of ways) {
      progress(`warm-up (${w.id}) ${WARMUP}s`);
      await closedLoop(w.call, Math.max(...CONCURRENCY), WARMUP);
    }
    for (let round = 1; round <= RUNS; round++) {
      for (const w of round % 2 ? ways : [...ways].reverse()) {
        for (const concurrency of CONCURRENCY) {
          progress(`round ${round}/${RUNS}: (${w.id}) at ${concurrency} concurrent`);
          const before = await cpuOf();
          const run = await closedLoop(w.call, concurrency, SECONDS);
          const after = await cpuOf();
          const per = (k: keyof Sample["cpu"]) => (after[k] - before[k]) / Math.max(1, run.calls);
          w.samples.get(concurrency)!.push({ ...run, cpu: { here: per("here"), handler: per("handler"), server: per("server") } });
        }
      }
    }
    progress("");
    printResults(ways);
  } finally {
    await Promise.allSettled(clients.map((c) => c.close()));
    await Promise.all(children.map((c) => c.stop()));
    if (PROFILE_DIR) console.log(`the handler's CPU profile: ${join(PROFILE_DIR, readdirSync(PROFILE_DIR)[0] ?? "(none written)")}`);
  }
}

/** The ways through the handler: (b) over HTTP to `tools`, (b') in this process, (c) through `tools`' own /mcp. */
async function handlerWays(mcpUrl: string, tools: ChildServer & RemoteReady, clients: Client[]) {
  const inProcess = await remoteToolsHandler(mcpUrl, TOKEN, FETCH);
  const base = `${tools.origin}/proxy/tools`;
  const ours = await connect(new URL(`${base}/mcp?toolkits=${REMOTE_TOOLKIT}`), { "x-api-key": tools.agentKey! }, clients);
  const oursName = await toolName(ours);
  const body = JSON.stringify({ tool: REMOTE_TOOL_SLUG, arguments: { text: TEXT } });
  const init = (key: string): RequestInit => ({ method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body });
  const ways = [
    way("b", "POST /execute over HTTP -> handler -> remote server", async () =>
      expectExecuted(await fetch(`${base}/execute`, init(tools.agentKey!))),
    ),
    way("b'", "POST /execute, handler in this process -> remote server", async () =>
      expectExecuted(await inProcess.handler(new Request("http://bench.invalid/proxy/tools/execute", init(inProcess.key)))),
    ),
    way("c", "SDK Client -> handler /mcp?toolkits=remote -> remote server", () => callTool(ours, oursName)),
  ];
  return { ways, undici: inProcess.undici };
}

async function start(config: RemoteServerConfig, children: ChildServer[], execArgv: string[] = []): Promise<ChildServer & RemoteReady> {
  const child = await startChild(config, execArgv, SERVERS);
  children.push(child);
  if (child.error) throw new Error(`the ${config.role} server did not start: ${child.error}`);
  return child;
}

function way(id: Way["id"], label: string, call: Call): Way {
  return { id, label, call, samples: new Map(CONCURRENCY.map((c) => [c, []])) };
}

async function connect(url: URL, headers: Record<string, string>, clients: Client[]): Promise<Client> {
  const client = new Client({ name: "remote-mcp-bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  clients.push(client);
  return client;
}

/**
 * A bare MCP client: `initialize` and `notifications/initialized` with fetch, then each call one
 * POST in that session, its answer read from the JSON body or the one SSE event.
 */
async function rawCaller(mcpUrl: string): Promise<Call> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${TOKEN}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const post = async (message: object) => {
    const response = await fetch(mcpUrl, { method: "POST", headers, body: JSON.stringify(message) });
    const text = await response.text();
    if (!response.ok) throw new Error(`the remote server answered ${response.status} ${text.slice(0, 200)}`);
    return { response, text };
  };
  const clientInfo = { name: "remote-mcp-bench-raw", version: "1.0.0" };
  const init = await post({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo },
  });
  headers["mcp-session-id"] = init.response.headers.get("mcp-session-id") ?? "";
  headers["mcp-protocol-version"] = "2025-06-18";
  await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  let id = 0;
  return async () => {
    const { response, text } = await post({
      jsonrpc: "2.0",
      id: ++id,
      method: "tools/call",
      params: { name: REMOTE_TOOL, arguments: { text: TEXT } },
    });
    const json = response.headers.get("content-type")?.startsWith("text/event-stream") ? /^data: (.*)$/m.exec(text)?.[1] : text;
    const message = JSON.parse(json ?? "null") as { result?: { structuredContent?: { echo?: unknown } } } | null;
    if (message?.result?.structuredContent?.echo !== TEXT) throw new Error(`tools/call answered ${text.slice(0, 200)}`);
  };
}

/** The MCP name under which our `/mcp?toolkits=` lists the remote tool (its slug made to fit MCP's names). */
async function toolName(client: Client): Promise<string> {
  const { tools } = await client.listTools();
  const found = tools.find((t) => t.name === REMOTE_TOOL_SLUG || t.name.endsWith(REMOTE_TOOL));
  if (!found) throw new Error(`our /mcp does not list the remote tool (it lists ${tools.map((t) => t.name).join(", ") || "none"})`);
  return found.name;
}

async function callTool(client: Client, name: string): Promise<void> {
  const result = await client.callTool({ name, arguments: { text: TEXT } });
  const echo = (result.structuredContent as { echo?: unknown } | undefined)?.echo;
  if (result.isError || echo !== TEXT) throw new Error(`tools/call answered ${JSON.stringify(result).slice(0, 300)}`);
}

async function expectExecuted(response: Response): Promise<void> {
  const text = await response.text();
  const result = JSON.parse(text) as { successful?: boolean };
  if (response.status !== 200 || result.successful !== true || !text.includes(TEXT)) {
    throw new Error(`POST /execute answered ${response.status} ${text.slice(0, 300)}`);
  }
}

/**
 * `concurrency` callers for `seconds`, each starting its next call when its last one answered;
 * every call is timed. Percentiles are of the successful calls.
 */
async function closedLoop(call: Call, concurrency: number, seconds: number) {
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  const caller = async () => {
    while (performance.now() < end) {
      const t = performance.now();
      try {
        await call();
        latencies.push(performance.now() - t);
      } catch {
        failures++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((x, y) => x - y);
  return {
    p50: quantile(latencies, 0.5),
    p90: quantile(latencies, 0.9),
    callsPerSecond: latencies.length / elapsed,
    calls: latencies.length + failures,
    failures,
  };
}

/** The q-quantile of sorted values (nearest rank); NaN when empty. */
function quantile(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! : Number.NaN;
}

function hereCpu(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

function printSetup(remote: ChildServer, tools: ChildServer | undefined, undici: boolean): void {
  console.log("remote MCP toolkit benchmark: a remote MCP server's tool through tools-proxy, beside the SDK client calling it directly");
  console.log(machineLine());
  console.log(
    `remote server: @modelcontextprotocol/sdk McpServer + StreamableHTTPServerTransport (stateful sessions, ${JSON_ANSWERS ? "JSON" : "SSE"} answers) on node:http, bearer token, tool "${REMOTE_TOOL}" from memory with structuredContent; its own process (pid ${remote.pid})`,
  );
  console.log(
    `handler: createToolsHandler, memory store, remote toolkit "${REMOTE_TOOLKIT}" (auth bearer, one connection by POST /auth), outbound ${undici ? "createUndiciFetch" : "global fetch"}; over HTTP: toNodeHandler on node:http in its own process (pid ${tools?.pid ?? "none"}); (b') the same handler in this process`,
  );
  console.log(`callers: this process (pid ${process.pid}); SDK Client over fetch for (a) and (c), fetch (undici, keep-alive) for (b)`);
  console.log(
    `runs: warm-up ${WARMUP}s per way, then ${RUNS} interleaved rounds x ${SECONDS}s per way and concurrency (${CONCURRENCY.join(", ")}), closed loops`,
  );
  console.log("added (b) - (a): one more HTTP hop on loopback (caller -> handler: a socket, HTTP parsing both ways, toNodeHandler)");
  console.log("  plus the handler's work (API key, connection and its credential, the tool, the call through its MCP client, the result");
  console.log("  as an ExecutionResult) plus a third busy process on 2 cores; (b') - (a) is the handler's work alone, (b) - (b') the hop.");
  console.log("figures: ms, medians over rounds; added = median of per-round differences; cpu = µs per call in each process");
  console.log("");
}

function printResults(ways: Way[]): void {
  const rows = [["way", "", "conc", "calls/s", "p50 ms", "p90 ms", "cpu here", "cpu handler", "cpu server", "failures"]];
  for (const w of ways) {
    for (const concurrency of CONCURRENCY) {
      const s = w.samples.get(concurrency)!;
      const m = (f: (x: Sample) => number, digits: number) => median(s.map(f)).toFixed(digits);
      rows.push([
        `(${w.id})`,
        w.label,
        String(concurrency),
        m((x) => x.callsPerSecond, 0),
        m((x) => x.p50, 3),
        m((x) => x.p90, 3),
        m((x) => x.cpu.here, 0),
        m((x) => x.cpu.handler, 0),
        m((x) => x.cpu.server, 0),
        String(s.reduce((n, x) => n + x.failures, 0)),
      ]);
    }
  }
  printTable(rows, 2);
  const byId = new Map(ways.map((w) => [w.id, w]));
  /** Median over rounds of f(x's sample) - f(y's sample); NaN when either way did not run. */
  const added = (x: Way["id"], y: Way["id"], concurrency: number, f: (s: Sample) => number) => {
    const xs = byId.get(x)?.samples.get(concurrency);
    const ys = byId.get(y)?.samples.get(concurrency);
    return xs && ys ? median(xs.map((s, i) => f(s) - f(ys[i]!))) : Number.NaN;
  };
  if (!byId.has("a") || !["b", "b'", "c"].some((id) => byId.has(id as Way["id"]))) return;
  for (const concurrency of CONCURRENCY) {
    const line = (x: Way["id"], y: Way["id"]) =>
      `(${x}) - (${y}) p50 ${added(x, y, concurrency, (s) => s.p50).toFixed(3)} ms, p90 ${added(x, y, concurrency, (s) => s.p90).toFixed(3)} ms`;
    console.log(`added at ${concurrency} concurrent: ${line("b", "a")}; ${line("b'", "a")}; ${line("b", "b'")}; ${line("c", "a")}`);
    const cpu = (x: Way["id"]) => added(x, "a", concurrency, (s) => s.cpu.here + s.cpu.handler + s.cpu.server).toFixed(0);
    console.log(`  added CPU per call, all three processes: (b) ${cpu("b")} µs, (b') ${cpu("b'")} µs, (c) ${cpu("c")} µs`);
  }
  const p50 = added("b", "a", TARGET_CONCURRENCY, (s) => s.p50);
  const judged = Number.isNaN(p50)
    ? "not judged ((a) and (b) at 10 concurrent are needed)"
    : `${p50 <= TARGET_MS ? "PASS" : "FAIL"} (${p50.toFixed(3)} ms)`;
  console.log(`target: (b) - (a) within ${TARGET_MS} ms at p50, ${TARGET_CONCURRENCY} concurrent: ${judged}`);
  console.log("");
}

report(main);
