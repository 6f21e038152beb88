/**
 * The second run of `npm run bench` (issue #18): the routes of a real `tools-proxy serve` (the
 * built bin, undici outbound), with its SQLite store and with `--memory`, beside what a hand-written
 * server costs: a bare `node:http` handler answering the same JSON as GET /connections, and the
 * minimal pipe proxy of `bench/pipe-proxy.ts` in front of the same upstream. Every server is its
 * own process; autocannon runs here. Rounds are interleaved and ratios are medians of per-round
 * ratios; each target is printed with its ratio and whether it is met. A report, not a test.
 *
 * Environment: BENCH_SECONDS (default 3), BENCH_RUNS (default 3), BENCH_WARMUP (default 2),
 * BENCH_CONNECTIONS (default "1,10"), as `bench/run.ts`.
 */
import { startChild } from "./child.js";
import { runLoad, type Sample } from "./load.js";
import { median, report } from "./report.js";
import {
  addedP50,
  checkAnswers,
  machineLine,
  paired,
  printTable,
  processCpuMicros,
  roundSettingsFromEnv,
  runRounds,
  type Scenario,
  scenario,
  throughput,
  verdict,
} from "./rounds.js";
import { type ServeProcess, startServe } from "./serve-process.js";
import { BENCH_TOOL, BENCH_TOOLKIT } from "./servers.js";

const SETTINGS = roundSettingsFromEnv();
const { seconds: SECONDS, runs: RUNS, warmup: WARMUP, connections: CONNECTIONS } = SETTINGS;
const UPSTREAM_KEY = "upstream-secret-key";

interface CpuSample extends Sample {
  /** CPU time of the scenario's server process per request served, in microseconds. */
  cpuPerRequest: number;
}

/** The targets of issue #18: a scenario over a reference, at a connection count, at least `ratio`. */
const TARGETS: Array<{ x: string; y: string; connections: number; ratio: number; what: string }> = [
  { x: "mem-connections", y: "bare", connections: 10, ratio: 0.7, what: "GET /connections (--memory) / bare node:http" },
  { x: "sql-connections", y: "bare", connections: 10, ratio: 0.5, what: "GET /connections (SQLite) / bare node:http" },
  { x: "sql-proxy", y: "pipe", connections: 10, ratio: 0.5, what: "POST /proxy (SQLite) / pipe proxy" },
  { x: "sql-proxy", y: "pipe", connections: 1, ratio: 0.6, what: "POST /proxy (SQLite) / pipe proxy" },
  { x: "mem-proxy", y: "pipe", connections: 10, ratio: 0.5, what: "POST /proxy (--memory) / pipe proxy" },
  { x: "mem-proxy", y: "pipe", connections: 1, ratio: 0.6, what: "POST /proxy (--memory) / pipe proxy" },
];
const TARGET_ADDED_P50_MS = 0.15;

async function main(): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  try {
    const upstream = await startChild({ role: "upstream", key: UPSTREAM_KEY });
    stops.push(upstream.stop);
    const pipe = await startChild({ role: "pipe", upstream: upstream.origin, key: UPSTREAM_KEY });
    stops.push(pipe.stop);
    const sql = await startServe({ upstream: upstream.origin, upstreamKey: UPSTREAM_KEY, memory: false });
    stops.push(sql.stop);
    const mem = await startServe({ upstream: upstream.origin, upstreamKey: UPSTREAM_KEY, memory: true });
    stops.push(mem.stop);
    const bare = await startChild({ role: "bare", json: sql.connectionsJson });
    stops.push(bare.stop);

    const item = `${upstream.origin}/items/item_1`;
    const scenarios: Scenario<CpuSample>[] = [
      scenario(
        "upstream",
        "upstream direct              GET /items/:id",
        { url: item, headers: { authorization: `Bearer ${UPSTREAM_KEY}` } },
        CONNECTIONS,
      ),
      scenario("pipe", "pipe proxy (node:http)       GET /items/:id", { url: `${pipe.origin}/items/item_1` }, CONNECTIONS),
      scenario("bare", "bare node:http, the JSON of  GET /connections", { url: `${bare.origin}/connections` }, CONNECTIONS),
      ...routes("sql", "serve (SQLite) ", sql, item),
      ...routes("mem", "serve --memory ", mem, item),
    ];
    await checkAnswers(scenarios, (id) => /proxy|execute/.test(id));
    printSetup([upstream.pid, pipe.pid, sql.pid, mem.pid, bare.pid]);
    // The process whose CPU time a scenario's requests cost (besides the upstream's, for the proxies).
    const serverOf = (id: string) =>
      ({ upstream: upstream.pid, pipe: pipe.pid, bare: bare.pid })[id] ?? (id.startsWith("sql-") ? sql.pid : mem.pid);
    await runRounds(scenarios, SETTINGS, async (s, connections, seconds) => {
      const pid = serverOf(s.id);
      const before = processCpuMicros(pid);
      const sample = await runLoad(s.target, connections, seconds);
      return { ...sample, cpuPerRequest: (processCpuMicros(pid) - before) / (sample.rps * seconds) };
    });
    printTable(scenarios, CONNECTIONS);
    printCpu(scenarios);
    printTargets(scenarios);
  } finally {
    await Promise.all(stops.map((stop) => stop()));
  }
}

function routes(id: string, label: string, serve: ServeProcess, item: string): Scenario<CpuSample>[] {
  const headers = { "x-api-key": serve.agentKey, "content-type": "application/json" };
  const base = `${serve.origin}/proxy/tools`;
  return [
    scenario(`${id}-connections`, `${label}              GET /connections`, { url: `${base}/connections`, headers }, CONNECTIONS),
    scenario(
      `${id}-proxy`,
      `${label}              POST /proxy`,
      { url: `${base}/proxy`, method: "POST", headers, body: JSON.stringify({ toolkit: BENCH_TOOLKIT, method: "GET", url: item }) },
      CONNECTIONS,
    ),
    scenario(
      `${id}-execute`,
      `${label}              POST /execute`,
      { url: `${base}/execute`, method: "POST", headers, body: JSON.stringify({ tool: BENCH_TOOL, arguments: { id: "item_1" } }) },
      CONNECTIONS,
    ),
  ];
}

function printSetup(pids: number[]): void {
  console.log("tools-proxy serve's routes beside hand-written node:http servers (issue #18): loopback, 127.0.0.1");
  console.log(machineLine());
  console.log(
    `processes: autocannon here (pid ${process.pid}); upstream, pipe proxy, serve (SQLite), serve --memory, bare (${pids.join(", ")})`,
  );
  console.log("serve: the built bin with --quiet (no access log), a toolkit file for the upstream, undici outbound");
  console.log(
    `runs: warm-up ${WARMUP}s per scenario, then ${RUNS} interleaved round(s) x ${SECONDS}s per scenario and connection count (${CONNECTIONS.join(", ")})`,
  );
  console.log("");
}

/**
 * Server CPU per request, which a loaded machine moves far less than requests per second: the
 * process serving each scenario (not the upstream behind a proxy), and its ratio to the reference.
 */
function printCpu(scenarios: Scenario<CpuSample>[]): void {
  console.log("server CPU per request (µs, user + system, medians over rounds; x ref = reference's CPU / this one's)");
  const reference = (id: string) =>
    id.endsWith("-connections") ? "bare" : id.endsWith("-proxy") || id.endsWith("-execute") ? "pipe" : null;
  for (const connections of CONNECTIONS) {
    const cells = scenarios.map((s) => {
      const cpu = median(s.samples.get(connections)!.map((x) => x.cpuPerRequest));
      const ref = reference(s.id);
      const ratio = ref
        ? ` (x ${ref} ${paired(scenarios, s.id, ref, connections, (run, base) => base.cpuPerRequest / run.cpuPerRequest).toFixed(2)})`
        : "";
      return `${s.id} ${cpu.toFixed(1)}${ratio}`;
    });
    console.log(`  @${connections}: ${cells.join(", ")}`);
  }
  console.log("");
}

function printTargets(scenarios: Scenario[]): void {
  console.log("ratios (medians of per-round ratios)");
  for (const connections of CONNECTIONS) {
    for (const store of ["sql", "mem"]) {
      const of = (x: string, y: string) => paired(scenarios, `${store}-${x}`, y, connections, throughput).toFixed(2);
      console.log(
        `  @${connections} ${store}: connections/bare ${of("connections", "bare")}, proxy/pipe ${of("proxy", "pipe")}, execute/pipe ${of("execute", "pipe")}`,
      );
    }
    console.log(`  @${connections} pipe/upstream ${paired(scenarios, "pipe", "upstream", connections, throughput).toFixed(2)}`);
  }
  console.log("");
  console.log("targets (issue #18)");
  for (const target of TARGETS) {
    if (!CONNECTIONS.includes(target.connections)) continue;
    const ratio = paired(scenarios, target.x, target.y, target.connections, throughput);
    console.log(`  ${target.what} >= ${target.ratio} @${target.connections}: ${verdict(ratio >= target.ratio)} (${ratio.toFixed(2)})`);
  }
  if (CONNECTIONS.includes(1)) {
    for (const store of ["sql", "mem"]) {
      const added = paired(scenarios, `${store}-proxy`, "pipe", 1, addedP50);
      console.log(
        `  POST /proxy (${store === "sql" ? "SQLite" : "--memory"}) p50 over the pipe proxy <= ${TARGET_ADDED_P50_MS} ms @1: ${verdict(added <= TARGET_ADDED_P50_MS)} (${added.toFixed(3)} ms)`,
      );
    }
  }
  for (const store of ["sql", "mem"]) {
    for (const connections of CONNECTIONS) {
      const ratio = paired(scenarios, `${store}-execute`, "pipe", connections, throughput);
      console.log(
        `  POST /execute (${store === "sql" ? "SQLite" : "--memory"}) / pipe proxy @${connections}: ${ratio.toFixed(2)} (reported, no target)`,
      );
    }
  }
}

report(main);
