import { describe, expect, it } from "vitest";
import { memoryBlobStore } from "../../src/blob/memory.js";
import { blobStoreConformance } from "../../src/testing/blob-store.js";

blobStoreConformance("memoryBlobStore", () => memoryBlobStore());

describe("memoryBlobStore", () => {
  it("decides expiry with the injected clock", async () => {
    let now = new Date("2030-01-01T00:00:00Z");
    const store = memoryBlobStore({ now: () => now });
    await store.put("k", new Blob(["abc"]).stream(), { contentType: "text/plain", expiresAt: new Date("2030-01-01T00:01:00Z") });
    expect(await store.head("k")).toMatchObject({ size: 3, createdAt: new Date("2030-01-01T00:00:00Z") });
    now = new Date("2030-01-01T00:01:00Z");
    expect(await store.head("k")).toBeNull();
  });

  it("frees expired blobs on a later put, at most once a minute, without a sweeper", async () => {
    let now = new Date("2030-01-01T00:00:00Z");
    const store = memoryBlobStore({ now: () => now });
    const put = (key: string, expiresAt: string) =>
      store.put(key, new Blob(["abc"]).stream(), { contentType: "text/plain", expiresAt: new Date(expiresAt) });
    await put("old", "2030-01-01T00:00:30Z");
    now = new Date("2030-01-01T00:00:40Z");
    await put("within-a-minute", "2030-01-02T00:00:00Z");
    expect(await store.delete("old")).toBe(true); // not swept yet: the last sweep was 40 s ago
    await put("old", "2030-01-01T00:00:30Z");
    now = new Date("2030-01-01T00:01:01Z");
    await put("after-a-minute", "2030-01-02T00:00:00Z");
    expect(await store.delete("old")).toBe(false); // swept by that put
    expect(await store.head("within-a-minute")).not.toBeNull();
  });

  it("declares itself not persistent, so the handler can do without a secret", () => {
    expect(memoryBlobStore().persistent).toBe(false);
  });
});
