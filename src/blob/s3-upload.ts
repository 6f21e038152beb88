import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { concatBytes } from "../util/bytes.js";
import { toStoreError } from "./s3-support.js";

/** The object to write: everything of a PutObject but its body. */
export interface UploadTarget {
  Bucket: string;
  Key: string;
  ContentType: string;
  Metadata: Record<string, string>;
}

/**
 * Streams `body` into one S3 object and resolves with its size once S3 has it whole. A body
 * shorter than `partSize` is one PutObject; a longer one is a multipart upload of `partSize`
 * parts, reading the next part while the previous one uploads (about two parts in memory). Either
 * way the object appears at once, whole, when the last request completes.
 *
 * When the body errors or `signal` aborts, in-flight requests are cancelled, a started multipart
 * upload is aborted (so S3 drops its parts), no object is written, and the promise rejects with
 * the body's error or the abort reason.
 */
export async function uploadStream(
  client: S3Client,
  target: UploadTarget,
  body: ReadableStream<Uint8Array>,
  partSize: number,
  signal?: AbortSignal,
): Promise<number> {
  const controller = new AbortController();
  const abort = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", abort, { once: true });
  const reader = body.getReader();
  const readPart = partReader(reader, partSize, signal);
  // An abort must also end a read that waits on a stalled body.
  const cancelRead = () => void reader.cancel(signal?.reason).catch(() => {});
  controller.signal.addEventListener("abort", cancelRead, { once: true });
  // S3's failures become StoreUnavailableError where they mean "down"; the body's own errors stay as they are.
  const send = <T>(command: { input: unknown }) =>
    (client.send(command as never, { abortSignal: controller.signal }) as Promise<T>).catch((error: unknown) => {
      throw toStoreError(error);
    });
  let uploadId: string | undefined;
  let uploading: Promise<void> | null = null;
  try {
    signal?.throwIfAborted();
    let size = 0;
    let part = await readPart();
    if (part.done) {
      await send(new PutObjectCommand({ ...target, Body: part.bytes, ContentLength: part.bytes.byteLength }));
      return part.bytes.byteLength;
    }
    uploadId = (await send<{ UploadId?: string }>(new CreateMultipartUploadCommand(target))).UploadId;
    if (!uploadId) throw new Error("S3 started a multipart upload without an UploadId.");
    const parts: Array<{ PartNumber: number; ETag: string }> = [];
    for (let number = 1; ; number++) {
      const bytes = part.bytes;
      size += bytes.byteLength;
      const previous = uploading;
      uploading = (async () => {
        await previous;
        const { ETag } = await send<{ ETag?: string }>(
          new UploadPartCommand({
            Bucket: target.Bucket,
            Key: target.Key,
            UploadId: uploadId,
            PartNumber: number,
            Body: bytes,
            ContentLength: bytes.byteLength,
          }),
        );
        if (!ETag) throw new Error(`S3 accepted part ${number} without an ETag.`);
        parts.push({ PartNumber: number, ETag });
      })();
      uploading.catch(() => controller.abort()); // stop reading at once; the error is rethrown below
      if (part.done) break;
      part = await readPart();
      if (part.done && part.bytes.byteLength === 0) break;
    }
    await uploading;
    signal?.throwIfAborted();
    await send(
      new CompleteMultipartUploadCommand({ Bucket: target.Bucket, Key: target.Key, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
    );
    return size;
  } catch (error) {
    reader.cancel(error).catch(() => {});
    if (uploadId) {
      // Cancel a part in flight and let it settle first: S3 keeps parts that finish after the abort.
      controller.abort();
      await (uploading as Promise<void> | null)?.catch(() => {});
      await client.send(new AbortMultipartUploadCommand({ Bucket: target.Bucket, Key: target.Key, UploadId: uploadId })).catch(() => {});
    }
    throw signal?.aborted ? signal.reason : error;
  } finally {
    signal?.removeEventListener("abort", abort);
  }
}

/**
 * Cuts the body into parts of exactly `size` bytes (the last may be shorter): some S3-compatible
 * servers require equal parts, and a source's large chunk is split, not sent as one part.
 * `done` says the body ended with this part. An abort is told apart from the end by the signal.
 */
function partReader(reader: ReadableStreamDefaultReader<Uint8Array>, size: number, signal?: AbortSignal) {
  let carry: Uint8Array | null = null;
  return async (): Promise<{ bytes: Uint8Array; done: boolean }> => {
    const chunks: Uint8Array[] = carry ? [carry] : [];
    let length = carry?.byteLength ?? 0;
    carry = null;
    while (length < size) {
      const { value, done } = await reader.read();
      signal?.throwIfAborted();
      if (done) return { bytes: concatBytes(chunks, length), done: true };
      chunks.push(value);
      length += value.byteLength;
    }
    // concatBytes copies, so a chunk the source reuses cannot change a part; the carry is copied too.
    const joined = concatBytes(chunks, length);
    if (length > size) carry = joined.slice(size);
    return { bytes: joined.subarray(0, size), done: false };
  };
}
