import { concatBytes } from "../util/bytes.js";
import type { BlobInfo, BlobObject, BlobPutOptions, BlobStore } from "./types.js";

/** Marks a store whose data lives in this process only; the handler then needs no secret. */

/** How often a `put` sweeps expired blobs, at most. */
const SWEEP_INTERVAL_MS = 60_000;

/** Size of the chunks a stored blob is read back in. */
const READ_CHUNK_BYTES = 64 * 1024;

interface StoredBlob extends BlobInfo {
  bytes: Uint8Array;
}

/** Options of `memoryBlobStore`. */
export interface MemoryBlobStoreOptions {
  /** The clock used to decide expiry. Default: the system clock. */
  now?: () => Date;
}

/**
 * The default `BlobStore`: staged files in this process's memory, lost on restart. It is a
 * complete implementation of the contract (it passes `blobStoreConformance`): a blob becomes
 * visible only once its stream has ended, expired blobs are never served, and every value handed
 * in or out is a copy. A `put` also drops expired blobs, at most once a minute, so memory is
 * freed without a separate sweeper.
 */
export function memoryBlobStore(options: MemoryBlobStoreOptions = {}): BlobStore {
  const now = options.now ?? (() => new Date());
  const blobs = new Map<string, StoredBlob>();
  let lastSweep = 0;

  const live = (key: string): StoredBlob | null => {
    const blob = blobs.get(key);
    return blob && blob.expiresAt.getTime() > now().getTime() ? blob : null;
  };

  const store: BlobStore = {
    persistent: false,
    async put(key, body, putOptions) {
      const bytes = await readAll(body, putOptions.signal);
      if (now().getTime() - lastSweep >= SWEEP_INTERVAL_MS) {
        lastSweep = now().getTime();
        store.deleteExpired(now());
      }
      const blob: StoredBlob = {
        key,
        size: bytes.byteLength,
        contentType: putOptions.contentType,
        filename: putOptions.filename ?? null,
        metadata: { ...putOptions.metadata },
        createdAt: now(),
        expiresAt: new Date(putOptions.expiresAt),
        bytes,
      };
      blobs.set(key, blob);
      return infoOf(blob);
    },

    get(key) {
      const blob = live(key);
      return blob ? ({ ...infoOf(blob), body: streamOf(blob.bytes) } satisfies BlobObject) : null;
    },

    head(key) {
      const blob = live(key);
      return blob ? infoOf(blob) : null;
    },

    delete(key) {
      return blobs.delete(key);
    },

    deleteExpired(at) {
      let deleted = 0;
      for (const [key, blob] of blobs) {
        if (blob.expiresAt.getTime() <= at.getTime()) {
          blobs.delete(key);
          deleted++;
        }
      }
      return deleted;
    },

    close() {
      blobs.clear();
    },
  };
  return store;
}

function infoOf(blob: StoredBlob): BlobInfo {
  return {
    key: blob.key,
    size: blob.size,
    contentType: blob.contentType,
    filename: blob.filename,
    metadata: { ...blob.metadata },
    createdAt: new Date(blob.createdAt),
    expiresAt: new Date(blob.expiresAt),
  };
}

/** Each chunk is a fresh copy, so a reader that mutates its chunks cannot change the stored blob. */
function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + READ_CHUNK_BYTES));
      offset += READ_CHUNK_BYTES;
    },
  });
}

/** Reads the whole stream into one new buffer; rejects with the stream's error or the abort reason. */
async function readAll(body: ReadableStream<Uint8Array>, signal: BlobPutOptions["signal"]): Promise<Uint8Array> {
  const reader = body.getReader();
  // Cancelling makes a pending read resolve as "done", so the loop re-checks the signal below.
  const onAbort = () => void reader.cancel(signal!.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    signal?.throwIfAborted();
    for (;;) {
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      if (done) break;
      if (!(value instanceof Uint8Array)) throw new TypeError("A blob body must be a stream of Uint8Array chunks.");
      chunks.push(value);
      size += value.byteLength;
    }
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    throw error;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    reader.releaseLock();
  }
  // Copying into our own buffer means later changes to the caller's chunks cannot reach the blob.
  return concatBytes(chunks, size);
}
