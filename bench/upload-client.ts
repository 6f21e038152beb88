/**
 * The client side of the upload benchmarks (`bench/upload.ts`, `bench/side-by-side.ts`): starts
 * an upload server of `bench/upload-server.ts` in its own process, and sends it one multipart
 * upload generated on the fly (never held in memory), reading back what the server measured.
 */
import { type ChildProcess, fork } from "node:child_process";
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import type { UploadServerConfig, UploadServerReady, UploadServerReport } from "./upload-server.js";

export const MiB = 1024 * 1024;
const BOUNDARY = "----benchUploadBoundary";
const SERVER = fileURLToPath(new URL("./upload-server.ts", import.meta.url));

/** An upload server of `bench/upload-server.ts` in its own child process. */
export interface Child {
  role: UploadServerConfig["role"];
  port: number;
  agentKey?: string;
  ask<T>(message: string): Promise<T>;
  stop(): void;
}

/** One upload, as the server saw it. */
export interface Sample {
  mibps: number;
  growthMib: number;
  /** Buffers read and not yet collected, at most: the garbage collector's share of the growth. */
  arrayBuffersMib: number;
  /** CPU time the server spent (all threads), per GiB of file. */
  cpuPerGib: number;
}

/** Forks `bench/upload-server.ts` with `config` and waits for it to listen. */
export async function startUploadServer(config: UploadServerConfig): Promise<Child> {
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

/**
 * One upload of `fileBytes` to `child`, with the server's peak RSS growth over its RSS just before,
 * its CPU time and the buffers not yet collected; throws unless the file was stored whole.
 */
export async function measureUpload(child: Child, fileBytes: number): Promise<Sample> {
  await child.ask("mark");
  const seconds = await upload(child, fileBytes);
  const report = await child.ask<UploadServerReport>("report");
  const expected = child.role === "bare" ? fileBytes : fileBytes + 1; // bare: the raw body, larger still
  if (report.files.length !== 1 || report.files[0]! < expected)
    throw new Error(`${child.role} left ${JSON.stringify(report.files)} on disk`);
  return {
    mibps: fileBytes / MiB / seconds,
    growthMib: (report.peak - report.baseline) / MiB,
    arrayBuffersMib: report.peakArrayBuffers / MiB,
    cpuPerGib: report.cpuSeconds / (fileBytes / MiB / 1024),
  };
}
