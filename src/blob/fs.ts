import { createHash, randomBytes } from "node:crypto";
import { type FileHandle, mkdir, open, rename, rm, unlink } from "node:fs/promises";
import { join } from "node:path";
import { type BlobHeader, encodeHeader, encodeTrailer, readHeader } from "./fs-format.js";
import { absentOr, copyToFile, fail, fileStream, storageError } from "./fs-io.js";
import { sweepDirectory, TEMP_PREFIX } from "./fs-sweep.js";
import type { BlobObject, BlobStore } from "./types.js";

/** The key shape of the `BlobStore` contract; anything else never reaches a path. */
const KEY = /^[A-Za-z0-9_-]{1,128}$/;

/** Options of `filesystemBlobStore`. */
export interface FilesystemBlobStoreOptions {
  /**
   * Where the blobs live; created (mode 0700) when missing. Give the store a directory of its
   * own: a sweep deletes the files there that it recognises as its own.
   */
  directory: string;
  /**
   * Flush each blob to the disk (`fsync`) before it becomes visible, so that a blob once announced
   * survives a power loss. Default false: staged files are temporary, and the upload then waits
   * for the disk, many times as long as the write itself. Without it, a crash can lose the blobs
   * written in the last seconds; one cut short is seen as absent.
   */
  fsync?: boolean;
  /**
   * A temporary file not written to for this long was left by a writer that died (a crash, a
   * kill), and the next sweep deletes it. Default one hour, far longer than any live upload pauses.
   */
  staleTempMs?: number;
  /** The clock used to decide expiry. Default: the system clock. */
  now?: () => Date;
}

/**
 * A `BlobStore` on the local file system (Node; `tools-proxy/fs`), for one server or several
 * processes sharing a directory. It passes `blobStoreConformance`.
 *
 * - One file per blob, named by the SHA-256 of its key (keys must match `[A-Za-z0-9_-]{1,128}`,
 *   so no key can name a path), with the metadata in a header before the bytes.
 * - `put` streams into a temporary file in the same directory (`.tmp-*`, mode 0600), with one
 *   write in flight and at most 1 MiB waiting, then (with `fsync`) flushes it, and renames it over
 *   the blob's name: readers see the old blob or the new one, whole, with its metadata, never a
 *   part. A failed or aborted put removes its temporary file. The format is in `fs-format.ts`.
 * - `get` opens the file and streams it in 256 KiB chunks as the reader pulls; a blob deleted or
 *   replaced while it is being read is still read whole (the open file stays readable).
 * - `deleteExpired` may run in several processes at once: each expired blob is moved aside under
 *   a unique name before it is deleted, so exactly one sweeper counts it, and a blob replaced
 *   between the check and the move is put back. It also deletes what crashed writers left: temporary
 *   files, and blob files cut short, once older than `staleTempMs`. Other files are left alone.
 * - File system failures (disk full, permissions) throw `StoreUnavailableError`: a `503`.
 */
export function filesystemBlobStore(options: FilesystemBlobStoreOptions): BlobStore {
  if (typeof options?.directory !== "string" || options.directory === "") {
    throw new TypeError('filesystemBlobStore: option "directory" must be the path of a directory, e.g. "./data/blobs".');
  }
  const directory = options.directory;
  const durable = options.fsync ?? false;
  const staleTempMs = options.staleTempMs ?? 60 * 60 * 1000;
  const now = options.now ?? (() => new Date());
  let created: Promise<unknown> | null = null;
  const ready = () =>
    (created ??= mkdir(directory, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
      created = null;
      throw storageError(error);
    }));
  const pathOf = (key: string) => join(directory, `${createHash("sha256").update(key).digest("hex")}.blob`);

  // A directory removed while the store is in use (a tmp cleaner, say) is made again.
  const openTemp = (path: string) =>
    open(path, "wx", 0o600).catch(async (error: unknown) => {
      if ((error as { code?: unknown }).code !== "ENOENT") throw error;
      created = null;
      await ready();
      return open(path, "wx", 0o600);
    });

  /** The open blob file of `key` and its header, or null when it is missing, expired or not whole. */
  const openBlob = async (key: string) => {
    if (!KEY.test(key)) return null;
    const handle = await open(pathOf(key), "r").catch(absentOr(null));
    if (!handle) return null;
    try {
      const found = await readHeader(handle);
      if (found && found.info.key === key && found.info.expiresAt.getTime() > now().getTime()) return { handle, ...found };
    } catch (error) {
      await handle.close().catch(() => {});
      throw storageError(error);
    }
    await handle.close().catch(() => {});
    return null;
  };

  return {
    async put(key, body, put) {
      if (!KEY.test(key)) throw new TypeError(`A blob key must match ${KEY}; the library makes keys of that shape.`);
      const info: BlobHeader = {
        key,
        contentType: put.contentType,
        filename: put.filename ?? null,
        metadata: { ...put.metadata },
        createdAt: now(),
        expiresAt: new Date(put.expiresAt),
      };
      const header = encodeHeader(info);
      const reader = body.getReader();
      const signal = put.signal;
      // Cancelling makes a pending read resolve as "done"; copyToFile then re-checks the signal.
      const onAbort = () => void reader.cancel(signal!.reason).catch(() => {});
      signal?.addEventListener("abort", onAbort, { once: true });
      const temp = join(directory, `${TEMP_PREFIX}${randomBytes(12).toString("hex")}`);
      let handle: FileHandle | null = null;
      try {
        signal?.throwIfAborted();
        await ready();
        handle = await openTemp(temp).catch(fail);
        await handle.write(header).catch(fail);
        const size = await copyToFile(reader, handle, signal);
        await handle.write(encodeTrailer(size)).catch(fail);
        if (durable) await handle.sync().catch(fail);
        await handle.close().catch(fail);
        handle = null;
        await rename(temp, pathOf(key)).catch(fail);
        return { ...info, metadata: { ...info.metadata }, size };
      } catch (error) {
        await reader.cancel(error).catch(() => {});
        await handle?.close().catch(() => {});
        await rm(temp, { force: true }).catch(() => {});
        throw error;
      } finally {
        signal?.removeEventListener("abort", onAbort);
        reader.releaseLock();
      }
    },

    async get(key): Promise<BlobObject | null> {
      const found = await openBlob(key);
      return found ? { ...found.info, body: fileStream(found.handle, found.dataOffset, found.info.size) } : null;
    },

    async head(key) {
      const found = await openBlob(key);
      await found?.handle.close().catch(() => {});
      return found?.info ?? null;
    },

    async delete(key) {
      if (!KEY.test(key)) return false;
      return unlink(pathOf(key)).then(() => true, absentOr(false));
    },

    deleteExpired(at) {
      return sweepDirectory(directory, at, staleTempMs);
    },

    close() {},
  };
}
