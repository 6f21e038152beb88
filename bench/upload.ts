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
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { median, positive, progress } from "./report.js";
import { type Child, MiB, measureUpload, type Sample, startUploadServer } from "./upload-client.js";

const SIZE_MIB = positive("BENCH_UPLOAD_MIB", 1024);
const RUNS = positive("BENCH_UPLOAD_RUNS", 3);
const FSYNC = process.env.BENCH_UPLOAD_FSYNC === "1";
const FILE_BYTES = Math.round(SIZE_MIB * MiB);
const TARGET_RATIO = 0.5;
const TARGET_GROWTH_MIB = 64;

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "tp-bench-upload-"));
  const children: Child[] = [];
  try {
    for (const role of ["bare", "tools"] as const) {
      const directory = join(root, role);
      await mkdir(directory);
      children.push(await startUploadServer({ role, directory, maxBytes: FILE_BYTES, fsync: FSYNC }));
    }
    printSetup(children);
    // One full-size upload each first, so that code is optimised and heaps have grown to what
    // such an upload needs: the rounds then measure a server in its steady state.
    for (const child of children) {
      progress(`warm-up: ${child.role}, ${SIZE_MIB} MiB`);
      await measureUpload(child, FILE_BYTES);
    }
    const samples = new Map<string, Sample[]>(children.map((c) => [c.role, []]));
    for (let round = 1; round <= RUNS; round++) {
      for (const child of children) {
        progress(`round ${round}/${RUNS}: ${child.role}, ${SIZE_MIB} MiB`);
        samples.get(child.role)!.push(await measureUpload(child, FILE_BYTES));
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
