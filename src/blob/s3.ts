import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  type HeadObjectCommandOutput,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { decodeFields, encodeFields, isNotFound, layout, toStoreError } from "./s3-support.js";
import { sweepExpired } from "./s3-sweep.js";
import { uploadStream } from "./s3-upload.js";
import type { BlobInfo, BlobStore } from "./types.js";

/** Options of `s3BlobStore`. Give `client`, or let the store make one from the connection fields. */
export interface S3BlobStoreOptions {
  bucket: string;
  /** Prepended to every object name. Default `"tools-proxy/"`. */
  prefix?: string;
  /** A client you configured (region, credentials, endpoint, retries). You close it. */
  client?: S3Client;
  /** Without `client`: an S3-compatible endpoint such as `http://127.0.0.1:9000`. Default: AWS. */
  endpoint?: string;
  /** Without `client`: the region. Default: the SDK's (AWS_REGION), or us-east-1 with an `endpoint`. */
  region?: string;
  /** Without `client`: the keys. Default: the SDK's credential chain (environment, profile, role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Without `client`: bucket in the path instead of the host name (most S3-compatible servers). */
  forcePathStyle?: boolean;
  /** Without `client`: longest wait for a connection, and for a socket to move data, in ms. Default 5000 and 30000. */
  timeouts?: { connectMs?: number; idleMs?: number };
  /** Bytes per part of a multipart upload, at least 5 MiB (S3's minimum). Default 8 MiB. */
  partSizeBytes?: number;
  /**
   * `deleteExpired` deletes with `If-Match: <ETag>` so a blob replaced since it was read survives.
   * Default true. Set false for a server that refuses the header on DELETE.
   */
  conditionalDeletes?: boolean;
  /** The clock that decides expiry. Default: the system clock. */
  now?: () => Date;
}

const MIB = 1024 * 1024;
/** The key shape of the `BlobStore` contract; anything else (a "/", "..") never becomes an object name. */
const KEY = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * A `BlobStore` in an S3 bucket (AWS S3 or any S3-compatible server), for staged files shared by
 * every instance. It passes `blobStoreConformance`.
 *
 * - `put` streams: a file shorter than `partSizeBytes` is one PutObject, a longer one a multipart
 *   upload holding at most two parts in memory. The object appears whole, or not at all: S3 makes a
 *   PutObject or a completed multipart upload visible atomically. A body that errors or an abort
 *   aborts the multipart upload (S3 drops its parts) and writes nothing.
 * - Keys must match `[A-Za-z0-9_-]{1,128}` (the contract's shape): `put` refuses any other with a
 *   TypeError, and `get`, `head` and `delete` find nothing, without a request to S3.
 * - The file name, owner metadata, createdAt and expiresAt are object metadata (2 KB at most).
 *   `get` and `head` never serve an expired blob. `deleteExpired` lists only the blobs that are due,
 *   through an empty marker object per blob under `expiry/`, and is safe to run from several
 *   processes at once. A bucket lifecycle rule that deletes after a day and aborts incomplete
 *   multipart uploads is a good backstop.
 * - S3 unreachable, timing out, throttling or failing (5xx) throws `StoreUnavailableError` (503);
 *   access denied or no such bucket is rethrown as it is (500, logged).
 */
export function s3BlobStore(options: S3BlobStoreOptions): BlobStore {
  if (!options?.bucket || typeof options.bucket !== "string")
    throw new TypeError('s3BlobStore: option "bucket" must be the name of an existing bucket.');
  const partSize = options.partSizeBytes ?? 8 * MIB;
  if (!Number.isSafeInteger(partSize) || partSize < 5 * MIB)
    throw new TypeError('s3BlobStore: option "partSizeBytes" must be a whole number of bytes, at least 5 MiB (S3\'s smallest part).');
  const Bucket = options.bucket;
  const paths = layout(options.prefix ?? "tools-proxy/");
  const now = options.now ?? (() => new Date());
  const client = options.client ?? createClient(options);
  const send = <T>(command: unknown): Promise<T> =>
    (client.send(command as never) as Promise<T>).catch((error: unknown) => Promise.reject(toStoreError(error)));
  const headOf = (key: string) =>
    send<HeadObjectCommandOutput>(new HeadObjectCommand({ Bucket, Key: paths.blob(key) })).catch((error: unknown) =>
      isNotFound(error) ? null : Promise.reject(error),
    );
  const infoOf = (key: string, head: Pick<HeadObjectCommandOutput, "Metadata" | "ContentLength" | "ContentType">): BlobInfo | null => {
    const fields = decodeFields(head.Metadata);
    if (!fields || fields.expiresAt.getTime() <= now().getTime()) return null;
    return { key, size: head.ContentLength ?? 0, contentType: head.ContentType ?? "application/octet-stream", ...fields };
  };

  return {
    async put(key, body, put) {
      if (!KEY.test(key)) {
        body.cancel().catch(() => {});
        throw new TypeError(`A blob key must match ${KEY}; the library makes keys of that shape.`);
      }
      const fields = {
        filename: put.filename ?? null,
        metadata: { ...put.metadata },
        createdAt: now(),
        expiresAt: new Date(put.expiresAt),
      };
      try {
        const Metadata = encodeFields(fields);
        put.signal?.throwIfAborted();
        // The marker first: a blob is never without one, so deleteExpired always finds it.
        await send(new PutObjectCommand({ Bucket, Key: paths.marker(key, fields.expiresAt), Body: new Uint8Array(0) }));
        const size = await uploadStream(
          client,
          { Bucket, Key: paths.blob(key), ContentType: put.contentType, Metadata },
          body,
          partSize,
          put.signal,
        );
        return { key, size, contentType: put.contentType, ...fields, metadata: { ...fields.metadata } };
      } catch (error) {
        body.cancel(error).catch(() => {});
        throw error;
      }
    },
    async get(key) {
      if (!KEY.test(key)) return null;
      let object: { Body?: { transformToWebStream(): ReadableStream<Uint8Array> } } & HeadObjectCommandOutput;
      try {
        object = await send<typeof object>(new GetObjectCommand({ Bucket, Key: paths.blob(key) }));
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
      const body = object.Body?.transformToWebStream() ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
      const info = infoOf(key, object);
      if (!info) {
        await body.cancel().catch(() => {});
        return null;
      }
      return { ...info, body };
    },
    async head(key) {
      if (!KEY.test(key)) return null;
      const head = await headOf(key);
      return head ? infoOf(key, head) : null;
    },
    async delete(key) {
      if (!KEY.test(key)) return false;
      // S3's DELETE answers the same whether or not the object existed: HEAD tells.
      const head = await headOf(key);
      if (!head) return false;
      await send(new DeleteObjectCommand({ Bucket, Key: paths.blob(key) }));
      const fields = decodeFields(head.Metadata);
      if (fields) await send(new DeleteObjectCommand({ Bucket, Key: paths.marker(key, fields.expiresAt) })).catch(() => {});
      return true;
    },
    deleteExpired(at) {
      return sweepExpired({ send, Bucket, paths, at, now: now(), conditional: options.conditionalDeletes ?? true });
    },
    close() {
      if (!options.client) client.destroy();
    },
  };
}

function createClient(options: S3BlobStoreOptions): S3Client {
  return new S3Client({
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...((options.region ?? (options.endpoint ? "us-east-1" : undefined)) ? { region: options.region ?? "us-east-1" } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    ...(options.forcePathStyle !== undefined ? { forcePathStyle: options.forcePathStyle } : {}),
    requestHandler: {
      connectionTimeout: options.timeouts?.connectMs ?? 5000,
      requestTimeout: options.timeouts?.idleMs ?? 30_000,
      throwOnRequestTimeout: true,
    },
  });
}
