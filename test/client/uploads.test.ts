/**
 * Uploads and downloads through the client against a real server: Blobs, Files, streams of known
 * and unknown size, files on disk, progress, the refusals (413, 415) and the client's own checks.
 * A 50 MB upload is generated on the fly, never more than 1 MB ahead of what the server has
 * received (a client that buffered it would stall), then streams back equal, by hash.
 */
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolsClient, type ToolsClient, ToolsClientError, type UploadProgress } from "../../src/client/index.js";
import { fileFromPath } from "../../src/client/node.js";
import { memoryBlobStore } from "../../src/index.js";
import { createHarness, type Harness } from "../support/harness.js";
import { type ApiServer, recordingBlobStore, startApiServer } from "./server.js";

const MB = 1024 * 1024;
let generated = 0; // bytes the current generator has produced
const blobs = recordingBlobStore(memoryBlobStore(), () => generated);
let h: Harness;
let server: ApiServer;
let client: ToolsClient;
let dir: string;

beforeAll(async () => {
  h = await createHarness({ blobStore: blobs });
  server = await startApiServer(h.handler);
  client = createToolsClient({ baseUrl: server.baseUrl, apiKey: (await h.issueAgentKey("agent-1")).key });
  dir = await mkdtemp(join(tmpdir(), "tools-proxy-client-"));
});
afterAll(async () => {
  h.assertNoLeaks();
  await server.close();
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

/** Deterministic bytes: chunk i of `chunkSize` bytes, each byte a function of its position. */
function chunkAt(i: number, chunkSize: number): Uint8Array<ArrayBuffer> {
  const chunk = new Uint8Array(chunkSize);
  for (let j = 0; j < chunkSize; j++) chunk[j] = (i * 31 + j * 7 + (j >> 8)) & 0xff;
  return chunk;
}

/**
 * A stream of `total` bytes made as it is pulled, counting into `generated`. With `received`, it
 * makes no more than `lead` bytes beyond what the server has received, waiting for the server to
 * catch up; after 5 s without progress it errors, which is what a client that reads its whole
 * source before sending would meet.
 */
function generate(total: number, chunkSize = 64 * 1024, gate?: { received: () => number; lead: number }): ReadableStream<Uint8Array> {
  generated = 0;
  let i = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (generated >= total) return controller.close();
        for (const deadline = Date.now() + 5000; gate && generated - gate.received() > gate.lead; ) {
          if (Date.now() > deadline)
            throw new Error(`The server has ${gate.received()} bytes after ${generated} were made: the client holds the body back.`);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        const chunk = chunkAt(i++, Math.min(chunkSize, total - generated));
        generated += chunk.byteLength;
        controller.enqueue(chunk);
      },
    },
    { highWaterMark: 0 },
  );
}

function hashOf(total: number, chunkSize = 64 * 1024): string {
  const hash = createHash("sha256");
  for (let i = 0, done = 0; done < total; i++, done += chunkSize) hash.update(chunkAt(i, Math.min(chunkSize, total - done)));
  return hash.digest("hex");
}

/** Reads a stream chunk by chunk into a hash; returns the digest, the size and the number of chunks. */
async function hashStream(stream: ReadableStream<Uint8Array>) {
  const hash = createHash("sha256");
  let size = 0;
  let chunks = 0;
  for await (const chunk of stream) {
    hash.update(chunk);
    size += chunk.byteLength;
    chunks++;
  }
  return { digest: hash.digest("hex"), size, chunks };
}

/** Progress events must only grow and end with loaded === total. */
function expectProgress(events: UploadProgress[], total: number): void {
  expect(events.length).toBeGreaterThan(2);
  for (let i = 1; i < events.length; i++) expect(events[i]!.loaded).toBeGreaterThanOrEqual(events[i - 1]!.loaded);
  expect(events.at(-1)).toEqual({ loaded: total, total });
}

async function failure(promise: Promise<unknown>): Promise<ToolsClientError> {
  const error = await promise.then(
    () => expect.unreachable("the upload should have failed"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolsClientError);
  return error as ToolsClientError;
}

describe("upload and download", () => {
  it("uploads a File with progress and downloads it back with its name, type and size", async () => {
    const bytes = chunkAt(3, 1 * MB + 123);
    const events: UploadProgress[] = [];
    const staged = await client.upload(new File([bytes], "résumé 2024.txt", { type: "text/plain" }), { onProgress: (p) => events.push(p) });
    expect(staged).toMatchObject({ contentType: "text/plain", size: bytes.byteLength });
    expect(staged.stagingKey).toMatch(/^stg_/);
    expect(Date.parse(staged.expiresAt)).toBeGreaterThan(Date.now());
    expectProgress(events, bytes.byteLength);
    expect(events[0]).toEqual({ loaded: 0, total: bytes.byteLength });

    const sent = server.requests.filter((r) => r.url === "/proxy/tools/upload").at(-1)!;
    expect(Number(sent.headers["content-length"])).toBeGreaterThan(bytes.byteLength);
    expect(sent.headers["transfer-encoding"]).toBeUndefined();

    const file = await client.downloadFile(staged.stagingKey);
    expect(file).toMatchObject({
      stagingKey: staged.stagingKey,
      filename: "résumé 2024.txt",
      contentType: "text/plain",
      size: bytes.byteLength,
    });
    expect(new Uint8Array(await new Response(file.body).arrayBuffer())).toEqual(bytes);
  });

  it("a Blob without a name is stored without one, as application/octet-stream unless typed", async () => {
    const staged = await client.upload(new Blob([new Uint8Array([1, 2, 3])]));
    expect(staged.contentType).toBe("application/octet-stream");
    const file = await client.downloadFile(staged.stagingKey);
    expect(file.filename).toBe(staged.stagingKey); // the server names a nameless file by its key
    await file.body.cancel();
    const typed = await client.upload(new Blob(["a,b\n"]), { contentType: "text/csv", filename: 'odd "name".csv' });
    expect((await client.downloadFile(typed.stagingKey)).filename).toBe("odd %22name%22.csv"); // encoded as browsers do
  });

  it("streams of unknown size go chunked, and progress ends at the bytes sent", async () => {
    const events: UploadProgress[] = [];
    const staged = await client.upload(generate(3 * MB + 5), { filename: "gen.bin", onProgress: (p) => events.push(p) });
    expect(staged.size).toBe(3 * MB + 5);
    expect(events[0]).toEqual({ loaded: 0, total: undefined });
    expect(events.at(-2)!.total).toBeUndefined();
    expectProgress(events, 3 * MB + 5);
    expect(server.requests.filter((r) => r.url === "/proxy/tools/upload").at(-1)!.headers["transfer-encoding"]).toBe("chunked");
    expect((await hashStream((await client.downloadFile(staged.stagingKey)).body)).digest).toBe(hashOf(3 * MB + 5));
  });

  it("streams 50 MB without buffering it, and downloads it back as a stream", async () => {
    const total = 50 * MB;
    const events: UploadProgress[] = [];
    const puts = blobs.puts.length;
    // The generator stays at most 1 MB ahead of the server: a client that buffered would stall it.
    const gate = { received: () => blobs.puts[puts]?.received ?? 0, lead: MB };
    const staged = await client.upload(generate(total, 64 * 1024, gate), {
      size: total,
      filename: "big.bin",
      onProgress: (p) => events.push(p),
    });
    expect(staged.size).toBe(total);
    expectProgress(events, total);
    expect(blobs.puts[puts]).toMatchObject({ key: staged.stagingKey, received: total, outcome: "stored" });
    expect(blobs.puts[puts]!.probeAtFirstChunk).toBeLessThanOrEqual(MB + 64 * 1024);
    expect(Number(server.requests.filter((r) => r.url === "/proxy/tools/upload").at(-1)!.headers["content-length"])).toBeGreaterThan(total);

    const file = await client.downloadFile(staged.stagingKey);
    expect(file.size).toBe(total);
    const read = await hashStream(file.body);
    expect(read.size).toBe(total);
    expect(read.chunks).toBeGreaterThan(50);
    expect(read.digest).toBe(hashOf(total));
  });

  it("uploads a file from a path, lazily, with the type of its extension", async () => {
    const path = join(dir, "notes.txt");
    const bytes = chunkAt(9, 2 * MB);
    await writeFile(path, bytes);
    const file = await fileFromPath(path);
    expect([file.name, file.type, file.size]).toEqual(["notes.txt", "text/plain", 2 * MB]);
    const events: UploadProgress[] = [];
    const staged = await client.upload(file, { onProgress: (p) => events.push(p) });
    expectProgress(events, 2 * MB);
    const back = await client.downloadFile(staged.stagingKey);
    expect([back.filename, back.contentType]).toEqual(["notes.txt", "text/plain"]);
    expect(new Uint8Array(await new Response(back.body).arrayBuffer())).toEqual(bytes);

    expect((await fileFromPath(path, { type: "application/json", name: "n.json" })).type).toBe("application/json");
    await writeFile(join(dir, "data.unknownext"), "x");
    expect((await fileFromPath(join(dir, "data.unknownext"))).type).toBe("application/octet-stream");
    await expect(fileFromPath(join(dir, "missing.txt"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(fileFromPath(dir)).rejects.toMatchObject({ code: "EISDIR" });
  });

  it("a download of an unknown key is not_found", async () => {
    const error = await failure(client.downloadFile("stg_AAAAAAAAAAAAAAAAAAAAAAAA"));
    expect([error.status, error.code]).toEqual([404, "not_found"]);
  });
});

describe("refusals and client checks", () => {
  let small: ToolsClient;
  let smallBlobs: ReturnType<typeof recordingBlobStore>;
  let smallHarness: Harness;
  let smallServer: ApiServer;
  beforeAll(async () => {
    smallBlobs = recordingBlobStore(memoryBlobStore());
    smallHarness = await createHarness({ blobStore: smallBlobs, uploads: { maxBytes: 256 * 1024 } });
    smallServer = await startApiServer(smallHarness.handler);
    small = createToolsClient({ baseUrl: smallServer.baseUrl, apiKey: (await smallHarness.issueAgentKey("agent-1")).key });
  });
  afterAll(async () => {
    smallHarness.assertNoLeaks();
    await smallServer.close();
    await smallHarness.close();
  });

  it("413 when the declared size is over the limit, refused before the body is read", async () => {
    const error = await failure(small.upload(generate(8 * MB), { size: 8 * MB }));
    expect([error.status, error.code]).toEqual([413, "payload_too_large"]);
    expect(error.message).toMatch(/larger than|too large/i);
    expect(smallBlobs.puts).toEqual([]);
  });

  it("413 when a stream of unknown size runs over the limit while it is sent", async () => {
    const error = await failure(small.upload(generate(8 * MB)));
    expect([error.status, error.code]).toEqual([413, "payload_too_large"]);
    expect(generated).toBeLessThan(8 * MB); // the client stopped reading the source
    expect(smallBlobs.puts.every((p) => p.outcome === "failed")).toBe(true);
  });

  it("415 for a content type the server does not accept", async () => {
    const error = await failure(small.upload(new Blob(["MZ"], { type: "application/x-msdownload" })));
    expect([error.status, error.code]).toEqual([415, "unsupported_media_type"]);
    expect(error.message).toContain("application/x-msdownload");
  });

  it("a stream longer or shorter than its size is invalid_argument, and nothing is stored", async () => {
    const before = smallBlobs.puts.length;
    const longer = await failure(small.upload(generate(2000), { size: 1000 }));
    expect([longer.code, longer.status]).toEqual(["invalid_argument", 0]);
    expect(longer.message).toMatch(/more than the 1000 bytes given as its size/);
    const shorter = await failure(small.upload(generate(500), { size: 1000 }));
    expect(shorter.message).toMatch(/gave 500 bytes, not the 1000 given as its size/);
    expect(smallBlobs.puts.slice(before).filter((p) => p.outcome === "stored")).toEqual([]);
  });

  it("refuses a bad content type or source before sending anything", async () => {
    const before = smallServer.requests.length;
    const typed = await failure(small.upload(new Blob(["x"]), { contentType: "text/plain\r\nX-Injected: 1" }));
    expect(typed.code).toBe("invalid_argument");
    const source = await failure(small.upload("a string" as unknown as Blob));
    expect(source.message).toMatch(/Blob, a File or a ReadableStream/);
    const size = await failure(small.upload(generate(10), { size: -1 }));
    expect(size.message).toMatch(/whole number of bytes/);
    expect(smallServer.requests.length).toBe(before);
  });

  it("an onProgress that throws fails the upload with its own error", async () => {
    const boom = new Error("progress handler broke");
    const error = await small
      .upload(generate(100 * 1024), {
        onProgress: (p) => {
          if (p.loaded > 0) throw boom;
        },
      })
      .catch((e: unknown) => e);
    expect(error).toBe(boom);
  });

  it("aborting mid-upload rejects with the signal's reason and stores nothing", async () => {
    const controller = new AbortController();
    const before = smallBlobs.puts.length;
    const error = await small
      .upload(generate(200 * 1024, 16 * 1024), { signal: controller.signal, onProgress: (p) => p.loaded > 64 * 1024 && controller.abort() })
      .catch((e: unknown) => e);
    expect(error).toBe(controller.signal.reason);
    await new Promise((resolve) => setTimeout(resolve, 50)); // let the server notice the broken request
    expect(smallBlobs.puts.slice(before).filter((p) => p.outcome === "stored")).toEqual([]);
  });
});
