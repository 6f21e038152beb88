/**
 * The two servers of the upload benchmark, one per child process (see `bench/upload.ts`):
 *
 * - "bare": a node:http server that pipes each request body to a file, as the least any upload
 *   endpoint does;
 * - "tools": the handler through `toNodeHandler` (tools-proxy/node) with `filesystemBlobStore`.
 *
 * Each samples its own RSS every 10 ms. Over IPC the parent sends `{ role, directory, maxBytes }`,
 * then "mark" before an upload (the RSS then is the baseline) and "report" after it, answered with
 * an `UploadServerReport` once the directory was emptied; "exit" ends the process.
 */
import { createWriteStream } from "node:fs";
import { readdir, rm, stat } from "node:fs/promises";
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { pathToFileURL } from "node:url";

export interface UploadServerConfig {
  role: "bare" | "tools";
  directory: string;
  maxBytes: number;
  /** tools only: fsync each blob before it becomes visible (the store's default). */
  fsync: boolean;
  /** tools only: the `dist/` folder of a build to serve (the side-by-side bench), instead of this tree's sources. */
  dist?: string;
}

export interface UploadServerReady {
  port: number;
  /** tools: the agent key to upload with. */
  agentKey?: string;
}

export interface UploadServerReport {
  baseline: number;
  peak: number;
  /** Largest `process.memoryUsage().arrayBuffers` seen (sampled every 100 ms): buffers not yet collected. */
  peakArrayBuffers: number;
  /** CPU time of the process (all threads, user + system) since "mark", in seconds. */
  cpuSeconds: number;
  /** Sizes of the files the upload left in the directory, before they were deleted. */
  files: number[];
}

let baseline = process.memoryUsage.rss();
let peak = baseline;
let peakArrayBuffers = 0;
let cpuAtMark = process.cpuUsage();
let samples = 0;
setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
  // The full breakdown is dearer: every tenth sample.
  if (++samples % 10 === 0) peakArrayBuffers = Math.max(peakArrayBuffers, process.memoryUsage().arrayBuffers);
}, 10).unref();

function bare(directory: string): RequestListener {
  let n = 0;
  return (req, res) => {
    const path = join(directory, `upload-${n++}`);
    pipeline(req, createWriteStream(path)).then(
      () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ stored: path })),
      () => res.writeHead(500).end(),
    );
  };
}

async function tools(config: UploadServerConfig): Promise<{ listener: RequestListener; agentKey: string }> {
  const from = (built: string, source: string) => (config.dist ? pathToFileURL(join(config.dist, built)).href : source);
  const { createToolsHandler, issueApiKey, memoryStore }: typeof import("../src/index.js") = await import(
    from("index.js", "../src/index.js")
  );
  const { filesystemBlobStore }: typeof import("../src/blob/fs.js") = await import(from("fs/index.js", "../src/blob/fs.js"));
  const { toNodeHandler }: typeof import("../adapters/node.js") = await import(from("adapters/node.js", "../adapters/node.js"));
  const store = memoryStore();
  const handler = createToolsHandler({
    store,
    blobStore: filesystemBlobStore({ directory: config.directory, fsync: config.fsync }),
    secret: "bench-secret-bench-secret-bench-secret-0123456789",
    uploads: { maxBytes: config.maxBytes },
    sweepIntervalMs: 0,
  });
  const { key } = await issueApiKey(store, { workspaceId: "bench", agentId: "agent" });
  return { listener: toNodeHandler(handler), agentKey: key };
}

/** Blob sizes in the directory (the file system store's header excluded), then empties it. */
async function collect(directory: string): Promise<number[]> {
  const sizes: number[] = [];
  for (const name of await readdir(directory)) {
    const path = join(directory, name);
    sizes.push((await stat(path)).size);
    await rm(path, { force: true });
  }
  return sizes;
}

process.once("message", (config: UploadServerConfig) => {
  void (async () => {
    const made = config.role === "bare" ? { listener: bare(config.directory), agentKey: undefined } : await tools(config);
    const server = createServer(made.listener);
    server.listen(0, "127.0.0.1", () => {
      const ready: UploadServerReady = {
        port: (server.address() as AddressInfo).port,
        ...(made.agentKey ? { agentKey: made.agentKey } : {}),
      };
      process.send!(ready);
    });
  })();
  process.on("message", (message) => {
    if (message === "exit") process.exit(0);
    if (message === "mark") {
      baseline = process.memoryUsage.rss();
      peak = baseline;
      peakArrayBuffers = 0;
      cpuAtMark = process.cpuUsage();
      process.send!("marked");
    }
    if (message === "report") {
      peak = Math.max(peak, process.memoryUsage.rss());
      const cpu = process.cpuUsage(cpuAtMark);
      const report = { baseline, peak, peakArrayBuffers, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
      void collect(config.directory).then((files) => process.send!({ ...report, files } satisfies UploadServerReport));
    }
  });
});
process.on("disconnect", () => process.exit(0));
