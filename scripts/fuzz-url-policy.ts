/**
 * Runs the URL and header policy properties of test/outbound/url-policy.property.test.ts with a
 * large count: by default a million generated URLs per base URL (an IP base, a named base, a root
 * base and a tenant placeholder), a quarter million plain URLs per base, and a million header sets.
 *
 *   npm run fuzz:url                          # the defaults
 *   npm run fuzz:url -- --runs 5000000        # URLs per base URL; the others scale with it
 *   npm run fuzz:url -- --seed 1234567        # replay a run
 *
 * Prints each property's count, seed and time, and any counterexample; exits 1 on a failure.
 */

import { parseArgs } from "node:util";
import fc from "fast-check";
import { WORLDS } from "../test/support/ssrf-arbitraries.js";
import { headerPolicyProperty, plainUrlProperty, type UrlStats, urlPolicyProperty } from "../test/support/ssrf-properties.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "1000000" }, seed: { type: "string" } } });
const runs = Number(values.runs);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!Number.isSafeInteger(runs) || runs < 1 || !Number.isSafeInteger(seed)) {
  console.error("Usage: fuzz-url-policy [--runs N] [--seed S]");
  process.exit(2);
}

let failed = false;
let total = 0;
const started = performance.now();

function run(name: string, property: fc.IProperty<unknown[]>, numRuns: number, stats?: UrlStats): void {
  const t0 = performance.now();
  const details = fc.check(property, { numRuns, seed });
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  total += details.numRuns;
  const counts = stats ? ` (${stats.accepted} accepted, ${stats.refused} refused)` : "";
  if (!details.failed) {
    console.log(`ok    ${name}: ${details.numRuns} runs${counts}, seed ${seed}, ${seconds}s`);
    return;
  }
  failed = true;
  console.log(`FAIL  ${name}: after ${details.numRuns} runs, seed ${seed}, path ${details.counterexamplePath}, ${seconds}s`);
  console.log(`      counterexample: ${fc.stringify(details.counterexample)}`);
  console.log(`      ${String(details.errorInstance).split("\n")[0]}`);
}

console.log(`fuzz-url-policy: ${runs} URLs per base URL, seed ${seed}, Node ${process.version}`);
for (const w of WORLDS) {
  const stats: UrlStats = { accepted: 0, refused: 0 };
  run(`URLs around the ${w.name} base ${w.baseUrls[0]}`, urlPolicyProperty(w, stats), runs, stats);
}
for (const w of WORLDS) run(`plain URLs under the ${w.name} base`, plainUrlProperty(w), Math.ceil(runs / 4));
run("caller headers", headerPolicyProperty(), runs);
console.log(`${failed ? "FAILED" : "passed"}: ${total} runs in ${((performance.now() - started) / 1000).toFixed(1)}s, seed ${seed}`);
process.exit(failed ? 1 : 0);
