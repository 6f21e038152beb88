/**
 * The cipher keeps values it decrypted recently (the hot path of every call on a connection), and
 * the small cache it keeps them in. A kept value answers only for the same ciphertext and the same
 * associated data: a ciphertext moved to another row still fails, however often it was read.
 */
import { describe, expect, it } from "vitest";
import { createCredentialCipher } from "../../src/credentials/cipher.js";
import { createTtlCache } from "../../src/util/ttl-cache.js";

const SECRET = "opened-values-secret-0123456789abcdefghijklmnop";

describe("decrypting the same value again", () => {
  it("gives the same plaintext, and still refuses it under other associated data", async () => {
    const cipher = createCredentialCipher(SECRET);
    const sealed = await cipher.encrypt('{"type":"bearer","token":"tok-opened-values-1234"}', "conn_a");
    for (let i = 0; i < 3; i++) expect(await cipher.decrypt(sealed, "conn_a")).toContain("tok-opened-values-1234");
    await expect(cipher.decrypt(sealed, "conn_b")).rejects.toThrow();
    await expect(cipher.decrypt(`${sealed.slice(0, -1)}${sealed.endsWith("A") ? "Q" : "A"}`, "conn_a")).rejects.toThrow();
  });

  it("keeps nothing another cipher (another secret) could answer from", async () => {
    const sealed = await createCredentialCipher(SECRET).encrypt("plain", "conn_a");
    await expect(createCredentialCipher(`${SECRET}-other`).decrypt(sealed, "conn_a")).rejects.toThrow(/No secret with key id/);
  });
});

describe("createTtlCache", () => {
  it("forgets an entry ttlMs after it was set", () => {
    let now = 0;
    const cache = createTtlCache<string, number>({ ttlMs: 100, maxEntries: 10 }, () => now);
    cache.set("a", 1);
    now = 99;
    expect(cache.get("a")).toBe(1);
    now = 100;
    expect(cache.get("a")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("holds at most maxEntries, dropping the oldest set", () => {
    const cache = createTtlCache<string, number>({ ttlMs: 1000, maxEntries: 3 }, () => 0);
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("a", 3); // set again: now the newest
    cache.set("c", 4);
    cache.set("d", 5);
    expect(["a", "b", "c", "d"].map((key) => cache.get(key))).toEqual([3, undefined, 4, 5]);
    expect(cache.size).toBe(3);
  });

  it("drops the entries whose value matches", () => {
    const cache = createTtlCache<string, number>({ ttlMs: 1000, maxEntries: 10 }, () => 0);
    for (const [key, value] of [
      ["a", 1],
      ["b", 2],
      ["c", 1],
    ] as const)
      cache.set(key, value);
    cache.deleteWhere((value) => value === 1);
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([undefined, 2, undefined]);
  });
});
