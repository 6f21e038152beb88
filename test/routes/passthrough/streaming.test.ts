import { createHash, randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { Readable, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineToolkit } from "../../../src/index.js";
import { close, listen, startToolsServer, type ToolsServer } from "./servers.js";

/**
 * 64 MiB each way through the passthrough on a real server (`toNodeHandler`), with bodies that
 * cannot have been buffered: the sender holds back every chunk more than `WINDOW` bytes ahead of
 * what the other end has received. A proxy that read a whole body before passing it on would
 * never see the end of it, and the test would stall (and fail on vitest's timeout) instead of
 * passing. Both ends compare the length and SHA-256 of what went through.
 */

const MiB = 1024 * 1024;
const TOTAL = 64 * MiB;
const CHUNK = MiB;
const WINDOW = 8 * MiB;
const TOKEN = `brr-stream-${crypto.randomUUID()}`;

/** A byte count that others can wait on. */
class Progress extends EventEmitter {
  bytes = 0;
  add(n: number): void {
    this.bytes += n;
    this.emit("progress");
  }
  /** Resolves once at least `bytes` were counted. */
  reach(bytes: number): Promise<void> {
    if (this.bytes >= bytes) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (this.bytes < bytes) return;
        this.off("progress", check);
        resolve();
      };
      this.on("progress", check);
    });
  }
}

/** The body's chunks: random bytes, each chunk different. */
const block = randomBytes(CHUNK);
const chunkAt = (i: number) => {
  const chunk = Buffer.from(block);
  chunk.writeUInt32BE(i, 0);
  return chunk;
};
const expectedDigest = (() => {
  const hash = createHash("sha256");
  for (let i = 0; i < TOTAL / CHUNK; i++) hash.update(chunkAt(i));
  return hash.digest("hex");
})();

/** Writes the body, never more than `WINDOW` bytes ahead of what the other end has counted. */
async function writeAhead(out: Writable, received: Progress): Promise<void> {
  for (let i = 0; i < TOTAL / CHUNK; i++) {
    await received.reach(i * CHUNK - WINDOW);
    if (!out.write(chunkAt(i))) await new Promise((resolve) => out.once("drain", resolve));
  }
  out.end();
}

/** Reads a body to its end, counting its bytes into `progress` as they arrive: its size and SHA-256. */
function count(body: Readable, progress: Progress): Promise<{ size: number; sha256: string }> {
  const hash = createHash("sha256");
  let size = 0;
  return new Promise((resolve, reject) => {
    body.on("data", (chunk: Buffer) => {
      hash.update(chunk);
      size += chunk.length;
      progress.add(chunk.length);
    });
    body.on("end", () => resolve({ size, sha256: hash.digest("hex") }));
    body.on("error", reject);
  });
}

let upstream: Server;
let tools: ToolsServer;
let uploaded: Progress;
let downloaded: Progress;
const seen: Array<{ url: string; authorization: string | undefined; contentLength: string | undefined }> = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    seen.push({ url: req.url ?? "", authorization: req.headers.authorization, contentLength: req.headers["content-length"] });
    if (req.method === "POST" && req.url === "/v1/upload") {
      void count(req, uploaded).then((counted) => {
        res.writeHead(201, { "content-type": "application/json" });
        res.end(JSON.stringify(counted));
      });
      return;
    }
    if (req.method === "GET" && req.url === "/v1/download") {
      req.resume();
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(TOTAL) });
      void writeAhead(res, downloaded);
      return;
    }
    res.writeHead(404).end();
  });
  const origin = await listen(upstream);
  tools = await startToolsServer([
    defineToolkit({
      slug: "bulk",
      name: "Bulk",
      description: "An API with large bodies.",
      baseUrl: `${origin}/v1`,
      auth: { type: "bearer" },
      tools: [],
    }),
  ]);
  await tools.connect({ toolkit: "bulk", credentials: { token: TOKEN } });
});

afterAll(async () => {
  await tools?.close();
  if (upstream) await close(upstream);
});

// Generous: a stall is the failure this guards against, and the machine may be loaded.
describe("64 MiB through the passthrough", { timeout: 120_000 }, () => {
  it("uploads a body as a stream: the upstream gets it unchanged, with its length, while it is being sent", async () => {
    uploaded = new Progress();
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${tools.passthrough}/bulk/upload`,
        {
          method: "POST",
          headers: { authorization: `Bearer ${tools.key}`, "content-type": "application/octet-stream", "content-length": TOTAL },
        },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (text: string) => {
            body += text;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      void writeAhead(req, uploaded);
    });
    expect(answer.status, answer.body).toBe(201);
    expect(JSON.parse(answer.body)).toEqual({ size: TOTAL, sha256: expectedDigest });
    const sent = seen.find((s) => s.url === "/v1/upload")!;
    expect(sent.authorization).toBe(`Bearer ${TOKEN}`);
    expect(sent.contentLength).toBe(String(TOTAL));
  });

  it("downloads a body as a stream: the caller gets it unchanged, with its length, while it is being sent", async () => {
    downloaded = new Progress();
    const result = await new Promise<{ status: number; length: string | undefined; size: number; sha256: string }>((resolve, reject) => {
      const req = httpRequest(`${tools.passthrough}/bulk/download`, { headers: { "x-api-key": tools.key } }, (res) => {
        count(res, downloaded).then(
          (counted) => resolve({ status: res.statusCode ?? 0, length: res.headers["content-length"], ...counted }),
          reject,
        );
      });
      req.on("error", reject);
      req.end();
    });
    expect(result).toEqual({ status: 200, length: String(TOTAL), size: TOTAL, sha256: expectedDigest });
    expect(seen.find((s) => s.url === "/v1/download")!.authorization).toBe(`Bearer ${TOKEN}`);
  });
});
