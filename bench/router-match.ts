/**
 * The cost of matching one request to a route (issue 30): the router on itty-router
 * (`src/routes/router.ts`) beside the hand-written matcher it replaced
 * (`test/support/hand-router.ts`), and, for reference, itty-router's own `fetch`, which parses the
 * URL again and awaits each handler. The real route table under 3 base paths, every route path
 * (with and without a trailing slash) and a few unknown ones, each with 7 methods. Rounds are
 * interleaved, each in a rotated order, after a warm-up; per variant, the median nanoseconds per
 * match over the rounds with their spread. A report, not a test.
 *
 * Environment: BENCH_ROUNDS (default 9), BENCH_ROUND_MS (default 300, per variant and round).
 */
import { IttyRouter } from "itty-router";
import { createRouteTable } from "../src/route-table.js";
import { createRouter } from "../src/routes/router.js";
import { createHandRouter } from "../test/support/hand-router.js";
import { median, positive, printTable, report } from "./report.js";

const ROUNDS = positive("BENCH_ROUNDS", 9);
const ROUND_MS = positive("BENCH_ROUND_MS", 300);
const BASE_PATHS = ["/proxy/tools", "", "/api/v1"];
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** Every path of the table with its parameters filled, with and without a trailing slash, and some no route has. */
function pathsUnder(base: string): string[] {
  const paths = new Set<string>();
  for (const route of createRouteTable()) {
    const path = `${base}${route.path.replace(/:[A-Za-z]+/g, "item_1").replace(/\/\*$/, "/v1/items")}`;
    paths.add(path).add(`${path}/`);
  }
  for (const unknown of ["/nope", "/toolkit", "/connections/a/b", "/icons/a.png"]) paths.add(`${base}${unknown}`);
  return [...paths];
}

interface Variant {
  name: string;
  /** Matches every case once; returns something derived from the answers, so that no work is skipped. */
  run(): number | Promise<number>;
}

function variants(): Variant[] {
  const table = createRouteTable();
  const cases = BASE_PATHS.flatMap((base) => pathsUnder(base).flatMap((path) => METHODS.map((method) => ({ base, method, path }))));
  const byBase = <R>(make: (base: string) => R) => new Map(BASE_PATHS.map((base) => [base, make(base)]));
  const sync = (name: string, routers: Map<string, { match(method: string, path: string): { kind: string } }>): Variant => ({
    name,
    run() {
      let sum = 0;
      for (const { base, method, path } of cases) sum += routers.get(base)!.match(method, path).kind.length;
      return sum;
    },
  });
  const fetchers = byBase((base) => {
    const itty = IttyRouter({ base });
    for (const route of table) itty[route.method === "*" ? "all" : route.method.toLowerCase()](route.path, () => route.path);
    return itty;
  });
  const requests = cases.map(({ base, method, path }) => ({ base, request: { method, url: `http://localhost${path}` } }));
  return [
    sync(
      "hand-written matcher (before)",
      byBase((base) => createHandRouter(table, base)),
    ),
    sync(
      "itty-router table, own loop (after)",
      byBase((base) => createRouter(table, base)),
    ),
    {
      name: "itty-router fetch (reference)",
      async run() {
        let sum = 0;
        for (const { base, request } of requests) sum += ((await fetchers.get(base)!.fetch(request)) as string | undefined)?.length ?? 0;
        return sum;
      },
    },
  ].map((variant) => ({ ...variant, cases: cases.length }));
}

async function main(): Promise<void> {
  const all = variants();
  const cases = (all[0] as Variant & { cases: number }).cases;
  const samples = new Map(all.map((variant) => [variant.name, [] as number[]]));
  let sink = 0;
  for (let round = -1; round < ROUNDS; round++) {
    const order = all.map((_, i) => all[(i + Math.max(round, 0)) % all.length]!);
    for (const variant of order) {
      let runs = 0;
      const start = performance.now();
      while (performance.now() - start < ROUND_MS) {
        sink += await variant.run();
        runs++;
      }
      const nsPerMatch = ((performance.now() - start) * 1e6) / (runs * cases);
      if (round >= 0) samples.get(variant.name)!.push(nsPerMatch); // round -1 warms up
    }
  }
  console.log(
    `router-match: ${cases} cases (${BASE_PATHS.length} base paths x paths x ${METHODS.length} methods), ${ROUNDS} rounds of ${ROUND_MS} ms each, node ${process.version}`,
  );
  const rows = [["variant", "median ns/match", "min", "max"]];
  for (const [name, values] of samples) {
    rows.push([name, median(values).toFixed(0), Math.min(...values).toFixed(0), Math.max(...values).toFixed(0)]);
  }
  printTable(rows, 1);
  if (sink === 0) console.log("(no answers)");
}

report(main);
