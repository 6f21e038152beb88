/**
 * A real `tools-proxy serve` for the benchmarks: the built bin (`npm run build` first) with a
 * toolkit file whose base URL is the benchmark's upstream (the key in one header, as the pipe
 * proxy of `bench/pipe-proxy.ts` adds one Authorization header), one connection made over HTTP, and the
 * first agent key read from the banner. `wrap` runs the bin under another program (valgrind).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BENCH_TOOLKIT, benchToolkit } from "./servers.js";

const BIN = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

export interface ServeProcess {
  origin: string;
  /** The agent key the banner printed. */
  agentKey: string;
  pid: number;
  /** The body of GET /connections, for a bare server that answers the same. */
  connectionsJson: string;
  stop(): Promise<void>;
}

export interface ServeOptions {
  upstream: string;
  upstreamKey: string;
  /** true: `--memory`; false: SQLite under a temporary --data-dir. */
  memory: boolean;
  /** A program and its arguments to run the bin under, e.g. valgrind. */
  wrap?: string[];
  /** How long to wait for the banner, in ms (valgrind needs long). */
  startMs?: number;
  /** The built bin to run, default this tree's `dist/cli/main.js` (the side-by-side bench runs a baseline's). */
  bin?: string;
}

/** Starts `serve --quiet` (no access log) on a free port and connects the bench toolkit. */
export async function startServe(options: ServeOptions): Promise<ServeProcess> {
  const bin = options.bin ?? BIN;
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` first.`);
  const dir = mkdtempSync(join(tmpdir(), "tools-proxy-bench-serve-"));
  const toolkitFile = join(dir, "bench.json");
  writeFileSync(toolkitFile, JSON.stringify(benchToolkit(options.upstream)));
  const storage = options.memory ? ["--memory"] : ["--data-dir", join(dir, "data")];
  const args = [bin, "serve", "--port", "0", "--quiet", "--no-demo", "--toolkits", toolkitFile, ...storage];
  const [program, ...before] = options.wrap ?? [];
  const child = program
    ? spawn(program, [...before, process.execPath, ...args], { stdio: ["ignore", "pipe", "pipe"] })
    : spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), options.startMs ?? 10_000);
      await exited;
      clearTimeout(timer);
    }
  };
  try {
    const banner = await readBanner(child, options.startMs ?? 15_000);
    const origin = /listening on (http:\/\/[^/\s]+)/.exec(banner)![1]!;
    const agentKey = /^\s+(pak_\S+)$/m.exec(banner)![1]!;
    const headers = { "x-api-key": agentKey, "content-type": "application/json" };
    const auth = await fetch(`${origin}/proxy/tools/auth`, {
      method: "POST",
      headers,
      body: JSON.stringify({ toolkit: BENCH_TOOLKIT, credentials: { apiKey: options.upstreamKey } }),
    });
    if (auth.status !== 201) throw new Error(`POST /auth answered ${auth.status}: ${await auth.text()}`);
    const connectionsJson = await (await fetch(`${origin}/proxy/tools/connections`, { headers })).text();
    return { origin, agentKey, pid: child.pid!, connectionsJson, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function readBanner(child: ChildProcess, ms: number): Promise<string> {
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no banner within ${ms} ms:\n${out}\n${err}`)), ms);
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (err = (err + chunk).slice(-4000)));
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
