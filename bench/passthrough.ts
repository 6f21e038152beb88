/**
 * `npm run bench:passthrough` (and part of `npm run bench`): the passthrough route beside the
 * minimal `node:http` pipe proxy of `bench/pipe-proxy.ts` (issue 18: at least 0.8x its throughput).
 *
 * Both proxies forward `GET /items/item_1` to the same upstream and add the same credential
 * (`Authorization: Bearer <token>`); the passthrough also checks the API key, finds and opens the
 * connection and applies the URL and header policy. Each server runs in its own child process,
 * autocannon in this one. Rounds are interleaved (each scenario once per round, back to back) and
 * ratios are medians of per-round ratios. A report, not a test: it always exits 0.
 *
 * Environment: BENCH_SECONDS (per run, default 3), BENCH_RUNS (rounds, default 3), BENCH_WARMUP
 * (seconds per scenario, default 2), BENCH_CONNECTIONS (default "1,10").
 */
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { type ChildServer, startChild } from "./child.js";
import { runLoad, type Sample, type Target } from "./load.js";
import { PASSTHROUGH_TOOLKIT, type PassthroughServerConfig } from "./passthrough-servers.js";
import { median, positive, progress } from "./report.js";

const SECONDS = positive("BENCH_SECONDS", 3);
const RUNS = Math.max(3, positive("BENCH_RUNS", 3));
const WARMUP = positive("BENCH_WARMUP", 2);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "1,10")
  .split(",")
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);
const TOKEN = "upstream-bearer-token-for-the-bench";
const TARGET_RATIO = 0.8;
const SERVERS = fileURLToPath(new URL("./passthrough-servers.ts", import.meta.url));

interface Scenario {
  id: string;
  label: string;
  target: Target;
  samples: Map<number, Sample[]>;
}

async function main(): Promise<void> {
  const children: ChildServer[] = [];
  const start = async (config: PassthroughServerConfig) => {
    const child = await startChild(config, [], SERVERS);
    children.push(child);
    if (child.error) throw new Error(`the ${config.role} server did not start: ${child.error}`);
    return child;
  };
  try {
    const upstream = await start({ role: "upstream", token: TOKEN });
    const pipe = await start({ role: "pipe", upstream: upstream.origin, token: TOKEN });
    const tools = await start({ role: "tools", upstream: upstream.origin, token: TOKEN });
    const scenarios = [
      scenario("upstream", "upstream direct             GET /items/item_1", {
        url: `${upstream.origin}/items/item_1`,
        headers: { authorization: `Bearer ${TOKEN}` },
      }),
      scenario("pipe", "node:http pipe proxy        GET /items/item_1", { url: `${pipe.origin}/items/item_1` }),
      scenario("passthrough", "tools-proxy passthrough     GET /proxy/tools/passthrough/bench/items/item_1", {
        url: `${tools.origin}/proxy/tools/passthrough/${PASSTHROUGH_TOOLKIT}/items/item_1`,
        headers: { "x-api-key": tools.agentKey! },
      }),
    ];
    await checkAnswers(scenarios);
    await printSetup(children);

    for (const s of scenarios) {
      progress(`warm-up ${s.id} (${WARMUP}s)`);
      await runLoad(s.target, Math.max(...CONNECTIONS), WARMUP);
    }
    for (let round = 1; round <= RUNS; round++) {
      for (const s of scenarios) {
        for (const connections of CONNECTIONS) {
          progress(`round ${round}/${RUNS}: ${s.id} at ${connections} connection(s)`);
          s.samples.get(connections)!.push(await runLoad(s.target, connections, SECONDS));
        }
      }
    }
    progress("");
    printTable(scenarios);
    printRatios(scenarios);
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

function scenario(id: string, label: string, target: Target): Scenario {
  return { id, label, target, samples: new Map(CONNECTIONS.map((c) => [c, []])) };
}

/** One request per scenario before timing anything: a 401 would bench the error path. */
async function checkAnswers(scenarios: Scenario[]): Promise<void> {
  for (const s of scenarios) {
    const response = await fetch(s.target.url, { headers: s.target.headers });
    const text = await response.text();
    if (!response.ok || !text.includes("item_1")) throw new Error(`scenario ${s.id} answers ${response.status} ${text.slice(0, 300)}`);
  }
}

async function printSetup(children: ChildServer[]): Promise<void> {
  const cpu = cpus();
  const adapter: Record<string, unknown> = await import("../adapters/node.js");
  console.log("tools-proxy passthrough benchmark (issue 18): loopback, 127.0.0.1");
  console.log(
    `node ${process.version}, ${cpu.length} CPU(s) (${cpu[0]?.model.trim() ?? "?"}), load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(`load generator: autocannon in the parent process (pid ${process.pid}), pipelining 1, keep-alive`);
  console.log(`servers: one child process each (pids ${children.map((c) => c.pid).join(", ")}): upstream, pipe proxy, tools-proxy`);
  console.log(
    `tools-proxy: toNodeHandler on node:http, memory store, outbound ${typeof adapter.createUndiciFetch === "function" ? "createUndiciFetch (undici pool)" : "global fetch"}`,
  );
  console.log(`runs: warm-up ${WARMUP}s per scenario, then ${RUNS} interleaved rounds x ${SECONDS}s per scenario and connection count`);
  console.log("figures: medians over rounds; latencies in ms, measured per response");
  console.log("");
}

function printTable(scenarios: Scenario[]): void {
  const rows = [["scenario", "", "conns", "req/s", "(min-max)", "p50 ms", "p99 ms", "failures"]];
  for (const s of scenarios) {
    for (const connections of CONNECTIONS) {
      const samples = s.samples.get(connections)!;
      const rps = samples.map((x) => x.rps);
      rows.push([
        s.id,
        s.label,
        String(connections),
        median(rps).toFixed(0),
        `${Math.min(...rps).toFixed(0)}-${Math.max(...rps).toFixed(0)}`,
        median(samples.map((x) => x.p50)).toFixed(3),
        median(samples.map((x) => x.p99)).toFixed(3),
        String(samples.reduce((n, x) => n + x.failures, 0)),
      ]);
    }
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const [index, row] of rows.entries()) {
    console.log(row.map((cell, i) => (i >= 2 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join("  "));
    if (index === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
  console.log("");
}

function printRatios(scenarios: Scenario[]): void {
  const byId = new Map(scenarios.map((s) => [s.id, s]));
  const paired = (x: string, y: string, connections: number, f: (a: Sample, b: Sample) => number) => {
    const ys = byId.get(y)!.samples.get(connections)!;
    return median(
      byId
        .get(x)!
        .samples.get(connections)!
        .map((sample, i) => f(sample, ys[i]!)),
    );
  };
  console.log("ratios (medians of per-round ratios)");
  for (const connections of CONNECTIONS) {
    const ratio = paired("passthrough", "pipe", connections, (a, b) => a.rps / b.rps);
    const added = paired("passthrough", "pipe", connections, (a, b) => a.p50 - b.p50);
    const met = ratio >= TARGET_RATIO ? "met" : "NOT met";
    console.log(
      `passthrough / pipe proxy throughput @${connections}: ${ratio.toFixed(2)}x (target >= ${TARGET_RATIO}x: ${met}); ` +
        `added p50 ${added.toFixed(3)} ms; pipe / upstream ${paired("pipe", "upstream", connections, (a, b) => a.rps / b.rps).toFixed(2)}x`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 0;
});
