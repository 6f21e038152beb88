/**
 * `filesystemBlobStore`: the conformance suite, then what only a file system store can get wrong:
 * paths, leftovers of failed writes, permissions, crashed writers, and sweepers in several
 * processes at once.
 */
import { fork } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat, truncate, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { filesystemBlobStore } from "../../src/blob/fs.js";
import type { BlobStore } from "../../src/blob/types.js";
import { StoreUnavailableError } from "../../src/core/errors.js";
import { blobStoreConformance } from "../../src/testing/blob-store.js";

const directories = new WeakMap<object, string>();

blobStoreConformance(
  "filesystemBlobStore",
  async () => {
    const directory = await mkdtemp(join(tmpdir(), "tp-blobs-"));
    const store = filesystemBlobStore({ directory });
    directories.set(store, directory);
    return store;
  },
  { cleanup: (store) => rm(directories.get(store)!, { recursive: true, force: true }) },
);

// Two instances on one directory, as two processes sharing a volume: every test's blobs have keys
// and expiry instants of their own, so one directory serves the whole suite.
const sharedDirectory = await mkdtemp(join(tmpdir(), "tp-blobs-shared-"));
afterAll(() => rm(sharedDirectory, { recursive: true, force: true }));
blobStoreConformance("filesystemBlobStore, one directory", () => filesystemBlobStore({ directory: sharedDirectory }), { instances: 2 });

blobStoreConformance(
  "filesystemBlobStore with fsync",
  async () => {
    const directory = await mkdtemp(join(tmpdir(), "tp-blobs-"));
    const store = filesystemBlobStore({ directory, fsync: true });
    directories.set(store, directory);
    return store;
  },
  {
    cleanup: (store) => rm(directories.get(store)!, { recursive: true, force: true }),
    largeBytes: 1024 * 1024,
    skip: { expiryTransition: "covered by the run without fsync" },
  },
);

const HOUR = 60 * 60 * 1000;
const text = (s: string) => new Blob([s]).stream();
const options = (expiresAt = new Date(Date.now() + HOUR)) => ({ contentType: "text/plain", expiresAt });
const PAST = new Date("2001-06-01T00:00:00Z");

describe("filesystemBlobStore on disk", () => {
  let root: string;
  let directory: string;
  let store: BlobStore;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "tp-fs-"));
    directory = join(root, "blobs", "nested");
    store = filesystemBlobStore({ directory });
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it("creates its directory (0700) on first write and keeps each blob in one file (0600) named by a hash of its key", async () => {
    await store.put("stg_abc", text("hello"), options());
    expect((await stat(directory)).mode & 0o777).toBe(0o700);
    const names = await readdir(directory);
    expect(names).toEqual([expect.stringMatching(/^[0-9a-f]{64}\.blob$/)]);
    const file = join(directory, names[0]!);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const raw = await readFile(file);
    // Header, bytes, trailer with the size: one file, so one rename publishes all of it.
    expect(raw.subarray(0, 8).toString()).toBe("TPBLOB1\n");
    expect(raw.subarray(raw.length - 21, raw.length - 16).toString()).toBe("hello");
    expect(raw.subarray(raw.length - 16, raw.length - 8).toString()).toBe("TPBLOBZ\n");
    expect(raw.readBigUInt64BE(raw.length - 8)).toBe(5n);
    expect(raw.toString()).toContain('"contentType":"text/plain"');
  });

  it("refuses a key that could name a path, and finds nothing for one", async () => {
    for (const key of ["../escape", "a/b", "", ".", "..", "a".repeat(129), "stg_ok\0", "ключ"]) {
      await expect(Promise.resolve().then(() => store.put(key, text("x"), options()))).rejects.toBeInstanceOf(TypeError);
      expect(await store.get(key)).toBeNull();
      expect(await store.head(key)).toBeNull();
      expect(await store.delete(key)).toBe(false);
    }
    expect(await readdir(root)).toEqual([]); // not even the directory was created
  });

  it("keys that differ only in case are different blobs (safe on case-insensitive disks)", async () => {
    await store.put("stg_Key", text("upper"), options());
    await store.put("stg_key", text("lower"), options());
    expect(await new Response((await store.get("stg_Key"))!.body).text()).toBe("upper");
    expect(await new Response((await store.get("stg_key"))!.body).text()).toBe("lower");
  });

  it("leaves no file behind when a write fails or is aborted", async () => {
    await store.put("stg_kept", text("kept"), options());
    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(100_000));
        controller.error(new Error("client went away"));
      },
    });
    await expect(store.put("stg_broken", broken, options())).rejects.toThrow("client went away");
    const abort = new AbortController();
    const endless = new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(new Uint8Array(64 * 1024)) });
    const putting = store.put("stg_aborted", endless, { ...options(), signal: abort.signal });
    setTimeout(() => abort.abort(new Error("aborted")), 30);
    await expect(putting).rejects.toThrow("aborted");
    expect(await readdir(directory)).toHaveLength(1);
  });

  it("never serves a blob file cut short (a crash before its bytes reached the disk)", async () => {
    await store.put("stg_cut", text("0123456789"), options());
    const [name] = await readdir(directory);
    const file = join(directory, name!);
    const whole = await readFile(file);
    for (const length of [whole.length - 1, whole.length - 20, 30, 0]) {
      await truncate(file, length);
      expect(await store.head("stg_cut")).toBeNull();
      expect(await store.get("stg_cut")).toBeNull();
      await writeFile(file, whole);
      expect((await store.head("stg_cut"))?.size).toBe(10);
    }
  });

  it("deletes what crashed writers left once older than staleTempMs, and nothing else", async () => {
    await store.put("stg_live", text("live"), options());
    await store.put("stg_gone", text("gone"), options(PAST));
    const crashed = join(directory, ".tmp-crashedwriter");
    const recent = join(directory, ".tmp-stillwriting");
    const foreign = join(directory, "notes.txt");
    const broken = join(directory, `${"0".repeat(64)}.blob`);
    const brokenRecent = join(directory, `${"1".repeat(64)}.blob`);
    for (const path of [crashed, recent, foreign, broken, brokenRecent]) await writeFile(path, "partial");
    const old = new Date(Date.now() - 2 * HOUR);
    for (const path of [crashed, foreign, broken]) await utimes(path, old, old);
    expect(await store.deleteExpired(new Date())).toBe(1); // only stg_gone counts: it was a blob
    const left = await readdir(directory);
    expect(left).not.toContain(".tmp-crashedwriter");
    expect(left).not.toContain(`${"0".repeat(64)}.blob`);
    expect(left).toEqual(expect.arrayContaining([".tmp-stillwriting", "notes.txt", `${"1".repeat(64)}.blob`]));
    expect(left).toHaveLength(4); // the live blob, the recent temp and broken files, and a file it did not make
    expect(await new Response((await store.get("stg_live"))!.body).text()).toBe("live");
  });

  it("makes its directory again when it was removed while in use", async () => {
    await store.put("stg_first", text("first"), options());
    await rm(directory, { recursive: true });
    await store.put("stg_second", text("second"), options());
    expect(await new Response((await store.get("stg_second"))!.body).text()).toBe("second");
  });

  it("answers a missing directory with nothing, and an unusable one with StoreUnavailableError", async () => {
    expect(await store.deleteExpired(new Date())).toBe(0);
    expect(await store.get("stg_none")).toBeNull();
    const notADirectory = join(root, "file");
    await writeFile(notADirectory, "x");
    const broken = filesystemBlobStore({ directory: notADirectory });
    await expect(broken.put("stg_x", text("x"), options())).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(Promise.resolve(broken.deleteExpired(new Date()))).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(() => filesystemBlobStore({ directory: "" })).toThrow(/directory/);
  });

  it("a blob written over an expired one while sweeps run is never lost", async () => {
    for (let round = 0; round < 30; round++) {
      const key = `stg_race${round}`;
      await store.put(key, text("old"), options(PAST));
      await Promise.all([store.deleteExpired(new Date()), store.put(key, text("new"), options()), store.deleteExpired(new Date())]);
      expect(await new Response((await store.get(key))!.body).text()).toBe("new");
    }
  });

  it("sweepers in three processes at once delete each expired blob exactly once", async () => {
    const expired = 120;
    for (let i = 0; i < expired; i++) await store.put(`stg_old${i}`, text(`old ${i}`), options(PAST));
    for (let i = 0; i < 5; i++) await store.put(`stg_new${i}`, text(`new ${i}`), options());
    const script = fileURLToPath(new URL("../support/sweep-child.ts", import.meta.url));
    const children = [0, 1, 2].map(() =>
      fork(script, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] }),
    );
    const message = (child: (typeof children)[number]) =>
      new Promise<unknown>((resolve, reject) => {
        child.once("message", resolve);
        child.once("exit", (code) => reject(new Error(`sweeper exited with ${code}`)));
      });
    const ready = children.map(message);
    for (const child of children) child.send({ directory, at: Date.now() });
    await Promise.all(ready);
    const results = children.map(message);
    for (const child of children) child.send("go"); // all three start together
    const counts = (await Promise.all(results)) as Array<{ deleted: number }>;
    expect(counts.reduce((sum, c) => sum + c.deleted, 0)).toBe(expired);
    expect(await readdir(directory)).toHaveLength(5);
    for (let i = 0; i < 5; i++) expect(await new Response((await store.get(`stg_new${i}`))!.body).text()).toBe(`new ${i}`);
  });
});
