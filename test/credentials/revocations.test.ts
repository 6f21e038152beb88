/**
 * The `apiKeyRevocations` option over an in-process bus, with two handlers on two views of one
 * store standing for two processes on one database: a key revoked on one is refused by the other
 * at its next request, though its cache entry is fresh; a process without a handler publishes
 * through `revokeApiKey`'s `revocations`; a bus that (re)connects empties the cache; a bus that
 * is down leaves the revocation in place, at once here and within `ttlMs` elsewhere.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApiKeyCache } from "../../src/credentials/key-cache.js";
import {
  type ApiKeyRecord,
  type ApiKeyRevocationListener,
  type ApiKeyRevocations,
  createToolsHandler,
  issueApiKey,
  memoryStore,
  revokeApiKey,
  type ToolsStore,
} from "../../src/index.js";

const SECRET = "revocations-test-secret-0123456789abcdefghijklmn";

/** Another object over the same data: what a second process on the same database has. */
function view(inner: ToolsStore): ToolsStore {
  return Object.assign(Object.create(null) as ToolsStore, inner);
}

/** A bus in this process: a message reaches every subscriber at once; `down` makes publish fail. */
function memoryBus() {
  const listeners = new Set<ApiKeyRevocationListener>();
  const published: string[] = [];
  const bus = {
    down: false,
    published,
    get subscribers() {
      return listeners.size;
    },
    async publish(keyId: string) {
      if (bus.down) throw new Error("the bus is down");
      published.push(keyId);
      for (const listener of listeners) listener.revoked(keyId);
    },
    subscribe(listener: ApiKeyRevocationListener) {
      listeners.add(listener);
      listener.missed();
      return () => void listeners.delete(listener);
    },
    /** The subscriptions come back after a disconnection. */
    reconnect() {
      for (const listener of listeners) listener.missed();
    },
  };
  return bus satisfies ApiKeyRevocations;
}

function status(tools: ReturnType<typeof createToolsHandler>, key: string): Promise<number> {
  return tools(new Request(`http://keys.test${tools.basePath}/connections`, { headers: { "x-api-key": key } })).then((r) => r.status);
}

afterEach(() => {
  vi.useRealTimers();
});

describe("apiKeyRevocations", () => {
  it("a key revoked on one instance is refused by another at its next request, though its cached entry is fresh", async () => {
    const data = memoryStore();
    const [storeA, storeB] = [view(data), view(data)];
    const bus = memoryBus();
    await using a = createToolsHandler({ store: storeA, secret: SECRET, apiKeyCache: { ttlMs: 60_000 }, apiKeyRevocations: bus });
    await using b = createToolsHandler({ store: storeB, secret: SECRET, apiKeyCache: { ttlMs: 60_000 }, apiKeyRevocations: bus });
    const { key, record } = await issueApiKey(data, { workspaceId: "ws", agentId: "a" });
    const other = await issueApiKey(data, { workspaceId: "ws", agentId: "b" });
    for (const tools of [a, b]) {
      expect(await status(tools, key)).toBe(200);
      expect(await status(tools, other.key)).toBe(200);
    }
    expect(await revokeApiKey(storeA, record.id)).toBe(true);
    expect(bus.published).toEqual([record.id]);
    expect(await status(b, key)).toBe(401);
    expect(await status(a, key)).toBe(401);
    expect(await status(b, other.key), "the other keys stay").toBe(200);
  });

  it("without it, the other instance keeps the revoked key until its entry expires", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const data = memoryStore();
    const [storeA, storeB] = [view(data), view(data)];
    await using a = createToolsHandler({ store: storeA, secret: SECRET, apiKeyCache: { ttlMs: 5000 } });
    await using b = createToolsHandler({ store: storeB, secret: SECRET, apiKeyCache: { ttlMs: 5000 } });
    const { key, record } = await issueApiKey(data, { workspaceId: "ws", agentId: "a" });
    expect(await status(b, key)).toBe(200);
    await revokeApiKey(storeA, record.id);
    expect(await status(a, key)).toBe(401);
    expect(await status(b, key)).toBe(200);
    vi.advanceTimersByTime(5001);
    expect(await status(b, key)).toBe(401);
  });

  it("a process without a handler (an admin script, keys revoke) publishes through revokeApiKey's revocations", async () => {
    const data = memoryStore();
    const bus = memoryBus();
    await using served = createToolsHandler({ store: view(data), secret: SECRET, apiKeyCache: { ttlMs: 60_000 }, apiKeyRevocations: bus });
    const { key, record } = await issueApiKey(data, { workspaceId: "ws", agentId: "a" });
    expect(await status(served, key)).toBe(200);
    expect(await revokeApiKey(view(data), record.id, { revocations: bus })).toBe(true);
    expect(await status(served, key)).toBe(401);
  });

  it("publishes once per bus, and again for a key already revoked (a second revoke repairs a lost message)", async () => {
    const data = memoryStore();
    const store = view(data);
    const bus = memoryBus();
    await using one = createToolsHandler({ store, secret: SECRET, apiKeyRevocations: bus });
    await using two = createToolsHandler({ store, secret: SECRET, apiKeyRevocations: bus });
    const { record } = await issueApiKey(data, { workspaceId: "ws", agentId: "a" });
    expect(await revokeApiKey(store, record.id, { revocations: bus })).toBe(true);
    expect(await revokeApiKey(store, record.id)).toBe(false);
    expect(bus.published).toEqual([record.id, record.id]);
    expect([one, two]).toHaveLength(2);
  });

  it("empties the cache when revocations may have been missed: the bus (re)connects", async () => {
    const data = memoryStore();
    const bus = memoryBus();
    await using tools = createToolsHandler({ store: view(data), secret: SECRET, apiKeyCache: { ttlMs: 60_000 }, apiKeyRevocations: bus });
    const { key, record } = await issueApiKey(data, { workspaceId: "ws", agentId: "a" });
    expect(await status(tools, key)).toBe(200);
    await data.revokeApiKey(record.id, new Date()); // revoked while the bus was away: no message
    expect(await status(tools, key), "the cached entry still answers").toBe(200);
    bus.reconnect();
    expect(await status(tools, key)).toBe(401);
  });

  it("a bus that is down: the key is revoked all the same, refused here at once and elsewhere within ttlMs", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const data = memoryStore();
    const [storeA, storeB] = [view(data), view(data)];
    const bus = memoryBus();
    await using a = createToolsHandler({ store: storeA, secret: SECRET, apiKeyCache: { ttlMs: 5000 }, apiKeyRevocations: bus });
    await using b = createToolsHandler({ store: storeB, secret: SECRET, apiKeyCache: { ttlMs: 5000 }, apiKeyRevocations: bus });
    const { key, record } = await issueApiKey(data, { workspaceId: "ws", agentId: "a" });
    expect(await status(a, key)).toBe(200);
    expect(await status(b, key)).toBe(200);
    bus.down = true;
    expect(await revokeApiKey(storeA, record.id)).toBe(true);
    expect((await data.getApiKeyByHash(record.hash))?.revokedAt).toBeInstanceOf(Date);
    expect(await status(a, key)).toBe(401);
    expect(await status(b, key)).toBe(200);
    vi.advanceTimersByTime(5001);
    expect(await status(b, key)).toBe(401);
  });

  it("a bus whose publish throws at once, rather than rejecting, is passed over too", async () => {
    const data = memoryStore();
    const throwing: ApiKeyRevocations = {
      publish: () => {
        throw new Error("synchronous failure");
      },
      subscribe: () => () => {},
    };
    const { record } = await issueApiKey(data, { workspaceId: "ws", agentId: "a" });
    expect(await revokeApiKey(data, record.id, { revocations: throwing })).toBe(true);
  });

  it("with the cache off, the handler does not subscribe but revokeApiKey in its process still publishes", async () => {
    const data = memoryStore();
    const store = view(data);
    const bus = memoryBus();
    await using tools = createToolsHandler({ store, secret: SECRET, apiKeyCache: { ttlMs: 0 }, apiKeyRevocations: bus });
    expect(bus.subscribers).toBe(0);
    const { key, record } = await issueApiKey(data, { workspaceId: "ws", agentId: "a" });
    await revokeApiKey(store, record.id);
    expect(bus.published).toEqual([record.id]);
    expect(await status(tools, key)).toBe(401);
  });

  it("a closed handler leaves the bus: unsubscribed, and revokeApiKey over its store no longer publishes there", async () => {
    const store = view(memoryStore());
    const bus = memoryBus();
    const tools = createToolsHandler({ store, secret: SECRET, apiKeyRevocations: bus });
    expect(bus.subscribers).toBe(1);
    await tools.close();
    await tools.close(); // twice is harmless
    expect(bus.subscribers).toBe(0);
    await revokeApiKey(store, "key_gone");
    expect(bus.published).toEqual([]);
  });

  it("two handlers on one store and one bus: closing one keeps the other's publishing", async () => {
    const store = view(memoryStore());
    const bus = memoryBus();
    const first = createToolsHandler({ store, secret: SECRET, apiKeyRevocations: bus });
    await using second = createToolsHandler({ store, secret: SECRET, apiKeyRevocations: bus });
    await first.close();
    expect(bus.subscribers).toBe(1);
    await revokeApiKey(store, "key_x");
    expect(bus.published).toEqual(["key_x"]);
    expect(second.basePath).toBe("/proxy/tools");
  });

  it("refuses an apiKeyRevocations option without publish and subscribe, naming it", () => {
    expect(() => createToolsHandler({ apiKeyRevocations: {} as ApiKeyRevocations })).toThrow(
      /option "apiKeyRevocations" must be an ApiKeyRevocations with the methods publish, subscribe/,
    );
  });
});

describe("ApiKeyCache.forgetAll", () => {
  const record = (id: string): ApiKeyRecord => ({
    id,
    hash: `hash-${id}`,
    kind: "agent",
    workspaceId: "ws",
    agentId: "a",
    hint: "pak_…test",
    createdAt: new Date(0),
    revokedAt: null,
  });

  it("drops every key, and does not keep one whose lookup was under way", async () => {
    const cache = createApiKeyCache(memoryStore(), { ttlMs: 60_000, maxEntries: 10 });
    await cache.lookup("hash-a", async () => record("a"));
    await cache.lookup("hash-b", async () => record("b"));
    let finish!: (value: ApiKeyRecord) => void;
    const pending = cache.lookup("hash-c", () => new Promise((resolve) => (finish = resolve)));
    cache.forgetAll();
    expect(cache.size).toBe(0);
    finish(record("c"));
    await pending;
    expect(cache.size).toBe(0);
    await cache.lookup("hash-a", async () => record("a"));
    expect(cache.size, "a lookup after it is kept again").toBe(1);
  });
});
