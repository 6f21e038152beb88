/**
 * Blob keys that break the `BlobStore` contract (`[A-Za-z0-9_-]{1,128}`) never reach a storage
 * name: with "/" or ".." a key could name an object outside the store's `blobs/` prefix, or a
 * file outside its directory, and an expiry marker the sweeper cannot parse would keep the blob
 * forever. The handler only makes valid keys; these stores refuse the rest themselves, for code
 * that calls them directly. S3 is checked with a client that records every command: none is sent.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { S3Client } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { filesystemBlobStore } from "../../src/blob/fs.js";
import { s3BlobStore } from "../../src/blob/s3.js";
import type { BlobStore } from "../../src/blob/types.js";

const BAD_KEYS = ["../escape", "a/b", "..", "", "x".repeat(129), "key\u0000", "key with space", "stg_é", "a\\b", "%2e%2e"];

const body = () => new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(new Uint8Array([1, 2, 3])), c.close()) });
const putOptions = () => ({ contentType: "application/octet-stream", expiresAt: new Date(Date.now() + 60_000) });

async function expectRefused(store: BlobStore) {
  for (const key of BAD_KEYS) {
    await expect(
      Promise.resolve().then(() => store.put(key, body(), putOptions())),
      JSON.stringify(key),
    ).rejects.toBeInstanceOf(TypeError);
    expect(await store.get(key), JSON.stringify(key)).toBeNull();
    expect(await store.head(key), JSON.stringify(key)).toBeNull();
    expect(await store.delete(key), JSON.stringify(key)).toBe(false);
  }
}

describe("blob stores refuse keys outside the contract", () => {
  it("s3BlobStore sends nothing to S3 for them", async () => {
    const sent: string[] = [];
    const client = {
      send: async (command: { constructor: { name: string }; input: { Key?: string } }) => {
        sent.push(`${command.constructor.name} ${command.input.Key}`);
        throw Object.assign(new Error("NotFound"), { name: "NotFound", $metadata: { httpStatusCode: 404 } });
      },
    } as unknown as S3Client;
    await expectRefused(s3BlobStore({ bucket: "bucket", client }));
    expect(sent).toEqual([]);
  });

  it("filesystemBlobStore writes nothing for them", async () => {
    const directory = await mkdtemp(join(tmpdir(), "tp-blob-keys-"));
    try {
      await expectRefused(filesystemBlobStore({ directory }));
      expect(await readdir(directory)).toEqual([]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
