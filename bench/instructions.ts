/**
 * `npm run bench:instructions`: instructions per request of a real `serve` (the built bin, so
 * `npm run build` first), counted by valgrind's callgrind in the server process: a figure that a
 * loaded machine does not move, unlike requests per second. For each store (--memory, then
 * SQLite) the server runs under callgrind; after a warm-up (so the JIT has compiled the hot
 * path), the counters are zeroed, N requests are sent one after another, and the count is dumped.
 * An idle interval as long as the run is counted the same way and subtracted (timers, GC threads).
 *
 * Environment: BENCH_INSTRUCTIONS_REQUESTS (per route, default 300), BENCH_INSTRUCTIONS_WARMUP
 * (requests per route before counting, default 1500), BENCH_INSTRUCTIONS_STORES ("memory,sqlite"),
 * BENCH_INSTRUCTIONS_ROUTES ("connections,proxy,execute"). Under valgrind a server runs some 50 times
 * slower: the whole run takes 20 minutes or more.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startChild } from "./child.js";
import { positive } from "./report.js";
import { startServe } from "./serve-process.js";
import { BENCH_TOOL, BENCH_TOOLKIT } from "./servers.js";

const REQUESTS = positive("BENCH_INSTRUCTIONS_REQUESTS", 300);
const WARMUP = positive("BENCH_INSTRUCTIONS_WARMUP", 1500);
const STORES = (process.env.BENCH_INSTRUCTIONS_STORES ?? "memory,sqlite").split(",");
const ROUTES = (process.env.BENCH_INSTRUCTIONS_ROUTES ?? "connections,proxy,execute").split(",");
const UPSTREAM_KEY = "upstream-secret-key";

interface Call {
  route: string;
  name: string;
  url: string;
  init: RequestInit;
}

async function main(): Promise<void> {
  try {
    execFileSync("valgrind", ["--version"]);
  } catch {
    console.log("valgrind is not installed (apt-get install -y valgrind): no instruction counts.");
    return;
  }
  const upstream = await startChild({ role: "upstream", key: UPSTREAM_KEY });
  const rows: string[] = [];
  try {
    for (const store of STORES) {
      const dir = mkdtempSync(join(tmpdir(), "tools-proxy-callgrind-"));
      const serve = await startServe({
        upstream: upstream.origin,
        upstreamKey: UPSTREAM_KEY,
        memory: store === "memory",
        wrap: ["valgrind", "--tool=callgrind", "--smc-check=all-non-file", `--callgrind-out-file=${join(dir, "cg.out")}`],
        startMs: 300_000,
      });
      try {
        const headers = { "x-api-key": serve.agentKey, "content-type": "application/json" };
        const base = `${serve.origin}/proxy/tools`;
        const calls: Call[] = [
          { route: "connections", name: "GET /connections", url: `${base}/connections`, init: { headers } },
          {
            route: "proxy",
            name: "POST /proxy",
            url: `${base}/proxy`,
            init: {
              method: "POST",
              headers,
              body: JSON.stringify({ toolkit: BENCH_TOOLKIT, method: "GET", url: `${upstream.origin}/items/item_1` }),
            },
          },
          {
            route: "execute",
            name: "POST /execute",
            url: `${base}/execute`,
            init: { method: "POST", headers, body: JSON.stringify({ tool: BENCH_TOOL, arguments: { id: "item_1" } }) },
          },
        ];
        for (const call of calls.filter((c) => ROUTES.includes(c.route))) {
          process.stderr.write(`${store}: ${call.name}: warm-up\n`);
          await send(call, WARMUP);
          const started = performance.now();
          const busy = await counted(serve.pid, dir, () => send(call, REQUESTS));
          const ms = performance.now() - started;
          const idle = await counted(serve.pid, dir, () => sleep(ms));
          const perRequest = (busy - idle) / REQUESTS;
          rows.push(`${store.padEnd(6)}  ${call.name.padEnd(16)}  ${Math.round(perRequest).toLocaleString("en").padStart(10)}`);
          process.stderr.write(`${rows.at(-1)}\n`);
        }
      } finally {
        await serve.stop();
      }
    }
  } finally {
    await upstream.stop();
  }
  console.log(`instructions per request in the server process (callgrind; ${REQUESTS} requests one at a time, after ${WARMUP})`);
  console.log("store   route             instructions");
  for (const row of rows) console.log(row);
}

/** Sends `call` `count` times, one at a time; every answer must be a 2xx. */
async function send(call: Call, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await fetch(call.url, call.init);
    const text = await response.text();
    if (!response.ok) throw new Error(`${call.name} answered ${response.status}: ${text.slice(0, 300)}`);
  }
}

/** Instructions the process executed while `work` ran (callgrind_control zeroes, then dumps). */
async function counted(pid: number, dir: string, work: () => Promise<unknown>): Promise<number> {
  execFileSync("callgrind_control", ["-z", String(pid)], { stdio: "ignore" });
  await work();
  const before = new Set(readdirSync(dir));
  execFileSync("callgrind_control", ["-d", String(pid)], { stdio: "ignore" });
  const file = readdirSync(dir).find((name) => !before.has(name));
  if (!file) throw new Error("callgrind wrote no dump");
  const totals = /^(?:totals|summary): (\d+)/m.exec(readFileSync(join(dir, file), "utf8"));
  if (!totals) throw new Error(`no totals in ${file}`);
  return Number(totals[1]);
}

main().catch((error: unknown) => {
  console.error("bench:instructions failed:", error);
  process.exitCode = 1;
});
