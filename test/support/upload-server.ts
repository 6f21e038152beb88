/**
 * A real node:http server running the handler through `toNodeHandler` with a file system blob
 * store in a fresh directory, and a client that streams multipart bodies to it the way a browser
 * or curl does (chunked, or with a Content-Length, written as the socket drains).
 */
import { createHash } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { type ClientRequest, createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toNodeHandler } from "../../adapters/node.js";
import { filesystemBlobStore } from "../../src/blob/fs.js";
import { createToolsHandler, issueApiKey, memoryStore, type ToolsHandlerOptions } from "../../src/index.js";

export const BOUNDARY = "----uploadTestBoundary3f9a";

export interface UploadServer {
  url: string;
  directory: string;
  key(agentId?: string, workspaceId?: string): Promise<string>;
  /** Names of the files in the blob directory (blobs and temporary files). */
  files(): Promise<string[]>;
  close(): Promise<void>;
}

export async function startUploadServer(uploads: ToolsHandlerOptions["uploads"] = {}): Promise<UploadServer> {
  const directory = await mkdtemp(join(tmpdir(), "tp-upload-"));
  const store = memoryStore();
  const tools = createToolsHandler({
    store,
    blobStore: filesystemBlobStore({ directory }),
    secret: "u".repeat(32),
    uploads,
    sweepIntervalMs: 0,
  });
  const server = createServer(toNodeHandler(tools));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/proxy/tools`,
    directory,
    key: async (agentId = "agent", workspaceId = "ws") => (await issueApiKey(store, { workspaceId, agentId })).key,
    files: () => readdir(directory).catch(() => []),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await tools.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

const encoder = new TextEncoder();

/** The opening of a multipart body: boundary and headers of the part named `file` (plus extra header lines). */
export function partHead(type: string | null, filename = "file.bin", extra: string[] = [], name = "file"): Uint8Array {
  const lines = [`--${BOUNDARY}`, `Content-Disposition: form-data; name="${name}"; filename="${filename}"`];
  if (type) lines.push(`Content-Type: ${type}`);
  return encoder.encode(`${[...lines, ...extra].join("\r\n")}\r\n\r\n`);
}

export const CLOSING = encoder.encode(`\r\n--${BOUNDARY}--\r\n`);

/** Deterministic bytes of any length, beginning with `first`, made chunk by chunk (never held whole). */
export function* generated(size: number, first: Uint8Array = new Uint8Array(0), chunkSize = 256 * 1024): Generator<Uint8Array> {
  let offset = 0;
  while (offset < size) {
    const chunk = new Uint8Array(Math.min(chunkSize, size - offset));
    for (let i = 0; i < chunk.length; i++) chunk[i] = offset + i < first.length ? first[offset + i]! : ((offset + i) * 2654435761) >>> 24;
    offset += chunk.length;
    yield chunk;
  }
}

export function sha256(chunks: Iterable<Uint8Array>): string {
  const hash = createHash("sha256");
  for (const chunk of chunks) hash.update(chunk);
  return hash.digest("hex");
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface PostOptions {
  /** Sent as the Content-Length header (which may lie); none: chunked. */
  contentLength?: number;
  contentType?: string;
  /** Stop after this many body bytes and destroy the socket, as a client that goes away. */
  abortAfter?: number;
  /** Called once `abortAfter` bytes went out, before the socket is destroyed. */
  beforeAbort?: () => Promise<void>;
}

/**
 * POSTs `chunks` to `url`, writing each as the socket drains, and resolves with the answer, which
 * may come before the body is sent (a refusal), in which case writing stops. With `abortAfter`, it
 * resolves with null once the socket is destroyed.
 */
export function post(url: string, apiKey: string, chunks: Iterable<Uint8Array>, options: PostOptions = {}): Promise<Answer | null> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      "x-api-key": apiKey,
      "content-type": options.contentType ?? `multipart/form-data; boundary=${BOUNDARY}`,
    };
    if (options.contentLength !== undefined) headers["content-length"] = String(options.contentLength);
    const req = httpRequest(url, { method: "POST", headers, agent: false }); // a fresh connection each time
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      const body: Buffer[] = [];
      res.on("data", (chunk: Buffer) => body.push(chunk));
      res.on("end", () => {
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(body) });
        req.destroy();
      });
    });
    req.on("error", (error) => {
      if (!answered && options.abortAfter === undefined) reject(error);
    });
    void (async () => {
      let sent = 0;
      for (const chunk of chunks) {
        if (answered || req.destroyed) return;
        if (options.abortAfter !== undefined && sent + chunk.byteLength > options.abortAfter) {
          await options.beforeAbort?.();
          req.destroy();
          return resolve(null);
        }
        sent += chunk.byteLength;
        if (!req.write(chunk)) await writable(req);
      }
      if (!answered && !req.destroyed) req.end();
    })();
  });
}

/** Resolves when the request can take more bytes, or will take none (answered or closed). */
function writable(req: ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const event of ["drain", "close", "response"]) req.off(event, done);
      resolve();
    };
    for (const event of ["drain", "close", "response"]) req.on(event, done);
  });
}

/** GETs `url` with the key, reading the whole answer. */
export function get(url: string, apiKey: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers: { "x-api-key": apiKey } }, (res) => {
      const body: Buffer[] = [];
      res.on("data", (chunk: Buffer) => body.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(body) }));
    })
      .on("error", reject)
      .end();
  });
}
