/**
 * `npm run bench`: throughput and latency of the tools-proxy hop on loopback (issue #4).
 *
 * Every server runs in its own child process; the load generator (autocannon) runs here, in the
 * parent. Rounds are interleaved (every scenario once per round, back to back) so that a noisy
 * neighbour slows all scenarios of a round alike, and ratios are medians of per-round ratios.
 * A report, not a test: it always exits 0.
 *
 * Environment: BENCH_SECONDS (per run, default 3), BENCH_RUNS (rounds, default 3),
 * BENCH_WARMUP (seconds per scenario, default 2), BENCH_CONNECTIONS (default "1,10"),
 * BENCH_FETCH ("global", "undici" or "both", the default: undici is skipped when
 * adapters/node.ts does not export createUndiciFetch).
 */
import { cpus } from "node:os";
import { type ChildServer, startChild } from "./child.js";
import type { Sample, Target } from "./load.js";
import { report } from "./report.js";
import {
  addedP50,
  checkAnswers,
  machineLine,
  scenario as newScenario,
  paired as pairedOf,
  printTable,
  roundSettingsFromEnv,
  runRounds,
  type Scenario,
  throughput,
  verdict,
} from "./rounds.js";
import { BENCH_TOOL, BENCH_TOOLKIT, UPSTREAM_KEY_HEADER } from "./servers.js";

const SETTINGS = roundSettingsFromEnv();
const { seconds: SECONDS, runs: RUNS, warmup: WARMUP, connections: CONNECTIONS } = SETTINGS;
const FETCH = process.env.BENCH_FETCH ?? "both";
const UPSTREAM_KEY = "upstream-secret-key";

const TARGET_RATIO = 0.5;
const TARGET_ADDED_P50_MS = 0.3;

async function main(): Promise<void> {
  const children: ChildServer[] = [];
  const start = async (...args: Parameters<typeof startChild>) => {
    const child = await startChild(...args);
    children.push(child);
    return child;
  };
  try {
    const upstream = await start({ role: "upstream", key: UPSTREAM_KEY });
    const pipe = await start({ role: "pipe", upstream: upstream.origin, key: UPSTREAM_KEY });
    const fetches = FETCH === "both" ? (["global", "undici"] as const) : FETCH === "undici" ? (["undici"] as const) : (["global"] as const);
    const toolServers: Array<{ fetch: string; server: ChildServer }> = [];
    const notes: string[] = [];
    for (const fetch of fetches) {
      const server = await start({ role: "tools", upstream: upstream.origin, key: UPSTREAM_KEY, fetch });
      if (server.error) notes.push(`tools-proxy with fetch=${fetch} skipped: ${server.error.split("\n")[0]}`);
      else toolServers.push({ fetch, server });
    }
    if (toolServers.length === 0) throw new Error(`no tools-proxy server started: ${notes.join("; ")}`);
    const bare = await start({ role: "bare", json: toolServers[0]!.server.connectionsJson! });

    const item = `${upstream.origin}/items/item_1`;
    const scenarios: Scenario[] = [
      scenario("a", "upstream direct           GET /items/:id", { url: item, headers: { [UPSTREAM_KEY_HEADER]: UPSTREAM_KEY } }),
      scenario("b", "node:http pipe proxy      GET /items/:id", { url: `${pipe.origin}/items/item_1` }),
    ];
    for (const { fetch, server } of toolServers) {
      const tag = toolServers.length > 1 || fetch !== "global" ? `[${fetch}]` : "";
      const headers = { "x-api-key": server.agentKey!, "content-type": "application/json" };
      const base = `${server.origin}/proxy/tools`;
      scenarios.push(
        scenario(`c${tag}`, "tools-proxy  POST /proxy/tools/proxy", {
          url: `${base}/proxy`,
          method: "POST",
          headers,
          body: JSON.stringify({ toolkit: BENCH_TOOLKIT, method: "GET", url: item }),
        }),
        scenario(`d${tag}`, "tools-proxy  POST /proxy/tools/execute", {
          url: `${base}/execute`,
          method: "POST",
          headers,
          body: JSON.stringify({ tool: BENCH_TOOL, arguments: { id: "item_1" } }),
        }),
        scenario(`e${tag}`, "tools-proxy  GET /proxy/tools/connections", { url: `${base}/connections`, headers }),
      );
    }
    scenarios.push(scenario("bare", "bare node:http, same JSON as GET /connections", { url: `${bare.origin}/connections` }));
    await checkAnswers(scenarios, (id) => /^[cd]/.test(id));

    printSetup(children, notes);
    await runRounds(scenarios, SETTINGS);
    printTable(scenarios, CONNECTIONS);
    printRatios(
      scenarios,
      toolServers.map((t) => (toolServers.length > 1 || t.fetch !== "global" ? `[${t.fetch}]` : "")),
    );
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

function scenario(id: string, label: string, target: Target): Scenario {
  return newScenario(id, label, target, CONNECTIONS);
}

function printSetup(children: ChildServer[], notes: string[]): void {
  console.log("tools-proxy benchmark (issue #4): loopback, 127.0.0.1");
  console.log(machineLine());
  console.log(`load generator: autocannon 9 in the parent process (pid ${process.pid}), pipelining 1, keep-alive`);
  console.log(
    `servers: one child process each (pids ${children.map((c) => c.pid).join(", ")}): upstream, pipe proxy, tools-proxy (toNodeHandler on node:http), bare`,
  );
  console.log(`note: on ${cpus().length} cores, (a) uses 2 busy processes (load generator + upstream) and (b)-(d) use 3 (+ the proxy),`);
  console.log("      so the hop shares CPU with the upstream and the load generator; (b) is the reference for that cost.");
  console.log(
    `runs: warm-up ${WARMUP}s per scenario, then ${RUNS} interleaved round(s) x ${SECONDS}s per scenario and connection count (${CONNECTIONS.join(", ")})`,
  );
  console.log("figures: medians over rounds; latencies in ms, measured per response (not autocannon's 1 ms histogram)");
  for (const note of notes) console.log(`note: ${note}`);
  console.log("");
}

function printRatios(scenarios: Scenario[], tags: string[]): void {
  const paired = (x: string, y: string, connections: number, f: (a: Sample, b: Sample) => number) =>
    pairedOf(scenarios, x, y, connections, f);
  const one = CONNECTIONS.includes(1) ? 1 : null;

  console.log("ratios (medians of per-round ratios)");
  const lines: Array<[string, string]> = [];
  for (const connections of CONNECTIONS) {
    const at = `@${connections}`;
    lines.push([`(b)/(a) throughput ${at}`, paired("b", "a", connections, throughput).toFixed(2)]);
    for (const tag of tags) {
      lines.push([`(c${tag})/(a) throughput ${at}`, paired(`c${tag}`, "a", connections, throughput).toFixed(2)]);
      lines.push([`(c${tag})/(b) throughput ${at} (vs the minimal pipe)`, paired(`c${tag}`, "b", connections, throughput).toFixed(2)]);
      lines.push([`(d${tag})/(a) throughput ${at}`, paired(`d${tag}`, "a", connections, throughput).toFixed(2)]);
      lines.push([`(e${tag})/(bare) throughput ${at}`, paired(`e${tag}`, "bare", connections, throughput).toFixed(2)]);
    }
  }
  if (one) {
    lines.push([`(b)-(a) p50 @1, ms (pipe hop)`, paired("b", "a", 1, addedP50).toFixed(3)]);
    for (const tag of tags) {
      lines.push([`(c${tag})-(a) p50 @1, ms (added by the hop)`, paired(`c${tag}`, "a", 1, addedP50).toFixed(3)]);
      lines.push([`(c${tag})-(b) p50 @1, ms (over the minimal pipe)`, paired(`c${tag}`, "b", 1, addedP50).toFixed(3)]);
      lines.push([`(d${tag})-(a) p50 @1, ms`, paired(`d${tag}`, "a", 1, addedP50).toFixed(3)]);
    }
  }
  const width = Math.max(...lines.map(([name]) => name.length));
  for (const [name, value] of lines) console.log(`  ${name.padEnd(width)}  ${value}`);
  console.log("");

  console.log("targets (issue #4)");
  for (const tag of tags) {
    for (const connections of CONNECTIONS) {
      const ratio = paired(`c${tag}`, "a", connections, throughput);
      console.log(
        `  (c${tag}) >= ${TARGET_RATIO} x (a) throughput @${connections}: ${verdict(ratio >= TARGET_RATIO)} (${ratio.toFixed(2)})`,
      );
    }
    if (one) {
      const added = paired(`c${tag}`, "a", 1, addedP50);
      console.log(
        `  (c${tag}) added p50 <= ${TARGET_ADDED_P50_MS} ms @1: ${verdict(added <= TARGET_ADDED_P50_MS)} (${added.toFixed(3)} ms)`,
      );
    } else {
      console.log(`  (c${tag}) added p50 @1: not measured (BENCH_CONNECTIONS has no 1)`);
    }
  }
  // The minimal pipe bounds what any node:http proxy can reach on this machine.
  for (const connections of CONNECTIONS) {
    const pipe = paired("b", "a", connections, throughput);
    if (pipe < TARGET_RATIO) {
      console.log(
        `  note: the minimal pipe proxy (b) itself reaches ${pipe.toFixed(2)} x (a) @${connections}: a 0.5 target is out of reach of a node:http hop here, whatever the handler does`,
      );
    }
  }
}

report(main);
