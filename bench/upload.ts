/**
 * The upload benchmark (issue #5), run by `npm run bench` after the proxy benchmark, or alone with
 * `npm run bench:upload`: one multipart upload of BENCH_UPLOAD_MIB (default 1024) MiB, generated
 * on the fly by this process (never held in memory), sent over loopback to
 *
 *   (bare)  a node:http server that pipes the request body to a file, and
 *   (tools) POST /proxy/tools/upload through toNodeHandler into filesystemBlobStore,
 *
 * each in its own child process that samples its RSS every 10 ms. Rounds alternate the two, and the
 * figures are medians over rounds: throughput (file MiB per second, from the first byte sent to the
 * answer), tools/bare ratio, and the server's peak RSS growth over its RSS just before the upload.
 * Files go to a temporary directory that is deleted at the end. A report, not a test: exits 0.
 *
 * Environment: BENCH_UPLOAD_MIB, BENCH_UPLOAD_RUNS (default 3), BENCH_UPLOAD_FSYNC (0, the store's
 * default, like the bare server; 1: each blob is flushed to disk before it is announced).
 */
import { type ChildProcess, fork } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median, positive, progress } from "./report.js";
import type { UploadServerConfig, UploadServerReady, UploadServerReport } from "./upload-server.js";

const MiB = 1024 * 1024;
const SIZE_MIB = positive("BENCH_UPLOAD_MIB", 1024);
const RUNS = positive("BENCH_UPLOAD_RUNS", 3);
const FSYNC = process.env.BENCH_UPLOAD_FSYNC === "1";
const FILE_BYTES = Math.round(SIZE_MIB * MiB);
const TARGET_RATIO = 0.5;
const TARGET_GROWTH_MIB = 64;
const BOUNDARY = "----benchUploadBoundary";
const SERVER = fileURLToPath(new URL("./upload-server.ts", import.meta.url));

interface Child {
  role: UploadServerConfig["role"];
  port: number;
  agentKey?: string;
  ask<T>(message: string): Promise<T>;
  stop(): void;
}

interface Sample {
  mibps: number;
  growthMib: number;
  /** Buffers read and not yet collected, at most: the garbage collector's share of the growth. */
  arrayBuffersMib: number;
  /** CPU time the server spent (all threads), per GiB of file. */
  cpuPerGib: number;
}

async function start(config: UploadServerConfig): Promise<Child> {
  const child: ChildProcess = fork(SERVER, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const ready = await new Promise<UploadServerReady>((resolve, reject) => {
    child.once("message", (message) => resolve(message as UploadServerReady));
    child.once("exit", (code) => reject(new Error(`upload server "${config.role}" exited with code ${code}`)));
    child.send(config);
  });
  return {
    role: config.role,
    ...ready,
    ask: <T>(message: string) =>
      new Promise<T>((resolve) => (child.once("message", (answer) => resolve(answer as T)), child.send(message))),
    stop: () => void (child.connected && child.send("exit")),
  };
}

/** One multipart upload of `fileBytes` to the child; resolves with the seconds it took. */
function upload(child: Child, fileBytes: number): Promise<number> {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="video.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  // One chunk, sent again and again: the client costs little CPU and holds 256 KiB.
  const chunk = Buffer.alloc(256 * 1024, 0x5a);
  const first = Buffer.from(chunk);
  first.set([0, 0, 0, 0x18, ...Buffer.from("ftypmp42")]); // an MP4 file's first box, for the signature check
  const path = child.role === "tools" ? "/proxy/tools/upload" : "/upload";
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request({
      host: "127.0.0.1",
      port: child.port,
      path,
      method: "POST",
      agent: false,
      headers: {
        "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
        "content-length": String(head.length + fileBytes + tail.length),
        ...(child.agentKey ? { "x-api-key": child.agentKey } : {}),
      },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      const body: Buffer[] = [];
      res.on("data", (data: Buffer) => body.push(data));
      res.on("end", () => {
        const seconds = (performance.now() - started) / 1000;
        const text = Buffer.concat(body).toString();
        if (res.statusCode !== 200) return reject(new Error(`${child.role} answered ${res.statusCode}: ${text.slice(0, 300)}`));
        if (child.role === "tools" && (JSON.parse(text) as { size: number }).size !== fileBytes)
          return reject(new Error(`tools stored the wrong size: ${text}`));
        resolve(seconds);
      });
    });
    let sent = 0;
    const pump = () => {
      if (sent === 0 && !req.write(head)) return void req.once("drain", pump);
      while (sent < fileBytes) {
        const size = Math.min(chunk.length, fileBytes - sent);
        const piece = sent === 0 ? first.subarray(0, size) : chunk.subarray(0, size);
        sent += size;
        if (!req.write(piece)) return void req.once("drain", pump);
      }
      req.end(tail);
    };
    pump();
  });
}

async function measure(child: Child): Promise<Sample> {
  await child.ask("mark");
  const seconds = await upload(child, FILE_BYTES);
  const report = await child.ask<UploadServerReport>("report");
  const expected = child.role === "bare" ? FILE_BYTES : FILE_BYTES + 1; // bare: the raw body, larger still
  if (report.files.length !== 1 || report.files[0]! < expected)
    throw new Error(`${child.role} left ${JSON.stringify(report.files)} on disk`);
  return {
    mibps: SIZE_MIB / seconds,
    growthMib: (report.peak - report.baseline) / MiB,
    arrayBuffersMib: report.peakArrayBuffers / MiB,
    cpuPerGib: report.cpuSeconds / (SIZE_MIB / 1024),
  };
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "tp-bench-upload-"));
  const children: Child[] = [];
  try {
    for (const role of ["bare", "tools"] as const) {
      const directory = join(root, role);
      await mkdir(directory);
      children.push(await start({ role, directory, maxBytes: FILE_BYTES, fsync: FSYNC }));
    }
    printSetup(children);
    // One full-size upload each first, so that code is optimised and heaps have grown to what
    // such an upload needs: the rounds then measure a server in its steady state.
    for (const child of children) {
      progress(`warm-up: ${child.role}, ${SIZE_MIB} MiB`);
      await measure(child);
    }
    const samples = new Map<string, Sample[]>(children.map((c) => [c.role, []]));
    for (let round = 1; round <= RUNS; round++) {
      for (const child of children) {
        progress(`round ${round}/${RUNS}: ${child.role}, ${SIZE_MIB} MiB`);
        samples.get(child.role)!.push(await measure(child));
      }
    }
    progress("");
    printResults(samples.get("bare")!, samples.get("tools")!);
  } finally {
    for (const child of children) child.stop();
    await rm(root, { recursive: true, force: true });
  }
}

function printSetup(children: Child[]): void {
  const cpu = cpus();
  console.log(`\ntools-proxy upload benchmark (issue #5): one ${SIZE_MIB} MiB multipart upload over loopback`);
  console.log(
    `node ${process.version}, ${cpu.length} CPU(s) (${cpu[0]?.model.trim() ?? "?"}), load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(
    `client: this process, Content-Length set, body generated on the fly; servers: one child process each (${children.map((c) => c.role).join(", ")})`,
  );
  console.log(
    `tools: toNodeHandler + filesystemBlobStore (fsync ${FSYNC ? "on" : "off, the default"}); bare: node:http piping the body to a file (no fsync)`,
  );
  console.log(
    `runs: 1 warm-up upload of the same size per server, then ${RUNS} alternating round(s); figures are medians; RSS sampled every 10 ms`,
  );
  console.log("in each server; growth = peak RSS during the upload - RSS just before it; array buffers = peak bytes of buffers not yet");
  console.log("collected; server CPU = user + system time of the server process, all threads (steadier than MiB/s on a busy machine)\n");
}

function printResults(bare: Sample[], tools: Sample[]): void {
  const rows = [
    ["server", "MiB/s", "(min-max)", "server CPU s/GiB", "peak RSS growth MiB", "(max)", "array buffers MiB"],
    ...(
      [
        ["bare node:http pipe to file", bare],
        ["tools-proxy POST /upload", tools],
      ] as const
    ).map(([label, s]) => [
      label,
      median(s.map((x) => x.mibps)).toFixed(0),
      `${Math.min(...s.map((x) => x.mibps)).toFixed(0)}-${Math.max(...s.map((x) => x.mibps)).toFixed(0)}`,
      median(s.map((x) => x.cpuPerGib)).toFixed(2),
      median(s.map((x) => x.growthMib)).toFixed(1),
      Math.max(...s.map((x) => x.growthMib)).toFixed(1),
      median(s.map((x) => x.arrayBuffersMib)).toFixed(1),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const [index, row] of rows.entries()) {
    console.log(row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  "));
    if (index === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
  const ratio = median(tools.map((t, i) => t.mibps / bare[i]!.mibps));
  const growth = median(tools.map((t) => t.growthMib));
  const worst = Math.max(...tools.map((t) => t.growthMib));
  console.log(`\nratio tools/bare throughput (median of per-round ratios): ${ratio.toFixed(2)}`);
  console.log("targets (issue #5)");
  console.log(`  throughput >= ${TARGET_RATIO} x bare: ${ratio >= TARGET_RATIO ? "MET" : "NOT MET"} (${ratio.toFixed(2)})`);
  console.log(
    `  peak RSS growth < ${TARGET_GROWTH_MIB} MiB (median of rounds): ${growth < TARGET_GROWTH_MIB ? "MET" : "NOT MET"} (${growth.toFixed(1)} MiB; worst round ${worst.toFixed(1)} MiB)`,
  );
  console.log("  (growth is mostly buffers the garbage collector has not freed yet: it does not grow with the file's size)");
}

main()
  .catch((error: unknown) => console.error("upload bench failed:", error))
  .finally(() => {
    process.exitCode = 0;
  });
