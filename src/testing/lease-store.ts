import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LeaseStore } from "../store/leases.js";

/**
 * Registers a vitest suite that checks the `LeaseStore` contract against the stores `factory`
 * returns (one per test; `close()` is called after it when the store has one). Lease names are
 * fresh and random, so it can run against a shared server. It waits about half a second in all
 * for TTLs to run out.
 */
export function leaseStoreConformance(name: string, factory: () => LeaseStore | Promise<LeaseStore>): void {
  describe(`LeaseStore conformance: ${name}`, () => {
    let leases: LeaseStore;
    beforeEach(async () => {
      leases = await factory();
    });
    afterEach(async () => {
      await (leases as { close?: () => unknown }).close?.();
    });

    it("gives a lease to one holder; the holder renews it, others are refused", async () => {
      const lease = randomName();
      expect(await leases.acquire(lease, "holder-a", 10_000)).toBe(true);
      expect(await leases.acquire(lease, "holder-b", 10_000)).toBe(false);
      expect(await leases.acquire(lease, "holder-a", 10_000)).toBe(true);
      expect(await leases.acquire(randomName(), "holder-b", 10_000)).toBe(true);
    });

    it("ignores a release by a non-holder; after the holder releases, another can acquire", async () => {
      const lease = randomName();
      await leases.release(lease, "nobody");
      expect(await leases.acquire(lease, "holder-a", 10_000)).toBe(true);
      await leases.release(lease, "holder-b");
      expect(await leases.acquire(lease, "holder-b", 10_000)).toBe(false);
      await leases.release(lease, "holder-a");
      expect(await leases.acquire(lease, "holder-b", 10_000)).toBe(true);
      expect(await leases.acquire(lease, "holder-a", 10_000)).toBe(false);
    });

    it("lets another holder acquire once ttlMs has run out (a crashed holder never releases)", async () => {
      const lease = randomName();
      expect(await leases.acquire(lease, "holder-a", 50)).toBe(true);
      await sleep(150);
      expect(await leases.acquire(lease, "holder-b", 10_000)).toBe(true);
      expect(await leases.acquire(lease, "holder-a", 10_000)).toBe(false);
      // The expired holder's late release must not free the new holder's lease.
      await leases.release(lease, "holder-a");
      expect(await leases.acquire(lease, "holder-c", 10_000)).toBe(false);
    });

    it("renewing extends the lease by ttlMs from the renewal", async () => {
      const lease = randomName();
      expect(await leases.acquire(lease, "holder-a", 150)).toBe(true);
      await sleep(100);
      expect(await leases.acquire(lease, "holder-a", 10_000)).toBe(true);
      await sleep(100);
      expect(await leases.acquire(lease, "holder-b", 10_000)).toBe(false);
    });

    it("gives a contended lease to exactly one of 20 concurrent holders, again after each release", async () => {
      const lease = randomName();
      for (let round = 0; round < 3; round++) {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => settle(() => leases.acquire(lease, `holder-${round}-${i}`, 10_000))),
        );
        const winners = results.flatMap((won, i) => (won ? [i] : []));
        expect(winners).toHaveLength(1);
        await leases.release(lease, `holder-${round}-${winners[0]}`);
      }
    });
  });
}

function randomName(): string {
  return `lease_${crypto.randomUUID()}`;
}

function settle<T>(fn: () => T | Promise<T>): Promise<T> {
  return Promise.resolve().then(fn);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
