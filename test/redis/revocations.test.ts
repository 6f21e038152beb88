/**
 * `redisApiKeyRevocations` against a real Redis: a revocation published on one connection reaches
 * the handlers listening on another (standing for two processes) at once, on its own channel only;
 * and with a private redis-server the test stops and starts: a revocation while Redis is down
 * still holds (at once where it was made, within the cache's ttlMs elsewhere), nothing throws from
 * a listener, and the cache is emptied when the subscription comes back.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createToolsHandler, issueApiKey, memoryStore, revokeApiKey, StoreUnavailableError, type ToolsStore } from "../../src/index.js";
import { connectRedis, type RedisApiKeyRevocations, type RedisConnection, redisApiKeyRevocations } from "../../src/redis/index.js";
import {
  connectedClient,
  hasRedisServer,
  type PrivateRedis,
  privateRedis,
  redisUnavailableReason,
  SHARED_REDIS_URL,
} from "../support/redis.js";

const why = await redisUnavailableReason();
const SECRET = "redis-revocations-secret-0123456789abcdefghijklm";
/** A channel per test: runs sharing the Redis never hear each other. */
const channel = () => `tp-test:revoked:${Math.random().toString(36).slice(2, 10)}`;

/** Another object over the same data: what a second process on the same database has. */
function view(inner: ToolsStore): ToolsStore {
  return Object.assign(Object.create(null) as ToolsStore, inner);
}

function status(tools: ReturnType<typeof createToolsHandler>, key: string): Promise<number> {
  return tools(new Request(`http://keys.test${tools.basePath}/connections`, { headers: { "x-api-key": key } })).then((r) => r.status);
}

/** Subscribes and resolves once the subscription is live, with what it heard. */
async function listening(revocations: RedisApiKeyRevocations) {
  const heard: string[] = [];
  let lives = 0;
  const stop = revocations.subscribe({ revoked: (keyId) => heard.push(keyId), missed: () => lives++ });
  await vi.waitFor(() => expect(lives).toBeGreaterThan(0), { timeout: 10_000, interval: 10 });
  return { heard, stop, lives: () => lives };
}

describe.skipIf(!!why)(`redisApiKeyRevocations${why ? ` (skipped: ${why})` : ""}`, () => {
  const connections: RedisConnection[] = [];
  const connect = () => {
    const redis = connectRedis(SHARED_REDIS_URL);
    connections.push(redis);
    return redis;
  };
  afterAll(async () => {
    await Promise.all(connections.map((redis) => redis.close()));
  });

  it("a key published on one connection is heard on another, on its channel only", async () => {
    const name = channel();
    const publisher = redisApiKeyRevocations(connect(), { channel: name });
    const subscriber = await listening(redisApiKeyRevocations(connect(), { channel: name }));
    const elsewhere = await listening(redisApiKeyRevocations(connect(), { channel: channel() }));
    await publisher.publish("key_one");
    await vi.waitFor(() => expect(subscriber.heard).toEqual(["key_one"]), { timeout: 10_000, interval: 5 });
    expect(elsewhere.heard).toEqual([]);
    subscriber.stop();
    await publisher.publish("key_two");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(subscriber.heard, "nothing after it stopped").toEqual(["key_one"]);
    elsewhere.stop();
  });

  it("two handlers on one data and one Redis: a key revoked through one is refused by the other at once", async () => {
    const data = memoryStore();
    const [storeA, storeB] = [view(data), view(data)];
    const name = channel();
    const busA = redisApiKeyRevocations(connect(), { channel: name });
    const busB = redisApiKeyRevocations(connect(), { channel: name });
    await using a = createToolsHandler({ store: storeA, secret: SECRET, apiKeyCache: { ttlMs: 60_000 }, apiKeyRevocations: busA });
    await using b = createToolsHandler({ store: storeB, secret: SECRET, apiKeyCache: { ttlMs: 60_000 }, apiKeyRevocations: busB });
    await listening(busB); // B's subscription is live once another listener on its connection is
    const { key, record } = await issueApiKey(data, { workspaceId: "ws", agentId: "a" });
    expect(await status(a, key)).toBe(200);
    expect(await status(b, key)).toBe(200);
    expect(await revokeApiKey(storeA, record.id)).toBe(true);
    const started = performance.now();
    await vi.waitFor(async () => expect(await status(b, key)).toBe(401), { timeout: 10_000, interval: 5 });
    // Far inside the cache's 60 s; a tight bound would fail on a loaded machine.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("a URL of its own: it connects, and close() disconnects", async () => {
    const name = channel();
    const own = redisApiKeyRevocations(SHARED_REDIS_URL, { channel: name });
    const heard = await listening(own);
    await own.publish("key_self");
    await vi.waitFor(() => expect(heard.heard).toEqual(["key_self"]), { timeout: 10_000, interval: 5 });
    heard.stop();
    await own.close();
    await expect(own.publish("key_after")).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it("refuses a client that cannot subscribe through it, saying what to pass", async () => {
    const client = await connectedClient();
    try {
      expect(() => redisApiKeyRevocations(client as never)).toThrow(/pass a Redis URL or a connection of connectRedis/);
    } finally {
      await client.close();
    }
  });
});

describe.skipIf(!!why || !hasRedisServer)(
  `redisApiKeyRevocations with Redis down${!hasRedisServer ? " (skipped: no redis-server to start a private instance)" : why ? ` (skipped: ${why})` : ""}`,
  () => {
    let redis: PrivateRedis;
    beforeAll(async () => {
      redis = await privateRedis();
    });
    afterAll(async () => {
      await redis.stop();
    });

    it("down: revocation still holds, at once here and within ttlMs elsewhere; back: the cache is emptied and messages flow again", async () => {
      const data = memoryStore();
      const [storeA, storeB] = [view(data), view(data)];
      const errorsA: Error[] = [];
      const errorsB: Error[] = [];
      const connA = connectRedis(redis.url, { timeoutMs: 1000 });
      const connB = connectRedis(redis.url, { timeoutMs: 1000 });
      const busA = redisApiKeyRevocations(connA, { timeoutMs: 1000, onError: (e) => errorsA.push(e) });
      const busB = redisApiKeyRevocations(connB, { timeoutMs: 1000, onError: (e) => errorsB.push(e) });
      const ttlMs = 1500;
      const a = createToolsHandler({ store: storeA, secret: SECRET, apiKeyCache: { ttlMs }, apiKeyRevocations: busA });
      const b = createToolsHandler({ store: storeB, secret: SECRET, apiKeyCache: { ttlMs }, apiKeyRevocations: busB });
      try {
        const heardB = await listening(busB);
        const [first, second, third] = await Promise.all(
          ["a1", "a2", "a3"].map((agentId) => issueApiKey(data, { workspaceId: "ws", agentId })),
        );
        for (const { key } of [first!, second!, third!]) expect(await status(b, key)).toBe(200);

        await redis.stop();
        await vi.waitFor(() => expect(errorsB).toHaveLength(1), { timeout: 10_000, interval: 20 }); // the subscription's loss, said once
        // Revoked through A while Redis is down: the store has it, A refuses it, the publish fails.
        expect(await revokeApiKey(storeA, first!.record.id)).toBe(true);
        expect(errorsA.some((e) => e instanceof StoreUnavailableError)).toBe(true);
        expect(await status(a, first!.key)).toBe(401);
        // B still answers from its cache, then refuses once the entry expires.
        const revokedAt = performance.now();
        await vi.waitFor(async () => expect(await status(b, first!.key)).toBe(401), { timeout: 10_000, interval: 50 });
        expect(performance.now() - revokedAt).toBeLessThan(ttlMs + 5_000);
        expect(await status(b, second!.key), "the other keys keep working").toBe(200);

        // Revoked behind B's back while it is still away; when its subscription is back, its cache is emptied.
        await data.revokeApiKey(second!.record.id, new Date());
        const livesBefore = heardB.lives();
        await redis.start();
        await vi.waitFor(() => expect(heardB.lives()).toBeGreaterThan(livesBefore), { timeout: 15_000, interval: 20 });
        expect(await status(b, second!.key)).toBe(401);
        expect(errorsB, "one warning per outage").toHaveLength(1);

        // And messages flow again: a revocation through A reaches B at once.
        expect(await status(b, third!.key)).toBe(200);
        await vi.waitFor(
          () => revokeApiKey(storeA, third!.record.id, { revocations: busA }).then(() => expect(heardB.heard).toContain(third!.record.id)),
          {
            timeout: 15_000,
            interval: 200,
          },
        );
        expect(await status(b, third!.key)).toBe(401);
        heardB.stop();
      } finally {
        await Promise.all([a.close(), b.close()]);
        await Promise.all([connA.close(), connB.close()]);
      }
    }, 60_000);

    it("a Redis that is down from the start: the handler serves, revocations hold locally, nothing throws", async () => {
      const stopped = await privateRedis();
      await stopped.stop(); // its port now refuses connections
      const errors: Error[] = [];
      const bus = redisApiKeyRevocations(stopped.url, { timeoutMs: 500, onError: (e) => errors.push(e) });
      const data = memoryStore();
      const store = view(data);
      const tools = createToolsHandler({ store, secret: SECRET, apiKeyRevocations: bus });
      try {
        const { key, record } = await issueApiKey(data, { workspaceId: "ws", agentId: "a" });
        expect(await status(tools, key)).toBe(200);
        expect(await revokeApiKey(store, record.id)).toBe(true);
        expect(await status(tools, key)).toBe(401);
        await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });
      } finally {
        await tools.close();
        await bus.close();
      }
    });
  },
);
