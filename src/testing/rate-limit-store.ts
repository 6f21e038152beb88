import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RateLimitStore } from "../limits/types.js";

/** Options of `rateLimitStoreConformance`. */
export interface RateLimitStoreConformanceOptions {
  /**
   * Makes this many instances per test (each by its own call of `factory`, over the same data, as
   * processes sharing a server) and hits one key from all of them at once: the limit holds across
   * them. Default 1. A store that counts in one process cannot pass it.
   */
  instances?: number;
}

/**
 * Registers a vitest suite that checks the `RateLimitStore` contract (GCRA, atomic hits) against
 * the stores `factory` returns (one per test, closed after it). Keys are fresh and random, so it
 * can run against a shared server. Windows are long (minutes) so that no bucket refills during
 * a test; one case waits about 550 ms for a short one to refill.
 */
export function rateLimitStoreConformance(
  name: string,
  factory: () => RateLimitStore | Promise<RateLimitStore>,
  options: RateLimitStoreConformanceOptions = {},
): void {
  const count = Math.max(1, options.instances ?? 1);
  describe(`RateLimitStore conformance: ${name}${count > 1 ? ` (${count} instances)` : ""}`, () => {
    let instances: RateLimitStore[] = [];
    let store: RateLimitStore;
    beforeEach(async () => {
      instances = [];
      for (let i = 0; i < count; i++) instances.push(await factory());
      store = instances[0]!;
    });
    afterEach(async () => {
      for (const instance of instances) await instance.close?.();
    });

    it("allows a burst of `limit`, counting down `remaining`, then refuses with the refill interval to wait", async () => {
      const key = randomKey();
      const rule = { limit: 4, windowMs: 120_000 };
      const results = [];
      for (let i = 0; i < 6; i++) results.push(await store.hit(key, rule));
      expect(
        results.map((r) => [r.allowed, r.remaining]),
        "a burst of `limit` is allowed, counting remaining down, then refused",
      ).toEqual([
        [true, 3],
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
        [false, 0],
      ]);
      expect(
        results.slice(0, 4).map((r) => r.retryAfterMs),
        "an allowed hit has nothing to wait",
      ).toEqual([0, 0, 0, 0]);
      // One request refills every 30 s; the refusals came within a moment of the burst.
      for (const refused of results.slice(4)) {
        expect(refused.retryAfterMs, "a refusal waits about one refill interval (windowMs / limit)").toBeGreaterThan(25_000);
        expect(refused.retryAfterMs, "and never more").toBeLessThanOrEqual(30_000);
      }
    });

    it("does not count refused requests: the wait does not grow while a client keeps asking", async () => {
      const key = randomKey();
      const rule = { limit: 1, windowMs: 600_000 };
      expect((await store.hit(key, rule)).allowed, "the first hit is allowed").toBe(true);
      const waits = [];
      for (let i = 0; i < 5; i++) waits.push((await store.hit(key, rule)).retryAfterMs);
      expect(Math.max(...waits), "a refusal waits at most one window").toBeLessThanOrEqual(600_000);
      expect(Math.max(...waits) - Math.min(...waits), "refused hits do not make the wait grow").toBeLessThan(5_000);
    });

    it("keeps keys independent", async () => {
      const rule = { limit: 2, windowMs: 60_000 };
      const a = randomKey();
      const b = randomKey();
      await store.hit(a, rule);
      await store.hit(a, rule);
      expect((await store.hit(a, rule)).allowed, "a spent key is refused").toBe(false);
      expect(await store.hit(b, rule), "another key has its own bucket").toMatchObject({ allowed: true, remaining: 1 });
    });

    it("allows exactly `limit` of many concurrent hits on one key", async () => {
      const key = randomKey();
      const rule = { limit: 7, windowMs: 300_000 };
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => Promise.resolve().then(() => instances[i % instances.length]!.hit(key, rule))),
      );
      expect(
        results.filter((r) => r.allowed),
        "exactly `limit` of concurrent hits are allowed, across every instance",
      ).toHaveLength(7);
    });

    it("allows a burst whose interval does not divide the window evenly", async () => {
      const key = randomKey();
      const rule = { limit: 3, windowMs: 1000 * 60 };
      const allowed = [];
      for (let i = 0; i < 4; i++) allowed.push((await store.hit(key, rule)).allowed);
      expect(allowed, "a burst of 3 in a window of 60 s").toEqual([true, true, true, false]);
      const seven = { limit: 7, windowMs: 100_000 };
      const key7 = randomKey();
      let count = 0;
      for (let i = 0; i < 9; i++) if ((await store.hit(key7, seven)).allowed) count++;
      expect(count, "a burst of 7 in a window of 100 s").toBe(7);
    });

    it("refills one request per interval", async () => {
      const key = randomKey();
      const rule = { limit: 2, windowMs: 1000 }; // one request every 500 ms
      expect((await store.hit(key, rule)).allowed, "the burst's first hit").toBe(true);
      expect((await store.hit(key, rule)).allowed, "the burst's second hit").toBe(true);
      const refused = await store.hit(key, rule);
      expect(refused.allowed, "past the burst, refused").toBe(false);
      await sleep(refused.retryAfterMs + 30);
      expect((await store.hit(key, rule)).allowed, "after retryAfterMs one request has refilled").toBe(true);
      expect((await store.hit(key, rule)).allowed, "and only one").toBe(false);
    });
  });
}

function randomKey(): string {
  return `rl_${crypto.randomUUID()}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
