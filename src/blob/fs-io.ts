/**
 * Streaming between web streams and open files for `filesystemBlobStore`: reading a blob out as
 * the reader pulls, writing one in with one write in flight, and the error a file system failure
 * becomes.
 */
import type { FileHandle } from "node:fs/promises";
import { StoreUnavailableError } from "../core/errors.js";

/** Bytes read per chunk when a blob is streamed out. */
const READ_CHUNK_BYTES = 256 * 1024;
/** Bytes gathered for the next write while one is in flight; reading pauses past this. */
const WRITE_BATCH_BYTES = 1024 * 1024;

/**
 * The `size` bytes from `offset` of an open file as a stream that reads one chunk per pull, so a
 * slow consumer holds back the disk. The handle is closed at the end, on cancel and on error.
 */
export function fileStream(handle: FileHandle, offset: number, size: number): ReadableStream<Uint8Array> {
  let position = offset;
  const end = offset + size;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close().catch(() => {});
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (position >= end) {
          await close();
          return controller.close();
        }
        try {
          const chunk = new Uint8Array(Math.min(READ_CHUNK_BYTES, end - position));
          const { bytesRead } = await handle.read(chunk, 0, chunk.byteLength, position);
          if (bytesRead === 0) throw new Error("The blob file ended before its recorded size.");
          position += bytesRead;
          controller.enqueue(bytesRead === chunk.byteLength ? chunk : chunk.subarray(0, bytesRead));
        } catch (error) {
          await close();
          controller.error(error);
        }
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  );
}

/** Writes every byte of `chunks` at the handle's current position (a short write is continued). */
export async function writeAll(handle: FileHandle, chunks: Uint8Array[]): Promise<void> {
  let { bytesWritten } = await handle.writev(chunks);
  if (bytesWritten === chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0)) return;
  // Rare (a full disk answers with an error instead): write what is left chunk by chunk.
  for (const chunk of chunks) {
    if (bytesWritten >= chunk.byteLength) {
      bytesWritten -= chunk.byteLength;
      continue;
    }
    let rest = chunk.subarray(bytesWritten);
    bytesWritten = 0;
    while (rest.byteLength > 0) rest = rest.subarray((await handle.write(rest)).bytesWritten);
  }
}

/**
 * Reads `reader` to its end and appends every chunk to the file, with one `writev` in flight at a
 * time: chunks that arrive meanwhile are gathered for the next one, and reading pauses while more
 * than `WRITE_BATCH_BYTES` wait, so a fast sender cannot fill memory. Returns the bytes written;
 * rejects with the stream's error, the abort reason or the write's error, after the last write
 * in flight has settled (the caller may then close the handle).
 */
export async function copyToFile(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  handle: FileHandle,
  signal?: AbortSignal,
): Promise<number> {
  let size = 0;
  let batch: Uint8Array[] = [];
  let batchBytes = 0;
  let writing: Promise<void> | null = null;
  // An object, so that the checks below see what the writer sets from its own task.
  const write: { failed: boolean; error?: unknown } = { failed: false };
  const flush = async () => {
    try {
      while (batch.length > 0 && !write.failed) {
        const chunks = batch;
        batch = [];
        batchBytes = 0;
        await writeAll(handle, chunks);
      }
    } catch (error) {
      write.failed = true;
      write.error = error;
    } finally {
      // Cleared in the same turn as the emptiness check, so no chunk is left without a writer.
      writing = null;
    }
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      if (write.failed) throw storageError(write.error);
      if (done) break;
      if (!(value instanceof Uint8Array)) throw new TypeError("A blob body must be a stream of Uint8Array chunks.");
      if (value.byteLength === 0) continue;
      batch.push(value);
      batchBytes += value.byteLength;
      size += value.byteLength;
      writing ??= flush();
      if (batchBytes >= WRITE_BATCH_BYTES) await writing;
    }
    while (writing) await writing;
    if (write.failed) throw storageError(write.error);
    return size;
  } finally {
    while (writing) await writing;
  }
}

/**
 * A file system failure as the handler reports it: `503 unavailable`, saying only what the caller
 * can act on (never a path); the original error is kept as `cause` for the log.
 */
export function storageError(error: unknown): StoreUnavailableError {
  if (error instanceof StoreUnavailableError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const full = code === "ENOSPC" || code === "EDQUOT";
  return new StoreUnavailableError(
    full
      ? "The server has no room left to stage files; retry later or send a smaller file."
      : "Staged file storage is temporarily unavailable; retry shortly.",
    { cause: error, retryAfter: full ? 60 : 5 },
  );
}

/** A rejection handler that turns ENOENT into `value` and any other file system error into a 503. */
export function absentOr<T>(value: T): (error: unknown) => T {
  return (error) => {
    if ((error as { code?: unknown } | null)?.code === "ENOENT") return value;
    throw storageError(error);
  };
}

/** Throws the 503 that a file system failure becomes. */
export function fail(error: unknown): never {
  throw storageError(error);
}
