/**
 * CPU profile of the tools-proxy server under scenario (c), POST /proxy/tools/proxy: profile
 * before tuning. Starts the upstream and the tools-proxy server (under `node --cpu-prof`) in
 * child processes, drives (c) from this process, stops the server so that it writes its profile,
 * and prints the top self-time functions, the time per area (package, node internals, src/) and
 * the inclusive time of the project's own functions.
 *
 *   tsx bench/profile.ts                    # profile, then summarize
 *   tsx bench/profile.ts FILE.cpuprofile    # summarize an existing profile
 *
 * Environment: BENCH_PROFILE_SECONDS (default 10), BENCH_PROFILE_CONNECTIONS (default 10),
 * BENCH_PROFILE_ROUTE ("proxy", "execute" or "connections"; or "floor", the trivial handler of
 * `bench/floor.ts` behind `toNodeHandler`, or the bridge in BENCH_PROFILE_BRIDGE), BENCH_FETCH ("global" or "undici").
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChild } from "./child.js";
import { runLoad, type Target } from "./load.js";
import { BENCH_TOOL, BENCH_TOOLKIT, FLOOR_BRIDGES } from "./servers.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const ROOT = new URL("..", import.meta.url).href;

async function profile(): Promise<string> {
  const seconds = Number(process.env.BENCH_PROFILE_SECONDS ?? 10);
  const connections = Number(process.env.BENCH_PROFILE_CONNECTIONS ?? 10);
  const route = process.env.BENCH_PROFILE_ROUTE ?? "proxy";
  const fetch = process.env.BENCH_FETCH === "undici" ? "undici" : "global";
  const dir = mkdtempSync(join(tmpdir(), "tools-proxy-prof-"));
  if (route === "floor") return profileFloor(dir, connections, seconds);
  const key = "upstream-secret-key";
  const upstream = await startChild({ role: "upstream", key });
  const tools = await startChild({ role: "tools", upstream: upstream.origin, key, fetch }, ["--cpu-prof", `--cpu-prof-dir=${dir}`]);
  try {
    if (tools.error) throw new Error(tools.error);
    const item = `${upstream.origin}/items/item_1`;
    const headers = { "x-api-key": tools.agentKey!, "content-type": "application/json" };
    const base = `${tools.origin}/proxy/tools`;
    const targets: Record<string, Target> = {
      proxy: { url: `${base}/proxy`, method: "POST", headers, body: JSON.stringify({ toolkit: BENCH_TOOLKIT, method: "GET", url: item }) },
      execute: { url: `${base}/execute`, method: "POST", headers, body: JSON.stringify({ tool: BENCH_TOOL, arguments: { id: "item_1" } }) },
      connections: { url: `${base}/connections`, headers },
    };
    const target = targets[route] ?? targets.proxy!;
    await runLoad(target, connections, 2); // warm-up, so the profile shows steady state more than JIT
    const sample = await runLoad(target, connections, seconds);
    console.log(
      `profiled ${route} (fetch=${fetch}) at ${connections} connection(s) for ${seconds}s: ${sample.rps.toFixed(0)} req/s, p50 ${sample.p50.toFixed(3)} ms, p99 ${sample.p99.toFixed(3)} ms`,
    );
  } finally {
    await tools.stop();
    await upstream.stop();
  }
  const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no profile written in ${dir}`);
  return join(dir, file);
}

/** The adapter floor: bench/floor.ts's trivial handler behind toNodeHandler (or BENCH_PROFILE_BRIDGE), alone. */
async function profileFloor(dir: string, connections: number, seconds: number): Promise<string> {
  const bridge = FLOOR_BRIDGES.find((name) => name === process.env.BENCH_PROFILE_BRIDGE) ?? "toNodeHandler";
  const server = await startChild({ role: "floor", bridge }, ["--cpu-prof", `--cpu-prof-dir=${dir}`]);
  try {
    await runLoad({ url: server.origin }, connections, 2);
    const sample = await runLoad({ url: server.origin }, connections, seconds);
    console.log(`profiled the adapter floor (${bridge}) at ${connections} connection(s) for ${seconds}s: ${sample.rps.toFixed(0)} req/s`);
  } finally {
    await server.stop();
  }
  const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no profile written in ${dir}`);
  return join(dir, file);
}

/** Prints what the profile says: where the server's CPU time went. */
export function summarize(path: string, top = 10): void {
  const data = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const byId = new Map(data.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of data.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const selfTime = new Map<number, number>();
  let total = 0;
  for (let i = 0; i < data.samples.length; i++) {
    const dt = (data.timeDeltas[i + 1] ?? 0) / 1000; // ms; a sample lasts until the next one
    selfTime.set(data.samples[i]!, (selfTime.get(data.samples[i]!) ?? 0) + dt);
    total += dt;
  }

  const self = new Map<string, number>();
  /** For each self-time function, the nearest project frame below it on the stack. */
  const ownCaller = new Map<string, Map<string, number>>();
  const areas = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, ms] of selfTime) {
    const node = byId.get(id)!;
    self.set(describe(node), (self.get(describe(node)) ?? 0) + ms);
    areas.set(area(node), (areas.get(area(node)) ?? 0) + ms);
    let caller = "(no project frame: event loop, sockets, GC)";
    for (let at = parent.get(id); at !== undefined; at = parent.get(at)) {
      if (isOwn(byId.get(at)!)) {
        caller = describe(byId.get(at)!);
        break;
      }
    }
    const callers = ownCaller.get(describe(node)) ?? new Map<string, number>();
    callers.set(caller, (callers.get(caller) ?? 0) + ms);
    ownCaller.set(describe(node), callers);
    // Each project function on the stack counts once per sample.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!;
      if (!isOwn(frame)) continue;
      const name = describe(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
    }
  }
  const busy = total - (areas.get("(idle)") ?? 0);
  const print = (title: string, entries: Map<string, number>, count: number, of: number) => {
    console.log(title);
    for (const [name, ms] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, count)) {
      console.log(`  ${((100 * ms) / of).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(6)} ms  ${name}`);
    }
    console.log("");
  };
  console.log(`profile: ${path}`);
  console.log(`sampled ${total.toFixed(0)} ms, of which busy (not idle) ${busy.toFixed(0)} ms; percentages below are of busy time\n`);
  console.log(`top ${top} functions by self time (under each: the nearest project frame that led to it)`);
  for (const [name, ms] of [...withoutIdle(self)].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(6)} ms  ${name}`);
    for (const [caller, cms] of [...ownCaller.get(name)!].sort((a, b) => b[1] - a[1]).slice(0, 3)) {
      console.log(`                      ${((100 * cms) / ms).toFixed(0).padStart(3)}% via ${caller}`);
    }
  }
  console.log("");
  print("self time by area", withoutIdle(areas), 15, busy);
  print("inclusive time of the project's own functions (src/, adapters/)", inclusive, 20, busy);
}

function withoutIdle(map: Map<string, number>): Map<string, number> {
  return new Map([...map].filter(([name]) => name !== "(idle)"));
}

function describe(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName || "(anonymous)";
  if (!url) return name;
  // tsx's output puts a module's functions at line 1 of the generated code: a line says nothing there.
  return lineNumber > 0 ? `${name}  ${shorten(url)}:${lineNumber + 1}` : `${name}  ${shorten(url)}`;
}

function shorten(url: string): string {
  return url.startsWith(ROOT) ? url.slice(ROOT.length) : url.replace(/^file:\/\/.*\/node_modules\//, "node_modules/");
}

function isOwn(node: ProfileNode): boolean {
  return /^(src|adapters)\//.test(shorten(node.callFrame.url));
}

function area(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  if (url.startsWith("node:")) return url.replace(/^node:(internal\/)?(deps\/)?([^/]+).*$/, "node:$1$2$3");
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `node_modules/${pkg[1]}`;
  const own = shorten(url);
  return own === url ? url : own.split("/").slice(0, 2).join("/");
}

const given = process.argv[2];
(given ? Promise.resolve(given) : profile())
  .then((path) => summarize(path))
  .catch((error: unknown) => console.error("profile failed:", error));
