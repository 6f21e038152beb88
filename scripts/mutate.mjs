/**
 * `npm run mutate [-- file ...]`: StrykerJS over the listed source files (default: every file of
 * mutation.config.mjs), one Stryker run per file with only that file's tests, so that a static
 * mutant (a module-level pattern or table) runs the tests that can kill it rather than all of them.
 * Prints each file's score (static mutants included) and fails when one is under 90%.
 * Reports: reports/mutation/<file>.html and .json.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { SELECTION } from "../mutation.config.mjs";

const files = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(SELECTION);
const unknown = files.filter((file) => !SELECTION[file]);
if (unknown.length) {
  console.error(`mutate: not in mutation.config.mjs: ${unknown.join(", ")}. Files: ${Object.keys(SELECTION).join(", ")}`);
  process.exit(2);
}

const rows = [];
for (const file of files) {
  const started = Date.now();
  console.log(`\nmutate: ${file}`);
  const run = spawnSync(process.execPath, ["node_modules/@stryker-mutator/core/bin/stryker.js", "run"], {
    stdio: "inherit",
    env: { ...process.env, MUTATE_FILES: file },
  });
  if (run.status !== 0) process.exit(run.status ?? 1);
  const name = file.replace(/^src\//, "").replace(/[/.]/g, "-");
  const mutants = JSON.parse(readFileSync(`reports/mutation/${name}.json`, "utf8")).files[file]?.mutants ?? [];
  const count = (status) => mutants.filter((m) => m.status === status).length;
  rows.push({
    file,
    total: mutants.length,
    killed: count("Killed"),
    timeout: count("Timeout"),
    survived: count("Survived"),
    noCoverage: count("NoCoverage"),
    seconds: (Date.now() - started) / 1000,
  });
}

let failed = false;
console.log("\nfile                                   mutants  killed timeout survived  no-cov   score   time");
for (const r of rows) {
  const valid = r.killed + r.timeout + r.survived + r.noCoverage;
  const score = valid ? (100 * (r.killed + r.timeout)) / valid : 100;
  failed ||= score < 90;
  const cells = [r.total, r.killed, r.timeout, r.survived, r.noCoverage].map((n, i) => String(n).padStart(i ? 8 : 8));
  console.log(`${r.file.padEnd(38)}${cells.join("")}  ${score.toFixed(1).padStart(5)}%  ${Math.round(r.seconds)}s`);
}
if (failed) {
  console.error("\nmutate: a file scores under 90%; see reports/mutation/ and test/MUTANTS.md.");
  process.exit(1);
}
