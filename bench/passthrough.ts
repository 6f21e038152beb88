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
import { type ChildServer, startChild } from "./child.js";
import { report } from "./report.js";
import {
  addedP50,
  checkAnswers,
  machineLine,
  paired,
  printTable,
  roundSettingsFromEnv,
  runRounds,
  type Scenario,
  scenario,
  throughput,
  verdict,
} from "./rounds.js";
import { BENCH_TOOLKIT, type ServerConfig } from "./servers.js";

const ENV_SETTINGS = roundSettingsFromEnv();
const SETTINGS = { ...ENV_SETTINGS, runs: Math.max(3, ENV_SETTINGS.runs) };
const { seconds: SECONDS, runs: RUNS, warmup: WARMUP, connections: CONNECTIONS } = SETTINGS;
const TOKEN = "upstream-bearer-token-for-the-bench";
const TARGET_RATIO = 0.8;

async function main(): Promise<void> {
  const children: ChildServer[] = [];
  const start = async (config: ServerConfig) => {
    const child = await startChild(config);
    children.push(child);
    if (child.error) throw new Error(`the ${config.role} server did not start: ${child.error}`);
    return child;
  };
  try {
    const upstream = await start({ role: "upstream", key: TOKEN });
    const pipe = await start({ role: "pipe", upstream: upstream.origin, key: TOKEN });
    const tools = await start({ role: "passthrough", upstream: upstream.origin, key: TOKEN });
    const scenarios = [
      scenario(
        "upstream",
        "upstream direct             GET /items/item_1",
        { url: `${upstream.origin}/items/item_1`, headers: { authorization: `Bearer ${TOKEN}` } },
        CONNECTIONS,
      ),
      scenario("pipe", "node:http pipe proxy        GET /items/item_1", { url: `${pipe.origin}/items/item_1` }, CONNECTIONS),
      scenario(
        "passthrough",
        "tools-proxy passthrough     GET /proxy/tools/passthrough/bench/items/item_1",
        { url: `${tools.origin}/proxy/tools/passthrough/${BENCH_TOOLKIT}/items/item_1`, headers: { "x-api-key": tools.agentKey! } },
        CONNECTIONS,
      ),
    ];
    await checkAnswers(scenarios);
    await printSetup(children);
    await runRounds(scenarios, SETTINGS);
    printTable(scenarios, CONNECTIONS);
    printRatios(scenarios);
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

async function printSetup(children: ChildServer[]): Promise<void> {
  const adapter: Record<string, unknown> = await import("../adapters/node.js");
  console.log("tools-proxy passthrough benchmark (issue 18): loopback, 127.0.0.1");
  console.log(machineLine());
  console.log(`load generator: autocannon in the parent process (pid ${process.pid}), pipelining 1, keep-alive`);
  console.log(`servers: one child process each (pids ${children.map((c) => c.pid).join(", ")}): upstream, pipe proxy, tools-proxy`);
  console.log(
    `tools-proxy: toNodeHandler on node:http, memory store, outbound ${typeof adapter.createUndiciFetch === "function" ? "createUndiciFetch (undici pool)" : "global fetch"}`,
  );
  console.log(`runs: warm-up ${WARMUP}s per scenario, then ${RUNS} interleaved rounds x ${SECONDS}s per scenario and connection count`);
  console.log("figures: medians over rounds; latencies in ms, measured per response");
  console.log("");
}

function printRatios(scenarios: Scenario[]): void {
  console.log("ratios (medians of per-round ratios)");
  for (const connections of CONNECTIONS) {
    const ratio = paired(scenarios, "passthrough", "pipe", connections, throughput);
    const added = paired(scenarios, "passthrough", "pipe", connections, addedP50);
    const pipeRatio = paired(scenarios, "pipe", "upstream", connections, throughput);
    console.log(
      `passthrough / pipe proxy throughput @${connections}: ${ratio.toFixed(2)}x (target >= ${TARGET_RATIO}x: ${verdict(ratio >= TARGET_RATIO)}); ` +
        `added p50 ${added.toFixed(3)} ms; pipe / upstream ${pipeRatio.toFixed(2)}x`,
    );
  }
}

report(main);
