import type { Awaitable } from "../core/principal.js";
import type { RequiredMethods } from "../store/types.js";

/** What is known about a stored blob besides its bytes. */
export interface BlobInfo {
  key: string;
  size: number;
  contentType: string;
  /** The file name the uploader gave, if any (never trusted as a path). */
  filename: string | null;
  /** Owner and other small non-secret values, e.g. `{ workspaceId, agentId }`. */
  metadata: Record<string, string>;
  createdAt: Date;
  expiresAt: Date;
}

/** Options of `BlobStore.put`. */
export interface BlobPutOptions {
  contentType: string;
  filename?: string | null;
  metadata?: Record<string, string>;
  expiresAt: Date;
  /**
   * Aborts the write. A write that is aborted, or whose source stream errors, leaves no blob
   * behind and rejects with the stream's error.
   */
  signal?: AbortSignal;
}

/** A blob opened for reading. */
export interface BlobObject extends BlobInfo {
  body: ReadableStream<Uint8Array>;
}

/**
 * Temporary storage for staged files.
 *
 * Contract, checked by `blobStoreConformance` from `tools-proxy/testing`:
 * - Every method may return a value or a Promise.
 * - `put` consumes the stream to its end and only then makes the blob visible, whole: a reader
 *   never sees a partial blob. When the stream errors or `signal` aborts, nothing is stored and
 *   `put` rejects with that error. `put` with an existing key replaces that blob.
 * - `get` and `head` return null for a key that does not exist or whose `expiresAt` is not after
 *   the current time: an expired blob is never served, even before the sweeper deletes it.
 * - `delete` returns false when the key did not exist.
 * - `deleteExpired(now)` deletes every blob whose `expiresAt` <= now and returns how many it
 *   deleted. It is safe to run concurrently from several processes.
 * - A backend that cannot be reached throws `StoreUnavailableError`.
 * - Keys are opaque strings of `[A-Za-z0-9_-]`, at most 128 characters; the library makes them.
 */
export interface BlobStore {
  /** Whether stored files outlive the process; the in-memory store says `false`. Absent means persistent. */
  readonly persistent?: boolean;
  put(key: string, body: ReadableStream<Uint8Array>, options: BlobPutOptions): Awaitable<BlobInfo>;
  get(key: string): Awaitable<BlobObject | null>;
  head(key: string): Awaitable<BlobInfo | null>;
  delete(key: string): Awaitable<boolean>;
  deleteExpired(now: Date): Awaitable<number>;
  /** Optional: releases handles and timers. */
  close?(): Awaitable<void>;
}

/** The methods every `BlobStore` has (the handler checks for them when it is created). */
export const BLOB_STORE_METHODS = ["put", "get", "head", "delete", "deleteExpired"] as const satisfies ReadonlyArray<
  RequiredMethods<BlobStore>
>;
