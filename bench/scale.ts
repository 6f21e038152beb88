/**
 * `npm run bench:scale`: how cost grows with data (issue 22, target 4).
 *
 * For each database (PostgreSQL, MariaDB, SQLite), two tools-proxy servers in child processes,
 * side by side in one run: one on a nearly empty database, one on a database filled in bulk with
 * SQL (1,000,000 connections over 100,000 agents and 100,000 API keys on the servers; 100,000 and
 * 10,000 on SQLite), both fresh and dropped at the end. Rounds are interleaved (every route on
 * both servers, back to back) and ratios are medians of per-round ratios. Then every page of the
 * big workspace is walked while the server's RSS is sampled. A report, not a test: exits 0.
 *
 * Environment: BENCH_SECONDS (per run, default 2), BENCH_RUNS (rounds, default 3), BENCH_CONNECTIONS
 * (concurrent HTTP connections, default 10), BENCH_ROWS (connections on the servers, default
 * 1000000), BENCH_SQLITE_ROWS (default 100000), BENCH_DATABASES (default "postgres,mysql,sqlite"),
 * BENCH_WALK (0 to skip the walk over every page).
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import type { SqlDialect } from "../src/store/sql/dialect.js";
import { type ChildServer, type Memory, startChild } from "./child.js";
import { runLoad, type Sample, type Target } from "./load.js";
import { median, positive, progress, report, verdict } from "./report.js";
import { type BenchDatabase, countRows, createDatabase, fill } from "./scale-fill.js";
import { BENCH_TOOL, BENCH_TOOLKIT } from "./servers.js";

const SECONDS = positive("BENCH_SECONDS", 2);
const RUNS = positive("BENCH_RUNS", 3);
const CONNECTIONS = positive("BENCH_CONNECTIONS", 10);
const ROWS = positive("BENCH_ROWS", 1_000_000);
const SQLITE_ROWS = positive("BENCH_SQLITE_ROWS", 100_000);
const WALK = process.env.BENCH_WALK !== "0";
const DATABASES = (process.env.BENCH_DATABASES ?? "postgres,mysql,sqlite").split(",") as SqlDialect[];
const UPSTREAM_KEY = "upstream-secret-key";
const PAGE = 200;

const TARGET_RATIO = 0.9;
const TARGET_DEEP = 0.8;
const TARGET_RSS_MIB = 64;

interface Route {
  id: string;
  label: string;
  target: (server: ChildServer, deepCursor: string | null) => Target;
}

const ROUTES: Route[] = [
  {
    id: "key-401",
    label: "unknown API key -> 401",
    target: (s) => ({ url: `${s.origin}/proxy/tools/connections`, headers: { "x-api-key": `pak_${"x".repeat(43)}` }, status: 401 }),
  },
  {
    id: "key-ok",
    label: "valid key, GET /auth/{unknown} -> 404",
    target: (s) => ({ url: `${s.origin}/proxy/tools/auth/auth_unknown`, headers: { "x-api-key": s.agentKey! }, status: 404 }),
  },
  {
    id: "agent-list",
    label: "GET /connections (agent key)",
    target: (s) => ({ url: `${s.origin}/proxy/tools/connections`, headers: { "x-api-key": s.agentKey! } }),
  },
  {
    id: "page-first",
    label: `GET /connections?limit=${PAGE} (service key, first page)`,
    target: (s) => ({ url: `${s.origin}/proxy/tools/connections?limit=${PAGE}`, headers: { "x-api-key": s.serviceKey! } }),
  },
  {
    id: "page-deep",
    label: `GET /connections?limit=${PAGE}&cursor= (deep page; small: its 2nd)`,
    target: (s, cursor) => ({
      url: `${s.origin}/proxy/tools/connections?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      headers: { "x-api-key": s.serviceKey! },
    }),
  },
  {
    id: "proxy",
    label: "POST /proxy",
    target: (s) => ({
      url: `${s.origin}/proxy/tools/proxy`,
      method: "POST",
      headers: { "x-api-key": s.agentKey!, "content-type": "application/json" },
      body: JSON.stringify({ toolkit: BENCH_TOOLKIT, method: "GET", url: `${upstreamOrigin}/items/item_1` }),
    }),
  },
  {
    id: "execute",
    label: "POST /execute",
    target: (s) => ({
      url: `${s.origin}/proxy/tools/execute`,
      method: "POST",
      headers: { "x-api-key": s.agentKey!, "content-type": "application/json" },
      body: JSON.stringify({ tool: BENCH_TOOL, arguments: { id: "item_1" } }),
    }),
  },
];

let upstreamOrigin = "";

interface Side {
  server: ChildServer;
  database: BenchDatabase;
  deepCursor: string | null;
}

interface Result {
  dialect: SqlDialect;
  rows: { connections: number; keys: number };
  fillSeconds: number;
  samples: Map<string, { small: Sample[]; big: Sample[] }>;
  walk: {
    pages: number;
    seconds: number;
    rssBefore: number;
    rssPeak: number;
    before: Memory;
    after: Memory;
    note?: string;
  } | null;
  paging: boolean;
}

async function main(): Promise<void> {
  const upstream = await startChild({ role: "upstream", key: UPSTREAM_KEY });
  upstreamOrigin = upstream.origin;
  printSetup();
  const results: Result[] = [];
  try {
    for (const dialect of DATABASES) {
      const result = await benchDatabase(dialect).catch((error: unknown) => {
        console.log(`${dialect}: skipped: ${(error as Error).message.split("\n")[0]}`);
        return null;
      });
      if (result) {
        results.push(result);
        printResult(result);
      }
    }
  } finally {
    await upstream.stop();
  }
  printTargets(results);
}

async function benchDatabase(dialect: SqlDialect): Promise<Result> {
  const rows = dialect === "sqlite" ? SQLITE_ROWS : ROWS;
  const databases: BenchDatabase[] = [];
  const children: ChildServer[] = [];
  try {
    const open = async (tag: string): Promise<Side> => {
      const database = await createDatabase(dialect, tag);
      databases.push(database);
      const server = await startChild({ role: "sql", url: database.url, upstream: upstreamOrigin, key: UPSTREAM_KEY }, ["--expose-gc"]);
      children.push(server);
      if (server.error) throw new Error(server.error);
      return { server, database, deepCursor: null };
    };
    const small = await open("small");
    const big = await open("big");
    // The small database holds two full pages and one row, so that its pages are as long as the big one's.
    await fill(small.database, {
      connectionId: small.server.connectionId!,
      connections: 2 * PAGE,
      perAgent: 10,
      keys: 40,
      batch: 2 * PAGE,
    });
    const fillSeconds = await fill(big.database, {
      connectionId: big.server.connectionId!,
      connections: rows - 1,
      perAgent: 10,
      keys: rows / 10,
      batch: dialect === "sqlite" ? rows : 100_000,
    });
    const counted = await countRows(big.database);
    console.log(`${dialect}: filled ${counted.connections} connections and ${counted.keys} API keys in ${fillSeconds.toFixed(1)} s`);

    const paging = await hasPaging(big.server);
    const walk = paging && WALK ? await walkPages(big, counted.connections) : null;
    if (paging) {
      big.deepCursor ??= await pageCursor(big.server, Math.floor((counted.connections / PAGE) * 0.9));
      small.deepCursor = await pageCursor(small.server, 1);
    }

    const samples = new Map<string, { small: Sample[]; big: Sample[] }>();
    const active = ROUTES.filter((route) => (route.id.startsWith("page-") ? paging : true) && (route.id !== "page-deep" || big.deepCursor));
    for (const route of active) samples.set(route.id, { small: [], big: [] });
    for (const route of active) {
      progress(`${dialect}: warm-up ${route.id}`);
      for (const side of [small, big]) await runLoad(route.target(side.server, side.deepCursor), CONNECTIONS, 1);
    }
    for (let round = 1; round <= RUNS; round++) {
      for (const route of active) {
        progress(`${dialect}: round ${round}/${RUNS}: ${route.id}`);
        // Alternate which side goes first, so that neither always follows the other.
        const order = round % 2 ? ([small, big] as const) : ([big, small] as const);
        for (const side of order) {
          const sample = await runLoad(route.target(side.server, side.deepCursor), CONNECTIONS, SECONDS);
          samples.get(route.id)![side === small ? "small" : "big"].push(sample);
        }
      }
    }
    progress("");
    return { dialect, rows: counted, fillSeconds, samples, walk, paging };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    for (const database of databases) await database.drop().catch(() => {});
  }
}

/** Whether GET /connections pages (the answer has `nextCursor`). */
async function hasPaging(server: ChildServer): Promise<boolean> {
  const response = await fetch(`${server.origin}/proxy/tools/connections?limit=1`, { headers: { "x-api-key": server.serviceKey! } });
  const body = (await response.json()) as { nextCursor?: unknown };
  return response.ok && "nextCursor" in body;
}

/** The cursor of page `page` (from 0) of the workspace listing, or null past the last page. */
async function pageCursor(server: ChildServer, page: number): Promise<string | null> {
  let cursor: string | null = null;
  for (let i = 0; i < page; i++) {
    const url = `${server.origin}/proxy/tools/connections?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const body = (await (await fetch(url, { headers: { "x-api-key": server.serviceKey! } })).json()) as { nextCursor: string | null };
    if (!body.nextCursor) return cursor;
    cursor = body.nextCursor;
  }
  return cursor;
}

/**
 * Walks every page of the big workspace with the service key, sampling the server's RSS every
 * 50 ms; keeps the cursor of the page 90% of the way as the deep page.
 */
async function walkPages(side: Side, total: number): Promise<NonNullable<Result["walk"]>> {
  const before = await side.server.memory();
  const rssBefore = rss(side.server.pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rss(side.server.pid));
  }, 50);
  const started = performance.now();
  let cursor: string | null = null;
  let pages = 0;
  let seen = 0;
  const deepAt = Math.floor((total / PAGE) * 0.9);
  try {
    do {
      const url = `${side.server.origin}/proxy/tools/connections?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const response = await fetch(url, { headers: { "x-api-key": side.server.serviceKey! } });
      if (!response.ok) throw new Error(`page ${pages} answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
      const body = (await response.json()) as { connections: unknown[]; nextCursor: string | null };
      seen += body.connections.length;
      cursor = body.nextCursor;
      pages++;
      if (pages === deepAt) side.deepCursor = cursor;
      if (pages % 250 === 0) progress(`walking every page: ${seen} / ${total} connections, RSS ${mib(rssPeak)} MiB at most`);
    } while (cursor);
  } finally {
    clearInterval(sampler);
    progress("");
  }
  rssPeak = Math.max(rssPeak, rss(side.server.pid));
  const after = await side.server.memory();
  const note = seen === total ? undefined : `walked ${seen} of ${total} connections`;
  return {
    pages,
    seconds: (performance.now() - started) / 1000,
    rssBefore,
    rssPeak,
    before,
    after,
    ...(note ? { note } : {}),
  };
}

/** A process's resident set size in bytes, from /proc (Linux). */
function rss(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(0);
}

function ratio(result: Result, id: string): number | null {
  const pair = result.samples.get(id);
  if (!pair) return null;
  return median(pair.big.map((big, i) => big.rps / pair.small[i]!.rps));
}

/** Deep page / first page on the big database, per round. */
function deepRatio(result: Result): number | null {
  const deep = result.samples.get("page-deep");
  const first = result.samples.get("page-first");
  if (!deep || !first) return null;
  return median(deep.big.map((d, i) => d.rps / first.big[i]!.rps));
}

function printSetup(): void {
  const cpu = cpus();
  console.log("tools-proxy scale benchmark (issue 22): a nearly empty database beside a big one, side by side");
  console.log(
    `node ${process.version}, ${cpu.length} CPU(s) (${cpu[0]?.model.trim() ?? "?"}), load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(
    `load: autocannon in this process, ${CONNECTIONS} connections, ${RUNS} interleaved round(s) x ${SECONDS} s per route and side; ratios are medians of per-round ratios`,
  );
  console.log(
    `big: ${ROWS} connections (10 per agent) and ${ROWS / 10} API keys on PostgreSQL and MariaDB, ${SQLITE_ROWS} and ${SQLITE_ROWS / 10} on SQLite`,
  );
  console.log("");
}

function printResult(result: Result): void {
  console.log(
    `${result.dialect}: ${result.rows.connections} connections, ${result.rows.keys} API keys (fill ${result.fillSeconds.toFixed(1)} s)`,
  );
  const rows = [["route", "small req/s", "big req/s", "big/small", "failures"]];
  for (const route of ROUTES) {
    const pair = result.samples.get(route.id);
    if (!pair) {
      rows.push([route.label, "-", "-", "not measured (needs paging)", "-"]);
      continue;
    }
    const failures = [...pair.small, ...pair.big].reduce((n, s) => n + s.failures, 0);
    rows.push([
      route.label,
      median(pair.small.map((s) => s.rps)).toFixed(0),
      median(pair.big.map((s) => s.rps)).toFixed(0),
      `${ratio(result, route.id)!.toFixed(2)}x`,
      String(failures),
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const [index, row] of rows.entries()) {
    console.log(`  ${row.map((cell, i) => (i ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join("  ")}`);
    if (index === 0) console.log(`  ${widths.map((w) => "-".repeat(w)).join("  ")}`);
  }
  if (result.walk) {
    const w = result.walk;
    console.log(
      `  walk over every page (limit ${PAGE}): ${w.pages} pages in ${w.seconds.toFixed(1)} s; server RSS ${mib(w.rssBefore)} -> ${mib(w.rssPeak)} MiB at most (+${mib(w.rssPeak - w.rssBefore)} MiB), ${mib(w.after.rss)} MiB after a full GC; after a full GC, V8 heap in use ${mib(w.before.heapUsed)} -> ${mib(w.after.heapUsed)} MiB, committed ${mib(w.before.heapTotal)} -> ${mib(w.after.heapTotal)} MiB, outside the heap ${mib(w.before.external)} -> ${mib(w.after.external)} MiB${w.note ? `; ${w.note}` : ""}`,
    );
  }
  console.log("");
}

function printTargets(results: Result[]): void {
  console.log("targets (issue 22)");
  for (const result of results) {
    for (const route of ROUTES) {
      const value = ratio(result, route.id);
      console.log(
        `  ${result.dialect} ${route.id} big/small >= ${TARGET_RATIO}x: ${value === null ? "not measured (GET /connections does not page yet)" : `${verdict(value >= TARGET_RATIO)} (${value.toFixed(2)}x)`}`,
      );
    }
    const deep = deepRatio(result);
    console.log(
      `  ${result.dialect} deep page >= ${TARGET_DEEP}x first page: ${deep === null ? "not measured (no paging)" : `${verdict(deep >= TARGET_DEEP)} (${deep.toFixed(2)}x)`}`,
    );
    const walk = result.walk;
    const growth = walk ? (walk.rssPeak - walk.rssBefore) / 1024 / 1024 : null;
    console.log(
      `  ${result.dialect} RSS growth < ${TARGET_RSS_MIB} MiB walking every page: ${growth === null ? "not measured (no paging, or BENCH_WALK=0)" : `${verdict(growth < TARGET_RSS_MIB)} (+${growth.toFixed(0)} MiB)`}`,
    );
  }
}

report(main);
