import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BlobPutOptions, BlobStore } from "../blob/types.js";
import { concatBytes } from "../util/bytes.js";

/** Cases of `blobStoreConformance` that a store may skip, each with the reason it gives. */
export type BlobStoreConformanceSkip = "largeWrite" | "largeRead" | "readWhileDeleted" | "expiryTransition" | "concurrentSweep";

/** Options of `blobStoreConformance`. */
export interface BlobStoreConformanceOptions {
  /** Runs after each test, before `store.close()`, e.g. to remove a temporary directory. */
  cleanup?: (store: BlobStore) => unknown;
  /** Size of the large streamed write, in bytes. Default 8 MiB. */
  largeBytes?: number;
  /** Cases to skip, mapped to the reason shown in the test's name. */
  skip?: Partial<Record<BlobStoreConformanceSkip, string>>;
  /**
   * Makes this many instances per test (each by its own call of `factory`, over the same data, as
   * processes sharing a directory or a bucket) and races them: a blob written by one is read whole
   * by another, concurrent sweeps delete each blob once, concurrent writes of one key end with one
   * of them. Default 1. A blob store that lives in one process cannot pass it.
   */
  instances?: number;
}

/**
 * Registers a vitest suite that checks every clause of the `BlobStore` contract against the
 * stores `factory` returns (one per test, closed after it).
 *
 * Keys are fresh and random, and expiry sweeps use instants far in the past, so the suite can run
 * against a shared persistent backend without wiping it. The expiry test waits about a second.
 */
export function blobStoreConformance(
  name: string,
  factory: () => BlobStore | Promise<BlobStore>,
  options: BlobStoreConformanceOptions = {},
): void {
  const largeBytes = options.largeBytes ?? 8 * 1024 * 1024;
  const optional = (id: BlobStoreConformanceSkip, title: string, test: () => Promise<void>) => {
    const reason = options.skip?.[id];
    if (reason) it.skip(`${title} (skipped: ${reason})`, test);
    else it(title, test);
  };

  const count = Math.max(1, options.instances ?? 1);
  describe(`BlobStore conformance: ${name}${count > 1 ? ` (${count} instances)` : ""}`, () => {
    let instances: BlobStore[] = [];
    let store: BlobStore;
    beforeEach(async () => {
      instances = [];
      for (let i = 0; i < count; i++) instances.push(await factory());
      store = instances[0]!;
    });
    afterEach(async () => {
      for (const instance of instances) {
        await options.cleanup?.(instance);
        await instance.close?.();
      }
    });

    if (count > 1) {
      describe(`across ${count} instances (as processes sharing the data)`, () => {
        it("a blob written by one instance is read whole by the others, and deleted for all", async () => {
          const key = randomKey();
          const bytes = pattern(70_000, 3);
          await store.put(key, streamOf(split(bytes, 4096)), putOptions({ filename: "shared.bin" }));
          for (const [i, instance] of instances.entries()) {
            expect(await readAll((await instance.get(key))!.body), `instance ${i} reads the blob another wrote, whole`).toEqual(bytes);
          }
          expect(await instances[count - 1]!.delete(key), "another instance deletes it").toBe(true);
          expect(await store.head(key), "deleted on one instance, gone on all").toBeNull();
        });

        optional("concurrentSweep", "concurrent deleteExpired calls on every instance delete each blob once", async () => {
          const t = pastInstant();
          const keys = Array.from({ length: 6 }, () => randomKey());
          for (const key of keys) await store.put(key, streamOf([pattern(10, 1)]), putOptions({ expiresAt: t }));
          const counts = await Promise.all(
            instances.flatMap((instance) => [instance, instance]).map((instance) => settle(() => instance.deleteExpired(t))),
          );
          expect(
            counts.reduce((sum, n) => sum + n, 0),
            "the counts of concurrent sweeps add up to the expired blobs, each counted once",
          ).toBe(keys.length);
        });

        it("concurrent writes of one key from every instance end with one of them, whole", async () => {
          const key = randomKey();
          const bodies = instances.map((_, i) => pattern(50_000, i + 1));
          await Promise.all(
            instances.map((instance, i) => settle(() => instance.put(key, streamOf(split(bodies[i]!, 1000)), putOptions()))),
          );
          const stored = await readAll((await store.get(key))!.body);
          expect(
            bodies.some((body) => body.length === stored.length && body.every((byte, i) => byte === stored[i])),
            "the stored blob is exactly one of the writes, never a mix",
          ).toBe(true);
        });
      });
    }

    describe("put, get, head", () => {
      it("stores bytes, size, content type, file name and metadata, and reads them back", async () => {
        const key = randomKey();
        const data = pattern(3000, 7);
        const expiresAt = inMs(HOUR);
        const put = await store.put(key, streamOf(split(data, 1024)), {
          contentType: "image/png",
          filename: "héllo wörld.png",
          metadata: { workspaceId: "ws_1", agentId: "agent_1" },
          expiresAt,
        });
        const expected = {
          key,
          size: data.byteLength,
          contentType: "image/png",
          filename: "héllo wörld.png",
          metadata: { workspaceId: "ws_1", agentId: "agent_1" },
          expiresAt,
        };
        expect(put, "put returns the key, size and every field it was given").toMatchObject(expected);
        expect(put.createdAt, "put returns createdAt as a Date").toBeInstanceOf(Date);
        const head = await store.head(key);
        expect(head, "head returns the key, size and every field put stored").toMatchObject(expected);
        expect(head!.createdAt.getTime(), "head returns the createdAt that put returned").toBe(put.createdAt.getTime());
        const got = await store.get(key);
        const { body, ...info } = got!;
        expect(info, "get returns the same fields as head, beside the body").toEqual(head);
        expect(await readAll(body), "get's body is the bytes put wrote, whole and in order").toEqual(data);
      });

      it("stores a blob without file name or metadata, and an empty blob", async () => {
        const key = randomKey();
        await store.put(key, streamOf([]), { contentType: "application/octet-stream", expiresAt: inMs(HOUR) });
        const head = await store.head(key);
        expect(head, "head of an empty blob put without filename or metadata: size 0, filename null, metadata {}").toMatchObject({
          size: 0,
          filename: null,
          metadata: {},
        });
        expect(await readAll((await store.get(key))!.body), "get of an empty blob returns an empty body").toEqual(new Uint8Array(0));
      });

      it("accepts a key of 128 characters from [A-Za-z0-9_-]", async () => {
        const key = `${randomKey()}_-`.padEnd(128, "Az09");
        await store.put(key, streamOf([pattern(10, 1)]), putOptions());
        expect((await store.head(key))?.key, "head finds a blob put under a 128-character key of [A-Za-z0-9_-]").toBe(key);
      });

      optional("largeWrite", "stores a large stream written in many chunks, reading it on demand", async () => {
        const key = randomKey();
        const chunk = 64 * 1024;
        let sent = 0;
        // A pull source: the store sets the pace, as an HTTP upload would.
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent >= largeBytes) return controller.close();
            const size = Math.min(chunk, largeBytes - sent);
            controller.enqueue(pattern(size, sent));
            sent += size;
          },
        });
        const info = await store.put(key, body, putOptions());
        expect(info.size, "put of a large stream returns the size of every byte the stream gave").toBe(largeBytes);
        expect((await store.head(key))!.size, "head gives the large blob's full size").toBe(largeBytes);
        const read = await readAll((await store.get(key))!.body);
        expect(read.byteLength, "get reads the large blob back whole").toBe(largeBytes);
        expect(await digest(read), "get reads the large blob back byte for byte").toBe(await digest(pattern(largeBytes, 0)));
      });

      optional("largeRead", "reads a large blob back in chunks as the reader pulls, and lets the reader stop early", async () => {
        const key = randomKey();
        await store.put(key, streamOf(split(pattern(largeBytes, 5), 1024 * 1024)), putOptions());
        const reader = (await store.get(key))!.body.getReader();
        const first = await reader.read();
        // One chunk of many: the store hands the blob out piece by piece, not as one buffer.
        expect(first.done, "get's body gives a first chunk of a large blob").toBe(false);
        expect(first.value!.byteLength, "the first chunk of get's body has bytes").toBeGreaterThan(0);
        expect(first.value!.byteLength, "get's body streams a large blob in chunks, not as one buffer").toBeLessThan(largeBytes);
        await reader.cancel();
        const again = await readAll((await store.get(key))!.body);
        expect(await digest(again), "after a reader cancels, get reads the blob again, whole").toBe(await digest(pattern(largeBytes, 5)));
      });

      optional("readWhileDeleted", "a reader that opened a blob reads it whole while it is deleted or replaced", async () => {
        const key = randomKey();
        const data = pattern(2 * 1024 * 1024, 6);
        await store.put(key, streamOf(split(data, 256 * 1024)), putOptions());
        const deleted = (await store.get(key))!.body;
        const replaced = (await store.get(key))!.body;
        expect(await store.delete(key), "delete of a stored blob returns true").toBe(true);
        await store.put(key, streamOf([pattern(10, 7)]), putOptions());
        expect(await digest(await readAll(deleted)), "a body opened by get before delete reads the old blob whole").toBe(
          await digest(data),
        );
        expect(await digest(await readAll(replaced)), "a body opened by get before a replacing put reads the old blob whole").toBe(
          await digest(data),
        );
        expect(await readAll((await store.get(key))!.body), "a get after the replacing put reads the new blob").toEqual(pattern(10, 7));
      });

      it("replaces an existing blob on put, with all of its fields", async () => {
        const key = randomKey();
        await store.put(key, streamOf([pattern(100, 1)]), putOptions({ filename: "a.txt", metadata: { a: "1", b: "2" } }));
        const expiresAt = inMs(2 * HOUR);
        await store.put(key, streamOf([pattern(50, 2)]), { contentType: "text/csv", metadata: { c: "3" }, expiresAt });
        expect(
          await store.head(key),
          "a second put of a key replaces every field: size, contentType, filename (null when not given), metadata, expiresAt",
        ).toMatchObject({ size: 50, contentType: "text/csv", filename: null, metadata: { c: "3" }, expiresAt });
        expect(await readAll((await store.get(key))!.body), "a second put of a key replaces the bytes").toEqual(pattern(50, 2));
      });

      it("returns copies: changing a returned value or a source chunk never changes the stored blob", async () => {
        const key = randomKey();
        const source = pattern(2000, 3);
        const original = source.slice();
        const info = await store.put(key, streamOf([source]), putOptions({ metadata: { owner: "a" } }));
        source.fill(0);
        info.metadata.owner = "changed";
        info.expiresAt.setTime(0);
        const head = await store.head(key);
        head!.metadata.owner = "changed";
        const reader = (await store.get(key))!.body.getReader();
        for (let read = await reader.read(); !read.done; read = await reader.read()) read.value.fill(0);
        expect(
          (await store.head(key))!.metadata,
          "changing the metadata put or head returned leaves the stored metadata unchanged (return copies)",
        ).toEqual({ owner: "a" });
        expect(
          (await store.head(key))!.expiresAt.getTime(),
          "changing the expiresAt Date put returned leaves the stored expiresAt unchanged (return a copy)",
        ).toBeGreaterThan(Date.now());
        expect(
          await readAll((await store.get(key))!.body),
          "changing a source chunk after put, or a chunk get handed out, leaves the stored bytes unchanged (copy them)",
        ).toEqual(original);
      });

      it("returns null from get and head for a key that does not exist", async () => {
        const key = randomKey();
        expect(await store.get(key), "get of a key never put returns null").toBeNull();
        expect(await store.head(key), "head of a key never put returns null").toBeNull();
      });
    });

    describe("failed writes leave nothing", () => {
      it("rejects with the source's error when the stream errors mid-way, and stores nothing", async () => {
        const key = randomKey();
        const failure = new Error("source broke mid-way");
        await expect(
          settle(() => store.put(key, failingStream([pattern(1000, 1), pattern(1000, 2)], failure), putOptions())),
          "put rejects with the error of a source stream that fails mid-way",
        ).rejects.toThrow(failure.message);
        await expectAbsent(store, key);
      });

      it("keeps the previous blob when a replacing write fails", async () => {
        const key = randomKey();
        await store.put(key, streamOf([pattern(100, 1)]), putOptions());
        await expect(
          settle(() => store.put(key, failingStream([pattern(10, 2)], new Error("broken")), putOptions())),
          "a replacing put rejects with the error of its failing source stream",
        ).rejects.toThrow("broken");
        expect(await readAll((await store.get(key))!.body), "a replacing put that failed leaves the previous blob, whole").toEqual(
          pattern(100, 1),
        );
      });

      it("rejects and stores nothing when the signal is already aborted", async () => {
        const key = randomKey();
        const controller = new AbortController();
        controller.abort(new Error("aborted before the write"));
        await expect(
          settle(() => store.put(key, streamOf([pattern(100, 1)]), putOptions({ signal: controller.signal }))),
          "put rejects when its signal is already aborted",
        ).rejects.toThrow();
        await expectAbsent(store, key);
      });

      it("rejects with the abort reason and stores nothing when the signal aborts mid-write", async () => {
        const key = randomKey();
        const controller = new AbortController();
        const source = pushStream();
        const putting = settle(() => store.put(key, source.stream, putOptions({ signal: controller.signal })));
        source.push(pattern(1000, 1));
        await sleep(20);
        controller.abort(new Error("the client went away"));
        await expect(
          withTimeout(putting, 2000, "put did not settle within 2 s of the abort"),
          "put rejects with the signal's abort reason, promptly, when the signal aborts mid-write",
        ).rejects.toThrow("the client went away");
        await expectAbsent(store, key);
      });
    });

    describe("visibility", () => {
      it("never shows a blob before its stream has ended", async () => {
        const key = randomKey();
        const source = pushStream();
        const putting = settle(() => store.put(key, source.stream, putOptions()));
        source.push(pattern(1000, 1));
        await sleep(20);
        expect(await store.head(key), "head returns null while the blob's stream has not ended").toBeNull();
        expect(await store.get(key), "get returns null while the blob's stream has not ended").toBeNull();
        source.push(pattern(1000, 2));
        source.close();
        await putting;
        expect(await readAll((await store.get(key))!.body), "once the stream has ended, get reads every chunk it gave").toEqual(
          concatBytes([pattern(1000, 1), pattern(1000, 2)]),
        );
      });

      it("serves the previous blob, whole, while a replacement is being written", async () => {
        const key = randomKey();
        await store.put(key, streamOf([pattern(500, 1)]), putOptions());
        const source = pushStream();
        const putting = settle(() => store.put(key, source.stream, putOptions()));
        source.push(pattern(300, 2));
        await sleep(20);
        expect(await readAll((await store.get(key))!.body), "while a replacing put is still writing, get reads the previous blob").toEqual(
          pattern(500, 1),
        );
        source.push(pattern(300, 3));
        source.close();
        await putting;
        expect(await readAll((await store.get(key))!.body), "once the replacing put has ended, get reads the new blob, whole").toEqual(
          concatBytes([pattern(300, 2), pattern(300, 3)]),
        );
      });

      it("stores concurrent writes of different keys, each whole", async () => {
        const keys = Array.from({ length: 20 }, () => randomKey());
        await Promise.all(
          keys.map((key, i) => store.put(key, slowStream(split(pattern(4096 + i, i), 512)), putOptions({ metadata: { i: String(i) } }))),
        );
        for (const [i, key] of keys.entries()) {
          expect((await store.head(key))!.metadata, `concurrent put ${i} of 20 different keys keeps its own metadata`).toEqual({
            i: String(i),
          });
          expect(
            await readAll((await store.get(key))!.body),
            `concurrent put ${i} of 20 different keys keeps its own bytes, whole`,
          ).toEqual(pattern(4096 + i, i));
        }
      });

      it("ends concurrent writes of one key with one of them, whole", async () => {
        const key = randomKey();
        const a = pattern(3000, 1);
        const b = pattern(2000, 2);
        await Promise.all([
          store.put(key, slowStream(split(a, 300)), putOptions()),
          store.put(key, slowStream(split(b, 300)), putOptions()),
        ]);
        const read = await readAll((await store.get(key))!.body);
        expect([digestOf(a), digestOf(b)], "two concurrent puts of one key leave exactly one of them, never a mix").toContain(
          digestOf(read),
        );
      });
    });

    describe("expiry", () => {
      it("never serves a blob whose expiresAt has passed, even before it is swept", async () => {
        const key = randomKey();
        await store.put(key, streamOf([pattern(10, 1)]), putOptions({ expiresAt: inMs(-60_000) }));
        expect(await store.get(key), "get returns null for a blob whose expiresAt has passed, swept or not").toBeNull();
        expect(await store.head(key), "head returns null for a blob whose expiresAt has passed, swept or not").toBeNull();
        // It was stored, just not served.
        expect(await store.delete(key), "put stores a blob that is already expired: delete finds it and returns true").toBe(true);
      });

      optional("expiryTransition", "stops serving a blob once its expiresAt passes", async () => {
        const key = randomKey();
        const expiresAt = inMs(800);
        await store.put(key, streamOf([pattern(10, 1)]), putOptions({ expiresAt }));
        expect(await store.head(key), "head finds a blob before its expiresAt").not.toBeNull();
        await sleep(expiresAt.getTime() - Date.now() + 50);
        expect(await store.head(key), "head returns null once the blob's expiresAt has passed").toBeNull();
        expect(await store.get(key), "get returns null once the blob's expiresAt has passed").toBeNull();
      });

      it("deleteExpired(now) deletes exactly the blobs with expiresAt <= now and counts them", async () => {
        // Instants far in the past: blobs of other tests or processes cannot fall in this window.
        const t = pastInstant();
        const before = randomKey();
        const atNow = randomKey();
        const after = randomKey();
        const live = randomKey();
        await store.put(before, streamOf([pattern(10, 1)]), putOptions({ expiresAt: new Date(t.getTime() - 1000) }));
        await store.put(atNow, streamOf([pattern(10, 2)]), putOptions({ expiresAt: t }));
        await store.put(after, streamOf([pattern(10, 3)]), putOptions({ expiresAt: new Date(t.getTime() + 1000) }));
        await store.put(live, streamOf([pattern(10, 4)]), putOptions());
        expect(await store.deleteExpired(t), "deleteExpired counts exactly the blobs with expiresAt <= now").toBe(2);
        expect(await store.delete(before), "a blob expired before now is deleted").toBe(false);
        expect(await store.delete(atNow), "one expiring exactly at now is deleted").toBe(false);
        expect(await store.deleteExpired(new Date(t.getTime() + 1000)), "a later sweep counts only what expired since").toBe(1);
        expect(await store.delete(after), "the later sweep deleted the blob that expired since: delete returns false").toBe(false);
        expect(await readAll((await store.get(live))!.body), "sweeps keep a blob that has not expired, whole").toEqual(pattern(10, 4));
      });

      it("deleteExpired with the current time keeps unexpired blobs", async () => {
        const expired = randomKey();
        const live = randomKey();
        await store.put(expired, streamOf([pattern(10, 1)]), putOptions({ expiresAt: inMs(-1000) }));
        await store.put(live, streamOf([pattern(10, 2)]), putOptions());
        expect(
          await store.deleteExpired(new Date()),
          "deleteExpired(new Date()) counts at least the blob that expired",
        ).toBeGreaterThanOrEqual(1);
        expect(await store.delete(expired), "deleteExpired(new Date()) deleted the expired blob: delete returns false").toBe(false);
        expect(await store.head(live), "deleteExpired(new Date()) keeps a blob that has not expired").not.toBeNull();
      });

      it("deleteExpired never touches a write in progress, even one that will be stored already expired", async () => {
        const t = pastInstant();
        const key = randomKey();
        const source = pushStream();
        const putting = settle(() => store.put(key, source.stream, putOptions({ expiresAt: t })));
        source.push(pattern(1000, 1));
        await sleep(20);
        expect(await store.deleteExpired(t), "deleteExpired deletes and counts nothing of a put still writing").toBe(0);
        source.push(pattern(1000, 2));
        source.close();
        expect((await putting).size, "a put that a sweep ran during stores every byte").toBe(2000);
        // Stored whole; expired, so only delete can tell.
        expect(await store.delete(key), "a put that a sweep ran during is stored: delete finds it and returns true").toBe(true);
      });

      optional("concurrentSweep", "concurrent deleteExpired calls delete each blob once", async () => {
        const t = pastInstant();
        const keys = Array.from({ length: 6 }, () => randomKey());
        for (const key of keys) await store.put(key, streamOf([pattern(10, 1)]), putOptions({ expiresAt: t }));
        const counts = await Promise.all([0, 1, 2].map(async () => store.deleteExpired(t)));
        expect(
          counts.reduce((sum, n) => sum + n, 0),
          "concurrent sweeps count each expired blob once",
        ).toBe(keys.length);
        for (const key of keys)
          expect(await store.delete(key), "concurrent sweeps deleted every expired blob: delete returns false").toBe(false);
      });
    });

    describe("delete", () => {
      it("returns true for a stored blob, which is then gone, and false the second time", async () => {
        const key = randomKey();
        await store.put(key, streamOf([pattern(10, 1)]), putOptions());
        expect(await store.delete(key), "delete of a stored blob returns true").toBe(true);
        expect(await store.get(key), "get returns null after delete").toBeNull();
        expect(await store.head(key), "head returns null after delete").toBeNull();
        expect(await store.delete(key), "a second delete of the same key returns false: nothing is left to delete").toBe(false);
      });

      it("returns false for a key that never existed", async () => {
        expect(await store.delete(randomKey()), "delete of a key never put returns false, not an error").toBe(false);
      });
    });
  });
}

const HOUR = 60 * 60 * 1000;

async function expectAbsent(store: BlobStore, key: string): Promise<void> {
  expect(await store.head(key), "head returns null: a failed put stores nothing").toBeNull();
  expect(await store.get(key), "get returns null: a failed put stores nothing").toBeNull();
  // head and get hide expired blobs too; delete proves nothing was stored at all.
  expect(await store.delete(key), "delete returns false: a failed put stores nothing, not even a partial blob").toBe(false);
}

function putOptions(overrides: Partial<BlobPutOptions> = {}): BlobPutOptions {
  return { contentType: "application/octet-stream", expiresAt: inMs(HOUR), ...overrides };
}

function randomKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return `conf_${btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")}`;
}

function inMs(ms: number): Date {
  return new Date(Date.now() + ms);
}

/** A random instant in 2001, whole seconds, unique enough per test. */
function pastInstant(): Date {
  return new Date(Date.UTC(2001, 0, 1) + Math.floor(Math.random() * 300 * 24 * 3600) * 1000);
}

/** Deterministic bytes that differ by seed and position. */
function pattern(size: number, seed: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed * 7 + (i >> 8)) & 255;
  return bytes;
}

function split(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.byteLength; i += size) chunks.push(bytes.slice(i, i + size));
  return chunks;
}

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
}

/** Like `streamOf`, but each chunk arrives in a later task, so concurrent writes interleave. */
function slowStream(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    async pull(controller) {
      await sleep(0);
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
}

function failingStream(chunks: Uint8Array[], error: Error): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.error(error);
    },
  });
}

/** A stream the test feeds by hand. */
function pushStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
  });
  return { stream, push: (chunk: Uint8Array) => controller.enqueue(chunk), close: () => controller.close() };
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await new Response(body).arrayBuffer());
}

async function digest(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A cheap fingerprint for equality checks between small buffers. */
function digestOf(bytes: Uint8Array): string {
  return `${bytes.byteLength}:${Array.from(bytes.subarray(0, 64)).join(",")}:${bytes.reduce((h, b) => (h * 31 + b) >>> 0, 7)}`;
}

/** Calls `fn` and returns a Promise, so a synchronous throw becomes a rejection. */
function settle<T>(fn: () => T | Promise<T>): Promise<T> {
  return Promise.resolve().then(fn);
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
