/**
 * The API key cache (`apiKeyCache`): a key looked up once skips the store for `ttlMs`, a key
 * revoked with `revokeApiKey` in this process is refused at the next request, one revoked behind
 * the handler's back (another process) at most `ttlMs` later, and the cache never holds more than
 * `maxEntries` keys, nor misses, revoked keys, or a key revoked while it was being looked up.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApiKeyCache, dropApiKeyCache, forgetRevokedKey } from "../../src/credentials/key-cache.js";
import { type ApiKeyRecord, createToolsHandler, issueApiKey, memoryStore, revokeApiKey, type ToolsStore } from "../../src/index.js";

const SECRET = "key-cache-test-secret-0123456789abcdefghijklmnop";

/** A memory store that counts its key lookups. */
function countingStore(): ToolsStore & { lookups: number } {
  const inner = memoryStore();
  const store = Object.assign(Object.create(null) as ToolsStore, inner, { lookups: 0 });
  store.getApiKeyByHash = (hash) => {
    store.lookups++;
    return inner.getApiKeyByHash(hash);
  };
  return store;
}

function status(tools: ReturnType<typeof createToolsHandler>, key: string): Promise<number> {
  return tools(new Request(`http://keys.test${tools.basePath}/connections`, { headers: { "x-api-key": key } })).then((r) => r.status);
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the API key cache of a handler", () => {
  it("looks a key up once while it is fresh, and again after ttlMs", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = countingStore();
    await using tools = createToolsHandler({ store, secret: SECRET, apiKeyCache: { ttlMs: 1000 } });
    const { key } = await issueApiKey(store, { workspaceId: "ws", agentId: "a" });
    for (let i = 0; i < 5; i++) expect(await status(tools, key)).toBe(200);
    expect(store.lookups).toBe(1);
    vi.advanceTimersByTime(1001);
    expect(await status(tools, key)).toBe(200);
    expect(store.lookups).toBe(2);
  });

  it("refuses a key revoked with revokeApiKey at the next request, though its entry is fresh", async () => {
    const store = countingStore();
    await using tools = createToolsHandler({ store, secret: SECRET, apiKeyCache: { ttlMs: 60_000 } });
    const { key, record } = await issueApiKey(store, { workspaceId: "ws", agentId: "a" });
    expect(await status(tools, key)).toBe(200);
    expect(await revokeApiKey(store, record.id)).toBe(true);
    expect(await status(tools, key)).toBe(401);
  });

  it("refuses a key revoked behind its back (another process) once the entry expires, and at once with ttlMs 0", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = countingStore();
    await using cached = createToolsHandler({ store, secret: SECRET, apiKeyCache: { ttlMs: 2000 } });
    await using uncached = createToolsHandler({ store, secret: SECRET, apiKeyCache: { ttlMs: 0 } });
    const { key, record } = await issueApiKey(store, { workspaceId: "ws", agentId: "a" });
    expect(await status(cached, key)).toBe(200);
    expect(await status(uncached, key)).toBe(200);
    await store.revokeApiKey(record.id, new Date()); // what `tools-proxy keys revoke` does from its own process
    expect(await status(uncached, key)).toBe(401);
    expect(await status(cached, key), "within ttlMs the cached entry still answers").toBe(200);
    vi.advanceTimersByTime(2001);
    expect(await status(cached, key)).toBe(401);
  });

  it("works with a new key at once and keeps asking about unknown keys", async () => {
    const store = countingStore();
    await using tools = createToolsHandler({ store, secret: SECRET });
    const unknown = `pak_${"A".repeat(43)}`;
    expect(await status(tools, unknown)).toBe(401);
    expect(await status(tools, unknown)).toBe(401);
    expect(store.lookups).toBe(2);
    const { key } = await issueApiKey(store, { workspaceId: "ws", agentId: "a" });
    expect(await status(tools, key)).toBe(200);
  });

  it("refuses an apiKeyCache option that is not a duration and a count", () => {
    expect(() => createToolsHandler({ apiKeyCache: { ttlMs: -1 } })).toThrow(/option "apiKeyCache.ttlMs" must be 0 \(off\) or more/);
    expect(() => createToolsHandler({ apiKeyCache: { maxEntries: 0 } })).toThrow(/option "apiKeyCache.maxEntries"/);
  });
});

describe("createApiKeyCache", () => {
  const record = (id: string, revoked = false): ApiKeyRecord => ({
    id,
    hash: `hash-${id}`,
    kind: "agent",
    workspaceId: "ws",
    agentId: "a",
    hint: "pak_…test",
    createdAt: new Date(0),
    revokedAt: revoked ? new Date(0) : null,
  });

  it("holds at most maxEntries keys, dropping the oldest", async () => {
    const cache = createApiKeyCache(memoryStore(), { ttlMs: 60_000, maxEntries: 2 });
    const loads: string[] = [];
    const lookup = (id: string) =>
      cache.lookup(`hash-${id}`, async () => {
        loads.push(id);
        return record(id);
      });
    for (const id of ["k1", "k2", "k3", "k3", "k2", "k1"]) await lookup(id);
    expect(cache.size).toBe(2);
    expect(loads, "k1 was dropped for k3, then looked up again").toEqual(["k1", "k2", "k3", "k1"]);
  });

  it("keeps neither misses nor revoked keys", async () => {
    const cache = createApiKeyCache(memoryStore(), { ttlMs: 60_000, maxEntries: 10 });
    expect(await cache.lookup("nothing", async () => null)).toBeNull();
    expect((await cache.lookup("hash-r", async () => record("r", true)))?.revokedAt).not.toBeNull();
    expect(cache.size).toBe(0);
  });

  it("forgets only the revoked key: the others are still answered from the cache", async () => {
    const store = memoryStore();
    const cache = createApiKeyCache(store, { ttlMs: 60_000, maxEntries: 10 });
    const loads: string[] = [];
    const lookup = (id: string) => cache.lookup(`hash-${id}`, async () => (loads.push(id), record(id)));
    await lookup("kept");
    await lookup("revoked");
    await revokeApiKey(store, "revoked"); // no such key in the store: only the caches are told
    expect(cache.size).toBe(1);
    await lookup("kept");
    expect(loads).toEqual(["kept", "revoked"]);
  });

  it("is no longer told of revocations once its handler has dropped it; a store without caches is told nothing", async () => {
    const store = memoryStore();
    const cache = createApiKeyCache(store, { ttlMs: 60_000, maxEntries: 10 });
    await cache.lookup("hash-k", async () => record("k"));
    dropApiKeyCache(store, cache);
    forgetRevokedKey(store, "k");
    expect(cache.size, "a dropped cache is out of the store's set").toBe(1);
    expect(() => forgetRevokedKey(memoryStore(), "k")).not.toThrow();
    expect(() => dropApiKeyCache(memoryStore(), cache), "dropping from a store that has no caches").not.toThrow();
  });

  it("does not keep a key whose lookup was under way when it was revoked", async () => {
    const store = memoryStore();
    const cache = createApiKeyCache(store, { ttlMs: 60_000, maxEntries: 10 });
    let finish!: (value: ApiKeyRecord) => void;
    const pending = cache.lookup("hash-k", () => new Promise((resolve) => (finish = resolve)));
    await revokeApiKey(store, "k"); // no such key in the store: only the caches are told
    finish(record("k")); // what the store read before the revocation
    await pending;
    expect(cache.size).toBe(0);
  });
});
