/**
 * s3BlobStore against a local S3-compatible server (s3rver): the BlobStore conformance suite with
 * multipart uploads, what it sends to S3 (multipart, abort, conditional sweep deletes), and the
 * objects it leaves, read back with a separate client.
 */
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { s3BlobStore } from "../../src/blob/s3.js";
import { blobStoreConformance } from "../../src/testing/blob-store.js";
import { type LocalS3, startS3 } from "../support/s3.js";

const MIB = 1024 * 1024;
const s3: LocalS3 = await startS3();
afterAll(() => s3.close());

blobStoreConformance(
  "s3BlobStore (s3rver)",
  () =>
    s3BlobStore({
      bucket: s3.bucket,
      client: s3.client(),
      partSizeBytes: 5 * MIB,
      prefix: `conf-${Math.random().toString(36).slice(2, 8)}/`,
    }),
  {
    largeBytes: 12 * MIB,
    skip: { concurrentSweep: "s3rver ignores If-Match on DELETE, so concurrent sweepers may each count a blob (AWS S3 honours it)" },
  },
);

// Two clients on one prefix, as two processes sharing a bucket.
const sharedPrefix = `conf-shared-${Math.random().toString(36).slice(2, 8)}/`;
blobStoreConformance(
  "s3BlobStore (s3rver), one prefix",
  () => s3BlobStore({ bucket: s3.bucket, client: s3.client(), partSizeBytes: 5 * MIB, prefix: sharedPrefix }),
  {
    instances: 2,
    largeBytes: 6 * MIB,
    skip: { concurrentSweep: "s3rver ignores If-Match on DELETE, so concurrent sweepers may each count a blob (AWS S3 honours it)" },
  },
);

const HOUR = 3600_000;
const bytes = (size: number, seed = 1) => Uint8Array.from({ length: size }, (_, i) => (i * 7 + seed + (i >> 10)) & 255);
const streamOf = (...chunks: Uint8Array[]) => new Blob(chunks as BlobPart[]).stream();

/** A stream the test feeds by hand. */
function pushStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return { stream, push: (chunk: Uint8Array) => controller.enqueue(chunk), fail: (error: Error) => controller.error(error) };
}

describe("s3BlobStore, as S3 sees it", () => {
  let prefix: string;
  let reader: ReturnType<LocalS3["client"]>;
  beforeAll(() => {
    reader = s3.client();
  });
  const fresh = (overrides: Partial<Parameters<typeof s3BlobStore>[0]> = {}) => {
    prefix = `t-${Math.random().toString(36).slice(2, 10)}/`;
    const client = s3.client();
    return { client, store: s3BlobStore({ bucket: s3.bucket, client, prefix, partSizeBytes: 5 * MIB, ...overrides }) };
  };
  const list = async (under: string) =>
    ((await reader.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix + under }))).Contents ?? []).map((o) =>
      o.Key!.slice(prefix.length),
    );
  const rawHead = (name: string) =>
    reader.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: prefix + name })).catch((e: { name: string }) => e.name);

  it("writes one object with its fields as metadata, and an expiry marker", async () => {
    const { store, client } = fresh();
    const expiresAt = new Date(Date.now() + HOUR);
    await store.put("k1", streamOf(bytes(1000)), {
      contentType: "text/csv",
      filename: "résumé 2030.csv",
      metadata: { workspaceId: "ws1", agentId: "a1" },
      expiresAt,
    });
    expect(client.sent).toEqual(["PutObjectCommand", "PutObjectCommand"]); // the marker, then the blob in one request
    const head = (await rawHead("blobs/k1")) as { ContentType: string; ContentLength: number; Metadata: Record<string, string> };
    expect(head).toMatchObject({ ContentType: "text/csv", ContentLength: 1000 });
    expect(head.Metadata["tp-expires"]).toBe(String(expiresAt.getTime()));
    expect(JSON.parse(Buffer.from(head.Metadata["tp-info"]!, "base64url").toString())).toEqual({
      filename: "résumé 2030.csv",
      metadata: { workspaceId: "ws1", agentId: "a1" },
    });
    expect(await list("expiry/")).toEqual([`expiry/${String(expiresAt.getTime()).padStart(15, "0")}_k1`]);
  });

  it("streams a large file as a multipart upload of partSizeBytes parts", async () => {
    const { store, client } = fresh();
    const data = bytes(12 * MIB + 123);
    const chunks = Array.from({ length: Math.ceil(data.byteLength / 65536) }, (_, i) => data.subarray(i * 65536, (i + 1) * 65536));
    const info = await store.put("big", streamOf(...chunks), {
      contentType: "application/octet-stream",
      expiresAt: new Date(Date.now() + HOUR),
    });
    expect(info.size).toBe(data.byteLength);
    expect(client.sent).toEqual([
      "PutObjectCommand",
      "CreateMultipartUploadCommand",
      "UploadPartCommand",
      "UploadPartCommand",
      "UploadPartCommand",
      "CompleteMultipartUploadCommand",
    ]);
    const object = await reader.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `${prefix}blobs/big` }));
    expect(Buffer.compare(Buffer.from(await object.Body!.transformToByteArray()), Buffer.from(data))).toBe(0);
  });

  it("an abort mid-upload aborts the multipart upload: no object, the abort reason", async () => {
    const { store, client } = fresh();
    const source = pushStream();
    const controller = new AbortController();
    const putting = store.put("aborted", source.stream, {
      contentType: "text/plain",
      expiresAt: new Date(Date.now() + HOUR),
      signal: controller.signal,
    });
    source.push(bytes(6 * MIB));
    await expect.poll(() => client.sent.includes("UploadPartCommand"), { timeout: 10_000 }).toBe(true);
    controller.abort(new Error("the client went away"));
    await expect(putting).rejects.toThrow("the client went away");
    expect(client.sent).toContain("AbortMultipartUploadCommand");
    expect(client.sent).not.toContain("CompleteMultipartUploadCommand");
    expect(await rawHead("blobs/aborted")).toBe("NotFound");
  });

  it("a body that errors after a part aborts the multipart upload and rejects with the body's error", async () => {
    const { store, client } = fresh();
    const source = pushStream();
    const putting = store.put("broken", source.stream, { contentType: "text/plain", expiresAt: new Date(Date.now() + HOUR) });
    source.push(bytes(5 * MIB + 10));
    await expect.poll(() => client.sent.includes("UploadPartCommand"), { timeout: 10_000 }).toBe(true);
    source.fail(new Error("upload body broke"));
    await expect(putting).rejects.toThrow("upload body broke");
    expect(client.sent.slice(-1)).toEqual(["AbortMultipartUploadCommand"]);
    expect(await rawHead("blobs/broken")).toBe("NotFound");
  });

  it("a part that S3 fails to take aborts the upload and throws StoreUnavailableError", async () => {
    const { store, client } = fresh();
    client.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === "UploadPartCommand" && (args.input as { PartNumber: number }).PartNumber === 2) {
          return Promise.reject(Object.assign(new Error("socket hang up"), { code: "ECONNRESET", $metadata: {} }));
        }
        return next(args);
      },
      { step: "initialize", name: "failSecondPart" },
    );
    await expect(
      store.put("failed", streamOf(bytes(11 * MIB)), { contentType: "text/plain", expiresAt: new Date(Date.now() + HOUR) }),
    ).rejects.toMatchObject({
      code: "unavailable",
      status: 503,
    });
    expect(client.sent).toContain("AbortMultipartUploadCommand");
    expect(client.sent).not.toContain("CompleteMultipartUploadCommand");
    expect(await rawHead("blobs/failed")).toBe("NotFound");
  });

  it("refuses metadata over S3's 2 KB before sending anything", async () => {
    const { store, client } = fresh();
    await expect(
      store.put("fat", streamOf(bytes(1)), {
        contentType: "text/plain",
        metadata: { note: "x".repeat(2000) },
        expiresAt: new Date(Date.now() + HOUR),
      }),
    ).rejects.toThrow(/2 KB/);
    expect(client.sent).toEqual([]);
  });

  it("deleteExpired deletes with If-Match, keeps a blob replaced with a later expiry, and drops the stale marker", async () => {
    const { store, client } = fresh();
    const ifMatch: Array<string | undefined> = [];
    client.middlewareStack.add(
      (next, context) => (args) => {
        const input = args.input as { Key: string; IfMatch?: string };
        if (context.commandName === "DeleteObjectCommand" && input.Key.includes("/blobs/")) ifMatch.push(input.IfMatch);
        return next(args);
      },
      { step: "initialize", name: "recordIfMatch" },
    );
    const past = new Date(Date.UTC(2001, 5, 1));
    await store.put("gone", streamOf(bytes(10)), { contentType: "text/plain", expiresAt: past });
    await store.put("renewed", streamOf(bytes(10)), { contentType: "text/plain", expiresAt: past });
    await store.put("renewed", streamOf(bytes(20)), { contentType: "text/plain", expiresAt: new Date(Date.now() + HOUR) });
    const etag = ((await rawHead("blobs/gone")) as { ETag: string }).ETag;
    expect(await store.deleteExpired(new Date(past.getTime() + 1))).toBe(1);
    expect(ifMatch).toEqual([etag]);
    expect(await rawHead("blobs/gone")).toBe("NotFound");
    expect((await store.head("renewed"))?.size).toBe(20);
    expect((await list("expiry/")).map((name) => name.split("_").pop())).toEqual(["renewed"]);
  });

  it("keeps a marker whose blob is missing for hours (it may still be uploading), then drops it", async () => {
    let now = new Date();
    const { store } = fresh({ now: () => now });
    await reader.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `${prefix}expiry/000991000000000_orphan`, Body: new Uint8Array(0) }));
    expect(await store.deleteExpired(new Date())).toBe(0);
    expect(await list("expiry/")).toHaveLength(1);
    now = new Date(Date.now() + 7 * HOUR);
    expect(await store.deleteExpired(new Date())).toBe(0);
    expect(await list("expiry/")).toEqual([]);
  });

  it("serves nothing for an object it did not write, and checks its options", async () => {
    const { store } = fresh();
    await reader.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `${prefix}blobs/foreign`, Body: "hello" }));
    expect(await store.get("foreign")).toBeNull();
    expect(await store.head("foreign")).toBeNull();
    expect(() => s3BlobStore({ bucket: "" })).toThrow(/"bucket"/);
    expect(() => s3BlobStore({ bucket: "b", partSizeBytes: MIB })).toThrow(/"partSizeBytes".*5 MiB/);
  });
});
