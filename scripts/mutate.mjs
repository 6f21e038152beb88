/**
 * `npm run mutate [-- file ...]`: StrykerJS over the listed source files (default: every file of
 * mutation.config.mjs), running only their tests. Prints each file's score and fails when one is
 * under 90%.
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
const run = spawnSync(process.execPath, ["node_modules/@stryker-mutator/core/bin/stryker.js", "run", "--mutate", files.join(",")], {
  stdio: "inherit",
  env: { ...process.env, MUTATE_FILES: files.join(",") },
});
if (run.status !== 0) process.exit(run.status ?? 1);

// Scores per file from the JSON report, static mutants included; survivors and no-coverage count against.
const report = JSON.parse(readFileSync("reports/mutation/mutation.json", "utf8"));
let failed = false;
console.log("\nfile                                  mutants  killed  survived  no cov  timeout  score");
for (const file of files) {
  const mutants = report.files[file]?.mutants ?? [];
  const count = (status) => mutants.filter((m) => m.status === status).length;
  const killed = count("Killed");
  const timeout = count("Timeout");
  const survived = count("Survived");
  const noCoverage = count("NoCoverage");
  const valid = killed + timeout + survived + noCoverage;
  const score = valid ? (100 * (killed + timeout)) / valid : 100;
  failed ||= score < 90;
  console.log(`${file.padEnd(38)}${String(mutants.length).padStart(7)}${String(killed).padStart(8)}${String(survived).padStart(10)}${String(noCoverage).padStart(8)}${String(timeout).padStart(9)}  ${score.toFixed(1)}%`);
}
if (failed) {
  console.error("\nmutate: a file scores under 90%; see reports/mutation/index.html and test/MUTANTS.md.");
  process.exit(1);
}
