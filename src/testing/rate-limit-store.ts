import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RateLimitStore } from "../limits/types.js";

/**
 * Registers a vitest suite that checks the `RateLimitStore` contract (GCRA, atomic hits) against
 * the stores `factory` returns (one per test, closed after it). Keys are fresh and random, so it
 * can run against a shared server. Windows are long (minutes) so that no bucket refills during
 * a test; one case waits about 550 ms for a short one to refill.
 */
export function rateLimitStoreConformance(name: string, factory: () => RateLimitStore | Promise<RateLimitStore>): void {
  describe(`RateLimitStore conformance: ${name}`, () => {
    let store: RateLimitStore;
    beforeEach(async () => {
      store = await factory();
    });
    afterEach(async () => {
      await store.close?.();
    });

    it("allows a burst of `limit`, counting down `remaining`, then refuses with the refill interval to wait", async () => {
      const key = randomKey();
      const rule = { limit: 4, windowMs: 120_000 };
      const results = [];
      for (let i = 0; i < 6; i++) results.push(await store.hit(key, rule));
      expect(results.map((r) => [r.allowed, r.remaining])).toEqual([
        [true, 3],
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
        [false, 0],
      ]);
      expect(results.slice(0, 4).every((r) => r.retryAfterMs === 0)).toBe(true);
      // One request refills every 30 s; the refusals came within a moment of the burst.
      for (const refused of results.slice(4)) {
        expect(refused.retryAfterMs).toBeGreaterThan(25_000);
        expect(refused.retryAfterMs).toBeLessThanOrEqual(30_000);
      }
    });

    it("does not count refused requests: the wait does not grow while a client keeps asking", async () => {
      const key = randomKey();
      const rule = { limit: 1, windowMs: 600_000 };
      expect((await store.hit(key, rule)).allowed).toBe(true);
      const waits = [];
      for (let i = 0; i < 5; i++) waits.push((await store.hit(key, rule)).retryAfterMs);
      expect(Math.max(...waits)).toBeLessThanOrEqual(600_000);
      expect(Math.max(...waits) - Math.min(...waits)).toBeLessThan(5_000);
    });

    it("keeps keys independent", async () => {
      const rule = { limit: 2, windowMs: 60_000 };
      const a = randomKey();
      const b = randomKey();
      await store.hit(a, rule);
      await store.hit(a, rule);
      expect((await store.hit(a, rule)).allowed).toBe(false);
      expect(await store.hit(b, rule)).toMatchObject({ allowed: true, remaining: 1 });
    });

    it("allows exactly `limit` of many concurrent hits on one key", async () => {
      const key = randomKey();
      const rule = { limit: 7, windowMs: 300_000 };
      const results = await Promise.all(Array.from({ length: 40 }, () => Promise.resolve().then(() => store.hit(key, rule))));
      expect(results.filter((r) => r.allowed)).toHaveLength(7);
    });

    it("allows a burst whose interval does not divide the window evenly", async () => {
      const key = randomKey();
      const rule = { limit: 3, windowMs: 1000 * 60 };
      const allowed = [];
      for (let i = 0; i < 4; i++) allowed.push((await store.hit(key, rule)).allowed);
      expect(allowed).toEqual([true, true, true, false]);
      const seven = { limit: 7, windowMs: 100_000 };
      const key7 = randomKey();
      let count = 0;
      for (let i = 0; i < 9; i++) if ((await store.hit(key7, seven)).allowed) count++;
      expect(count).toBe(7);
    });

    it("refills one request per interval", async () => {
      const key = randomKey();
      const rule = { limit: 2, windowMs: 1000 }; // one request every 500 ms
      expect((await store.hit(key, rule)).allowed).toBe(true);
      expect((await store.hit(key, rule)).allowed).toBe(true);
      const refused = await store.hit(key, rule);
      expect(refused.allowed).toBe(false);
      await sleep(refused.retryAfterMs + 30);
      expect((await store.hit(key, rule)).allowed).toBe(true);
      expect((await store.hit(key, rule)).allowed).toBe(false);
    });
  });
}

function randomKey(): string {
  return `rl_${crypto.randomUUID()}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
