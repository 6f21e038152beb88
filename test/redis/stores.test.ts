/**
 * The Redis rate-limit and lease stores against a real Redis: their conformance suites (with a
 * URL and with a client of the caller's own), limits shared by two handlers, and what happens when
 * Redis is stopped or hangs (a private redis-server the test kills, and a silent TCP server).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rateLimit, StoreUnavailableError } from "../../src/index.js";
import { connectRedis, redisLeaseStore, redisRateLimitStore } from "../../src/redis/index.js";
import { leaseStoreConformance } from "../../src/testing/lease-store.js";
import { rateLimitStoreConformance } from "../../src/testing/rate-limit-store.js";
import { createHarness, expectError } from "../support/harness.js";
import {
  connectedClient,
  hasRedisServer,
  type PrivateRedis,
  privateRedis,
  redisUnavailableReason,
  SHARED_REDIS_URL,
  silentServer,
} from "../support/redis.js";

const why = await redisUnavailableReason();
if (why) console.warn(`Redis tests skipped: ${why}`);
const prefix = `tp-test:${Math.random().toString(36).slice(2, 10)}:`;

describe.skipIf(!!why)(`Redis stores${why ? ` (skipped: ${why})` : ""}`, () => {
  // Two instances per test (two connections to Redis), raced as two processes would be.
  rateLimitStoreConformance("redisRateLimitStore (URL)", () => redisRateLimitStore(SHARED_REDIS_URL, { prefix }), { instances: 2 });
  leaseStoreConformance("redisLeaseStore (URL)", () => redisLeaseStore(SHARED_REDIS_URL, { prefix }), { instances: 2 });
  leaseStoreConformance("redisLeaseStore (own node-redis client)", async () => {
    const client = await connectedClient();
    const leases = redisLeaseStore(client, { prefix });
    return { ...leases, close: () => client.close() };
  });
  rateLimitStoreConformance("redisRateLimitStore (connectRedis, shared)", () => {
    const redis = connectRedis(SHARED_REDIS_URL);
    return { ...redisRateLimitStore(redis, { prefix }), close: () => redis.close() };
  });

  it("keeps one key per bucket that expires when the bucket is full again, and one per held lease", async () => {
    const client = await connectedClient();
    const limiter = redisRateLimitStore(client, { prefix });
    await limiter.hit("expiry-check", { limit: 4, windowMs: 60_000 });
    const ttl = await client.pTTL(`${prefix}expiry-check`);
    expect(ttl).toBeGreaterThan(14_000); // one request of four: 15 s until full again
    expect(ttl).toBeLessThanOrEqual(15_000);
    const leases = redisLeaseStore(client, { prefix });
    expect(await leases.acquire("l1", "holder-a", 30_000)).toBe(true);
    expect(await client.get(`${prefix}l1`)).toBe("holder-a");
    expect(await client.pTTL(`${prefix}l1`)).toBeGreaterThan(29_000);
    await leases.release("l1", "holder-a");
    expect(await client.exists(`${prefix}l1`)).toBe(0);
    await client.close();
  });

  it("shares one limit between two handlers (instances) using the same Redis", async () => {
    const store = redisRateLimitStore(SHARED_REDIS_URL, { prefix: `${prefix}shared:` });
    const limits = rateLimit({ limit: 4, windowMs: 60_000, store, key: ({ principal }) => principal.workspaceId });
    const a = await createHarness({ limits });
    const b = await createHarness({
      limits: rateLimit({ limit: 4, windowMs: 60_000, store, key: ({ principal }) => principal.workspaceId }),
    });
    try {
      const keyA = (await a.issueAgentKey("agent-a", "ws-shared")).key;
      const keyB = (await b.issueAgentKey("agent-b", "ws-shared")).key;
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await (i % 2 ? a : b).call("GET", "/search", { key: i % 2 ? keyA : keyB })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
      const refused = await a.call("GET", "/search", { key: keyA });
      expectError(refused, 429, "rate_limited");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(14);
      expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(15);
      a.assertNoLeaks();
      b.assertNoLeaks();
    } finally {
      await Promise.all([a.close(), b.close(), store.close()]);
    }
  });
});

describe.skipIf(!!why || !hasRedisServer)(
  `Redis down${!hasRedisServer ? " (skipped: no redis-server to start a private instance)" : why ? ` (skipped: ${why})` : ""}`,
  () => {
    let redis: PrivateRedis;
    beforeAll(async () => {
      redis = await privateRedis();
    });
    afterAll(async () => {
      await redis.stop();
    });

    it("the stores throw StoreUnavailableError while it is stopped, and work again once it is back", async () => {
      const limiter = redisRateLimitStore(redis.url, { timeoutMs: 1000 });
      const leases = redisLeaseStore(redis.url, { timeoutMs: 1000 });
      try {
        expect((await limiter.hit("k", { limit: 5, windowMs: 1000 })).allowed).toBe(true);
        expect(await leases.acquire("l", "holder-a", 10_000)).toBe(true);
        await redis.stop();
        await expect(limiter.hit("k", { limit: 5, windowMs: 1000 })).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(leases.acquire("l2", "holder-a", 10_000)).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(leases.release("l", "holder-a")).rejects.toBeInstanceOf(StoreUnavailableError);
        await redis.start();
        await expect
          .poll(
            () =>
              limiter.hit("k", { limit: 5, windowMs: 1000 }).then(
                (r) => r.allowed,
                () => "down",
              ),
            { timeout: 8000, interval: 100 },
          )
          .toBe(true);
        // Each store has its own connection, which comes back on its own schedule.
        await expect
          .poll(
            () =>
              leases.acquire("l2", "holder-a", 10_000).then(
                (won) => won,
                () => "down",
              ),
            { timeout: 8000, interval: 100 },
          )
          .toBe(true);
      } finally {
        await Promise.all([limiter.close(), leases.close()]);
      }
    });

    it("a Redis that accepts connections and never answers is unavailable after timeoutMs, not a hang", async () => {
      const silent = await silentServer();
      const limiter = redisRateLimitStore(silent.url, { timeoutMs: 300 });
      const leases = redisLeaseStore(silent.url, { timeoutMs: 300 });
      try {
        await expect(limiter.hit("k", { limit: 5, windowMs: 1000 })).rejects.toThrow(/did not answer within 300 ms/);
        await expect(leases.acquire("l", "holder", 1000)).rejects.toBeInstanceOf(StoreUnavailableError);
      } finally {
        await Promise.all([limiter.close(), leases.close()]);
        await silent.close();
      }
    });

    it("a Redis that refuses connections fails commands at once after the first attempt, not after timeoutMs each", async () => {
      const refused = await privateRedis();
      await refused.stop(); // its port now refuses connections
      const limiter = redisRateLimitStore(refused.url, { timeoutMs: 10_000 });
      try {
        await expect(limiter.hit("k", { limit: 5, windowMs: 1000 })).rejects.toBeInstanceOf(StoreUnavailableError);
        const started = performance.now();
        await expect(limiter.hit("k", { limit: 5, windowMs: 1000 })).rejects.toThrow(/not connected/);
        // Waiting for the reconnect would take the full 10 s; failing at once takes microseconds.
        expect(performance.now() - started).toBeLessThan(5_000);
      } finally {
        await limiter.close();
      }
    });

    it("through a handler: the limiter lets requests through and warns by default; with onStoreError refuse it answers 503 with Retry-After", async () => {
      const store = redisRateLimitStore(redis.url, { timeoutMs: 1000 });
      const warnings: string[] = [];
      const open = await createHarness({
        limits: rateLimit({ limit: 1, windowMs: 60_000, store, logger: { warn: (m) => warnings.push(m) } }),
      });
      const closed = await createHarness({ limits: rateLimit({ limit: 1, windowMs: 60_000, store, onStoreError: "refuse" }) });
      try {
        const keyOpen = (await open.issueAgentKey("agent-a")).key;
        const keyClosed = (await closed.issueAgentKey("agent-a")).key;
        expect((await open.call("GET", "/search", { key: keyOpen })).status).toBe(200);
        expect((await open.call("GET", "/search", { key: keyOpen })).status).toBe(429);
        await redis.stop();
        for (let i = 0; i < 3; i++) expect((await open.call("GET", "/search", { key: keyOpen })).status).toBe(200);
        expect(warnings).toEqual([expect.stringMatching(/rate limit store unavailable/)]);
        const refused = await closed.call("POST", "/execute", { key: keyClosed, body: { tool: "CALC_ADD", arguments: { a: 1, b: 2 } } });
        expectError(refused, 503, "unavailable", /retry/i);
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        expect(closed.events.filter((e) => e.event === "tool.executed")).toEqual([]);
        expect(closed.logs.filter((l) => l.level === "error")).toEqual([]);
        open.assertNoLeaks();
        closed.assertNoLeaks();
      } finally {
        await redis.start();
        await Promise.all([open.close(), closed.close(), store.close()]);
      }
    });
  },
);
