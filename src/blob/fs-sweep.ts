import { randomBytes } from "node:crypto";
import { link, open, readdir, rename, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { readHeader } from "./fs-format.js";
import { absentOr, fail } from "./fs-io.js";

/** Names of the files `filesystemBlobStore` makes: blobs, temporary files, blobs being deleted. */
const BLOB_FILE = /^[0-9a-f]{64}\.blob$/;
export const TEMP_PREFIX = ".tmp-";
const TOMB_PREFIX = ".del-";
/** How many files one sweep inspects at a time. */
const SWEEP_CONCURRENCY = 8;

/**
 * `deleteExpired` of `filesystemBlobStore`: deletes the blobs of `directory` that expired at `at`
 * and returns how many this call deleted, safely while other processes sweep the same directory.
 * Temporary files, and blob files cut short, that nobody wrote to for `staleMs` are deleted too
 * (not counted); files of other names are left alone. A missing directory holds nothing.
 */
export async function sweepDirectory(directory: string, at: Date, staleMs: number): Promise<number> {
  const names = await readdir(directory).catch(absentOr([] as string[]));
  let deleted = 0;
  for (let i = 0; i < names.length; i += SWEEP_CONCURRENCY) {
    const results = await Promise.all(
      names.slice(i, i + SWEEP_CONCURRENCY).map((name) => {
        if (BLOB_FILE.test(name)) return removeIfExpired(directory, name, at, staleMs);
        if (name.startsWith(TEMP_PREFIX) || name.startsWith(TOMB_PREFIX)) return removeIfStale(join(directory, name), staleMs);
        return false;
      }),
    );
    deleted += results.filter((removed) => removed === true).length;
  }
  return deleted;
}

/**
 * Deletes the blob file `name` if it expired at `at`; true only for the one sweeper that did.
 * The file is renamed to a unique name first, and deleted only if it is still the file whose
 * header was read: a blob written over the same key in between is linked back.
 */
async function removeIfExpired(directory: string, name: string, at: Date, staleMs: number): Promise<boolean> {
  const path = join(directory, name);
  const handle = await open(path, "r").catch(absentOr(null));
  if (!handle) return false;
  let inode: number;
  try {
    const found = await readHeader(handle);
    // A blob file cut short by a crash is never served; it goes once it is as old as a stale temp file.
    if (!found) return removeIfStale(path, staleMs);
    if (found.info.expiresAt.getTime() > at.getTime()) return false;
    inode = (await handle.stat()).ino;
  } finally {
    await handle.close().catch(() => {});
  }
  const tomb = join(directory, `${TOMB_PREFIX}${randomBytes(12).toString("hex")}`);
  if ((await rename(path, tomb).then(() => true, absentOr(false))) === false) return false;
  const moved = await stat(tomb).catch(fail);
  if (moved.ino !== inode) {
    // Fails with EEXIST when a still newer blob took the name meanwhile: that one stays.
    await link(tomb, path).catch(() => {});
    await unlink(tomb).catch(absentOr(null));
    return false;
  }
  await unlink(tomb).catch(absentOr(null));
  return true;
}

/** Deletes a temporary file that nobody has written to for `staleMs`; never counted. */
async function removeIfStale(path: string, staleMs: number): Promise<false> {
  const info = await stat(path).catch(absentOr(null));
  if (info && Date.now() - info.mtimeMs > staleMs) await unlink(path).catch(absentOr(null));
  return false;
}
