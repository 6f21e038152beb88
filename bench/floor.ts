/**
 * `npm run bench`, first part: the adapter floor (issue #18). A trivial fetch handler, answering
 * the same bytes as a bare node:http handler, behind each Node bridge: `toNodeHandler`,
 * @whatwg-node/server's `createServerAdapter`, @hono/node-server's `getRequestListener` with its
 * defaults (which replace the global `Response` with a lighter one) and with
 * `overrideGlobalObjects: false` (as `toNodeHandler` uses it, so the handler's `Response` is the
 * platform's), and bare node:http. Each runs in its own child process; autocannon drives them from here, rounds
 * interleaved, ratios the medians of per-round ratios to bare. Beside throughput, the server's
 * own CPU time per request (user + system over the requests served), which a loaded machine
 * moves much less than it moves requests per second. A report, not a test: it always exits 0.
 *
 * Environment: BENCH_SECONDS (per run, default 3), BENCH_RUNS (rounds, default 3),
 * BENCH_WARMUP (seconds per server, default 2), BENCH_CONNECTIONS (default "1,10").
 */
import { type ChildServer, startChild } from "./child.js";
import { runLoad, type Sample } from "./load.js";
import { median, printTable, report } from "./report.js";
import { failures, machineLine, paired, roundSettingsFromEnv, rpsCells, runRounds, type Scenario, scenario, verdict } from "./rounds.js";
import { FLOOR_BODY, FLOOR_BRIDGES, type FloorBridge } from "./servers.js";

const SETTINGS = roundSettingsFromEnv();
const { seconds: SECONDS, runs: RUNS, warmup: WARMUP, connections: CONNECTIONS } = SETTINGS;

/** The target of issue #18: `toNodeHandler` at this share of bare node:http's throughput, at 10 connections. */
const TARGET = { bridge: "toNodeHandler", ratio: 0.9, connections: 10 } as const;

interface Run extends Sample {
  /** Server CPU time per request served, in microseconds. */
  cpuPerRequest: number;
}

const LABELS: Record<FloorBridge, string> = {
  bare: "bare node:http handler",
  toNodeHandler: "toNodeHandler (tools-proxy/node)",
  "whatwg-node": "@whatwg-node/server createServerAdapter",
  hono: "@hono/node-server getRequestListener",
  "hono-globals-kept": "@hono/node-server, overrideGlobalObjects: false",
};

async function main(): Promise<void> {
  const servers = new Map<FloorBridge, ChildServer>();
  try {
    for (const bridge of FLOOR_BRIDGES) servers.set(bridge, await startChild({ role: "floor", bridge }));
    for (const [bridge, server] of servers) {
      if (server.error) throw new Error(`${bridge} did not start: ${server.error}`);
      const answer = await fetch(server.origin);
      const text = await answer.text();
      if (answer.status !== 200 || text !== FLOOR_BODY) throw new Error(`${bridge} answers ${answer.status} ${JSON.stringify(text)}`);
    }
    printSetup(servers);
    const scenarios = FLOOR_BRIDGES.map((bridge) =>
      scenario<Run>(bridge, LABELS[bridge], { url: servers.get(bridge)!.origin }, CONNECTIONS),
    );
    await runRounds(scenarios, SETTINGS, async (s, connections, seconds) => {
      const server = servers.get(s.id as FloorBridge)!;
      const before = await server.cpu();
      const sample = await runLoad(s.target, connections, seconds);
      const used = (await server.cpu()) - before;
      return { ...sample, cpuPerRequest: used / (sample.rps * seconds) };
    });
    print(scenarios);
  } finally {
    await Promise.all([...servers.values()].map((server) => server.stop()));
  }
}

function printSetup(servers: Map<FloorBridge, ChildServer>): void {
  console.log("adapter floor (issue #18): a trivial fetch handler behind each Node bridge, loopback 127.0.0.1");
  console.log(machineLine());
  console.log(`servers: one child process each (pids ${[...servers.values()].map((s) => s.pid).join(", ")}); autocannon here`);
  console.log(`runs: warm-up ${WARMUP}s each, then ${RUNS} interleaved round(s) x ${SECONDS}s per server and connection count`);
  console.log("figures: medians over rounds; ratios are medians of per-round ratios to bare; cpu = server CPU µs per request");
  console.log("");
}

function print(scenarios: Scenario<Run>[]): void {
  const rows = [["bridge", "conns", "req/s", "(min-max)", "p50 ms", "cpu µs/req", "x bare req/s", "x bare cpu", "failures"]];
  const ratio = (bridge: FloorBridge, connections: number, f: (run: Run, bare: Run) => number) =>
    paired(scenarios, bridge, "bare", connections, f);
  for (const connections of CONNECTIONS) {
    for (const s of scenarios) {
      const all = s.samples.get(connections)!;
      rows.push([
        s.label,
        String(connections),
        ...rpsCells(all),
        median(all.map((r) => r.p50)).toFixed(3),
        median(all.map((r) => r.cpuPerRequest)).toFixed(1),
        ratio(s.id as FloorBridge, connections, (run, bare) => run.rps / bare.rps).toFixed(2),
        ratio(s.id as FloorBridge, connections, (run, bare) => bare.cpuPerRequest / run.cpuPerRequest).toFixed(2),
        failures(all),
      ]);
    }
  }
  printTable(rows, 1);
  console.log("targets (issue #18)");
  if (!CONNECTIONS.includes(TARGET.connections)) {
    console.log(`  toNodeHandler @${TARGET.connections}: not measured (BENCH_CONNECTIONS has no ${TARGET.connections})`);
    return;
  }
  const measured = ratio(TARGET.bridge, TARGET.connections, (run, bare) => run.rps / bare.rps);
  console.log(
    `  toNodeHandler >= ${TARGET.ratio} x bare node:http throughput @${TARGET.connections}: ${verdict(measured >= TARGET.ratio)} (${measured.toFixed(2)})`,
  );
  console.log("");
}

report(main);
