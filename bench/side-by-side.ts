/**
 * `npm run bench`, first part (or alone: `npm run bench:side-by-side`): the library as last
 * released ("baseline", built from its commit by `bench/baseline.ts`) beside the working tree's
 * build ("new", `dist/`), measured in the same interleaved rounds, each server in its own process:
 *
 * - a trivial fetch handler behind each one's `toNodeHandler` (tools-proxy/node);
 * - a real `tools-proxy serve` of each, `--memory` and SQLite: GET /connections, POST /proxy, and
 *   (memory) the passthrough, all to one upstream on loopback;
 * - a 1 GiB multipart upload through each one's `toNodeHandler` into `filesystemBlobStore`, with
 *   the server's peak RSS growth.
 *
 * A scenario's two sides run back to back in every round, and every other round in the other
 * order. Figures are medians over rounds with their min-max; a ratio is new / baseline, the median
 * of per-round ratios, with its min-max. `docs/benchmarks.md` says how to read the table. A
 * report, not a test: it always exits 0.
 *
 * Environment: BENCH_BASELINE (commit, default the last release), BENCH_SECONDS (default 1.5
 * here), BENCH_RUNS (default 10 here), BENCH_WARMUP (default 2), BENCH_CONNECTIONS (default "10"
 * here), BENCH_UPLOAD_MIB (default 1024), BENCH_UPLOAD_RUNS (default 3), BENCH_ONLY (a comma-separated
 * list of the scenarios to run, by the start of their names, e.g. "trivial,GET /connections (mem),upload").
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type Baseline, prepareBaseline } from "./baseline.js";
import { startChild } from "./child.js";
import { runLoad, type Sample, type Target } from "./load.js";
import { median, positive, printTable, progress, report } from "./report.js";
import {
  checkAnswers,
  failures,
  machineLine,
  processCpuMicros,
  type RoundSettings,
  roundSettingsFromEnv,
  rpsCells,
  runRounds,
  type Scenario,
  scenario,
} from "./rounds.js";
import { startServe } from "./serve-process.js";
import { BENCH_TOOLKIT } from "./servers.js";
import { type Child, MiB, measureUpload, startUploadServer, type Sample as UploadSample } from "./upload-client.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ENV = roundSettingsFromEnv();
const SETTINGS: RoundSettings = {
  ...ENV,
  // Many short rounds rather than a few long ones: the two sides of a pair run closer in time, so
  // a neighbour's burst of load falls on both more often.
  seconds: process.env.BENCH_SECONDS ? ENV.seconds : 1.5,
  runs: process.env.BENCH_RUNS ? ENV.runs : 10,
  connections: process.env.BENCH_CONNECTIONS ? ENV.connections : [10],
  alternate: true,
};
const UPLOAD_MIB = positive("BENCH_UPLOAD_MIB", 1024);
const UPLOAD_RUNS = positive("BENCH_UPLOAD_RUNS", 3);
const ONLY = process.env.BENCH_ONLY?.split(",").map((name) => name.trim().toLowerCase());
/** Whether the scenario named `kind` runs (BENCH_ONLY). */
const selected = (kind: string) => !ONLY || ONLY.some((start) => kind.toLowerCase().startsWith(start));
/** The bound of issue #5 on an upload's peak RSS growth, which the new stack must keep. */
const UPLOAD_GROWTH_MIB = 64;
const UPSTREAM_KEY = "upstream-secret-key";
const SIDES = ["base", "new"] as const;
type Side = (typeof SIDES)[number];

interface CpuSample extends Sample {
  /** CPU time of the scenario's server process per request served, in microseconds. */
  cpuPerRequest: number;
}

async function main(): Promise<void> {
  const baseline = prepareBaseline();
  const dist: Record<Side, string> = { base: join(baseline.root, "dist"), new: join(ROOT, "dist") };
  printSetup(baseline);
  await measureRoutes(dist);
  if (selected("upload")) await measureUploads(dist);
}

async function measureRoutes(dist: Record<Side, string>): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  try {
    const upstream = await startChild({ role: "upstream", key: UPSTREAM_KEY });
    stops.push(upstream.stop);
    const scenarios: Scenario<CpuSample>[] = [];
    const pidOf = new Map<string, number>();
    const add = (kind: string, side: Side, pid: number, target: Target) => {
      if (!selected(kind)) return;
      scenarios.push(scenario(`${kind}/${side}`, kind, target, SETTINGS.connections));
      pidOf.set(`${kind}/${side}`, pid);
    };
    const servers = [];
    for (const side of SIDES) {
      const adapter = pathToFileURL(join(dist[side], "adapters/node.js")).href;
      const trivial = await startChild({ role: "floor", bridge: "toNodeHandler", adapter });
      stops.push(trivial.stop);
      if (trivial.error) throw new Error(`the ${side} trivial server did not start: ${trivial.error}`);
      const bin = join(dist[side], "cli/main.js");
      const mem = await startServe({ upstream: upstream.origin, upstreamKey: UPSTREAM_KEY, memory: true, bin });
      stops.push(mem.stop);
      const sql = await startServe({ upstream: upstream.origin, upstreamKey: UPSTREAM_KEY, memory: false, bin });
      stops.push(sql.stop);
      servers.push({ side, trivial, mem, sql });
    }
    const item = `${upstream.origin}/items/item_1`;
    // Kinds outer, sides inner: a scenario's two sides run back to back.
    for (const { side, trivial } of servers) add("trivial handler", side, trivial.pid, { url: trivial.origin });
    for (const store of ["mem", "sql"] as const) {
      for (const s of servers) {
        const serve = s[store];
        const headers = { "x-api-key": serve.agentKey, "content-type": "application/json" };
        add(`GET /connections (${store})`, s.side, serve.pid, { url: `${serve.origin}/proxy/tools/connections`, headers });
      }
      for (const s of servers) {
        const serve = s[store];
        const headers = { "x-api-key": serve.agentKey, "content-type": "application/json" };
        const body = JSON.stringify({ toolkit: BENCH_TOOLKIT, method: "GET", url: item });
        add(`POST /proxy (${store})`, s.side, serve.pid, { url: `${serve.origin}/proxy/tools/proxy`, method: "POST", headers, body });
      }
    }
    for (const { side, mem } of servers) {
      const url = `${mem.origin}/proxy/tools/passthrough/${BENCH_TOOLKIT}/items/item_1`;
      add("passthrough (mem)", side, mem.pid, { url, headers: { "x-api-key": mem.agentKey } });
    }
    await checkAnswers(scenarios, (id) => id.startsWith("POST /proxy"));
    await runRounds(scenarios, SETTINGS, async (s, connections, seconds) => {
      const pid = pidOf.get(s.id)!;
      const before = processCpuMicros(pid);
      const sample = await runLoad(s.target, connections, seconds);
      return { ...sample, cpuPerRequest: (processCpuMicros(pid) - before) / (sample.rps * seconds) };
    });
    printRoutes(scenarios);
  } finally {
    await Promise.all(stops.map((stop) => stop()));
  }
}

function printSetup(baseline: Baseline): void {
  console.log("side by side: the last release (baseline) and this tree's build (new), loopback 127.0.0.1");
  console.log(machineLine());
  console.log(`baseline: commit ${baseline.commit.slice(0, 12)}, built in ${baseline.root}; new: dist/ of ${ROOT}`);
  console.log("servers: one process each (trivial handler, serve --memory, serve with SQLite, per side; one upstream); autocannon here");
  console.log(
    `runs: warm-up ${SETTINGS.warmup}s per scenario, then ${SETTINGS.runs} rounds x ${SETTINGS.seconds}s per scenario at ${SETTINGS.connections.join(", ")} connection(s); a scenario's two sides back to back, order reversed every other round`,
  );
  console.log(
    "figures: medians over rounds (min-max); x = new / baseline, the median of per-round ratios (min-max); cpu = server CPU µs per request",
  );
  console.log("");
}

/** Median and min-max of per-round ratios new / baseline of `f`. */
function ratios(base: CpuSample[], next: CpuSample[], f: (s: CpuSample) => number) {
  const all = next.map((s, i) => f(s) / f(base[i]!));
  return { all, median: median(all), cell: `${Math.min(...all).toFixed(2)}-${Math.max(...all).toFixed(2)}` };
}

/**
 * "slower" when at least 90% of the rounds had the new stack worse and the median ratio is more
 * than 3% off, "faster" the other way round, else "same": a difference the rounds do not agree on
 * is noise. (With 10 rounds, 9 agreeing by chance has a probability of about 1%; under 5 rounds,
 * all agreeing by chance is too likely to judge.)
 */
function judge(all: number[], higherIsBetter: boolean): string {
  if (all.length < 5) return "not judged (under 5 rounds)";
  const agreeing = Math.ceil(0.9 * all.length);
  const m = median(all);
  const off = higherIsBetter ? 1 - m : m - 1;
  const worse = all.filter((r) => (higherIsBetter ? r < 1 : r > 1)).length;
  const better = all.filter((r) => (higherIsBetter ? r > 1 : r < 1)).length;
  if (worse >= agreeing && off > 0.03) return "slower";
  if (better >= agreeing && off < -0.03) return "faster";
  return "same";
}

function printRoutes(scenarios: Scenario<CpuSample>[]): void {
  const table = [
    [
      "scenario",
      "conns",
      "base req/s",
      "(min-max)",
      "new req/s",
      "(min-max)",
      "x req/s",
      "(min-max)",
      "base cpu",
      "new cpu",
      "x cpu",
      "(min-max)",
      "failures",
      "verdict req/s, cpu",
    ],
  ];
  for (let i = 0; i < scenarios.length; i += 2) {
    const [base, next] = [scenarios[i]!, scenarios[i + 1]!];
    for (const connections of SETTINGS.connections) {
      const b = base.samples.get(connections)!;
      const n = next.samples.get(connections)!;
      const rps = ratios(b, n, (s) => s.rps);
      const cpu = ratios(b, n, (s) => s.cpuPerRequest);
      table.push([
        base.label,
        String(connections),
        ...rpsCells(b),
        ...rpsCells(n),
        rps.median.toFixed(2),
        rps.cell,
        median(b.map((s) => s.cpuPerRequest)).toFixed(1),
        median(n.map((s) => s.cpuPerRequest)).toFixed(1),
        cpu.median.toFixed(2),
        cpu.cell,
        `${failures(b)}+${failures(n)}`,
        `${judge(rps.all, true)}, ${judge(cpu.all, false)}`,
      ]);
    }
  }
  printTable(table, 1);
}

async function measureUploads(dist: Record<Side, string>): Promise<void> {
  const fileBytes = Math.round(UPLOAD_MIB * MiB);
  const root = await mkdtemp(join(tmpdir(), "tp-bench-side-upload-"));
  const children = new Map<Side, Child>();
  try {
    for (const side of SIDES) {
      const directory = join(root, side);
      await mkdir(directory);
      children.set(side, await startUploadServer({ role: "tools", directory, maxBytes: fileBytes, fsync: false, dist: dist[side] }));
    }
    // One upload each first: code optimised and heaps grown to what such an upload needs.
    for (const [side, child] of children) {
      progress(`upload warm-up: ${side}, ${UPLOAD_MIB} MiB`);
      await measureUpload(child, fileBytes);
    }
    const samples = new Map<Side, UploadSample[]>(SIDES.map((side) => [side, []]));
    for (let round = 1; round <= UPLOAD_RUNS; round++) {
      for (const side of round % 2 ? SIDES : [...SIDES].reverse()) {
        progress(`upload round ${round}/${UPLOAD_RUNS}: ${side}, ${UPLOAD_MIB} MiB`);
        samples.get(side)!.push(await measureUpload(children.get(side)!, fileBytes));
      }
    }
    progress("");
    printUploads(samples.get("base")!, samples.get("new")!);
  } finally {
    for (const child of children.values()) child.stop();
    await rm(root, { recursive: true, force: true });
  }
}

function printUploads(base: UploadSample[], next: UploadSample[]): void {
  console.log(
    `${UPLOAD_MIB} MiB multipart upload, POST /upload through toNodeHandler into filesystemBlobStore (fsync off); 1 warm-up, then ${UPLOAD_RUNS} alternating rounds`,
  );
  const range = (values: number[], digits: number) => `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`;
  const rows = [["side", "MiB/s", "(min-max)", "server CPU s/GiB", "peak RSS growth MiB", "(min-max)", "array buffers MiB"]];
  for (const [side, s] of [
    ["baseline", base],
    ["new", next],
  ] as const) {
    const mibps = s.map((x) => x.mibps);
    const growth = s.map((x) => x.growthMib);
    rows.push([
      side,
      median(mibps).toFixed(0),
      range(mibps, 0),
      median(s.map((x) => x.cpuPerGib)).toFixed(2),
      median(growth).toFixed(1),
      range(growth, 1),
      median(s.map((x) => x.arrayBuffersMib)).toFixed(1),
    ]);
  }
  printTable(rows, 1);
  const throughput = next.map((x, i) => x.mibps / base[i]!.mibps);
  const cpu = next.map((x, i) => x.cpuPerGib / base[i]!.cpuPerGib);
  const worst = Math.max(...next.map((x) => x.growthMib));
  console.log(
    `x MiB/s ${median(throughput).toFixed(2)} (${range(throughput, 2)}), ${judge(throughput, true)}; x cpu ${median(cpu).toFixed(2)} (${range(cpu, 2)}), ${judge(cpu, false)}`,
  );
  console.log(
    `new: peak RSS growth under ${UPLOAD_GROWTH_MIB} MiB in every round: ${worst < UPLOAD_GROWTH_MIB ? "MET" : "NOT MET"} (worst ${worst.toFixed(1)} MiB)`,
  );
  console.log("");
}

report(main);
