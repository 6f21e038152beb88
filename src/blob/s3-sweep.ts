import {
  DeleteObjectCommand,
  HeadObjectCommand,
  type HeadObjectCommandOutput,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
} from "@aws-sdk/client-s3";
import { decodeFields, isNotFound, isPreconditionFailed, type layout } from "./s3-support.js";

/** A marker without its blob is left this long: the blob may still be uploading. */
const ORPHAN_MARKER_GRACE_MS = 6 * 60 * 60 * 1000;
/** Markers handled at once. */
const CONCURRENCY = 8;

interface SweepInput {
  send: <T>(command: unknown) => Promise<T>;
  Bucket: string;
  paths: ReturnType<typeof layout>;
  /** Blobs whose expiresAt <= at are deleted. */
  at: Date;
  /** The current time, to age orphan markers. */
  now: Date;
  conditional: boolean;
}

/**
 * `deleteExpired` for `s3BlobStore`: lists the expiry markers in order (their names start with the
 * expiry instant) and stops at the first one after `at`, so its cost follows what is due, not what
 * is stored. For each due marker it reads the blob's own metadata (the truth: the blob may have
 * been replaced since), deletes the blob if it is expired, then the marker. With `conditional`,
 * the delete carries the ETag read, so a blob replaced in between survives, and of concurrent
 * sweepers only the one whose delete removed the blob counts it.
 */
export async function sweepExpired(input: SweepInput): Promise<number> {
  const { send, Bucket, paths } = input;
  let deleted = 0;
  let token: string | undefined;
  do {
    const page = await send<ListObjectsV2CommandOutput>(
      new ListObjectsV2Command({ Bucket, Prefix: paths.expiryPrefix, ContinuationToken: token }),
    );
    const due = [];
    let past = false;
    for (const object of page.Contents ?? []) {
      const marker = object.Key ? paths.parseMarker(object.Key) : null;
      if (!marker) continue;
      if (marker.expiresAtMs > input.at.getTime()) {
        past = true;
        break;
      }
      due.push({ name: object.Key!, key: marker.key, writtenAt: object.LastModified?.getTime() ?? 0 });
    }
    for (let i = 0; i < due.length; i += CONCURRENCY) {
      const counts = await Promise.all(due.slice(i, i + CONCURRENCY).map((marker) => sweepOne(input, marker)));
      deleted += counts.reduce((sum, n) => sum + n, 0);
    }
    token = !past && page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return deleted;
}

async function sweepOne(input: SweepInput, marker: { name: string; key: string; writtenAt: number }): Promise<number> {
  const { send, Bucket, paths } = input;
  const Key = paths.blob(marker.key);
  const head = await send<HeadObjectCommandOutput>(new HeadObjectCommand({ Bucket, Key })).catch((error: unknown) =>
    isNotFound(error) ? null : Promise.reject(error),
  );
  if (!head && input.now.getTime() - marker.writtenAt < ORPHAN_MARKER_GRACE_MS) return 0;
  let count = 0;
  const fields = head ? decodeFields(head.Metadata) : null;
  if (fields && fields.expiresAt.getTime() <= input.at.getTime()) {
    try {
      await send(new DeleteObjectCommand({ Bucket, Key, ...(input.conditional && head?.ETag ? { IfMatch: head.ETag } : {}) }));
      count = 1;
    } catch (error) {
      // Replaced since it was read (412), or another sweeper deleted it first (404).
      if (!isPreconditionFailed(error) && !isNotFound(error)) throw error;
    }
  }
  await send(new DeleteObjectCommand({ Bucket, Key: marker.name }));
  return count;
}
