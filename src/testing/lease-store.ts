import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LeaseStore } from "../store/leases.js";

/** Options of `leaseStoreConformance`. */
export interface LeaseStoreConformanceOptions {
  /**
   * Makes this many instances per test (each by its own call of `factory`, over the same data, as
   * processes sharing a server) and races them: a lease is held by one holder across all of them.
   * Default 1. A lease store that lives in one process cannot pass it.
   */
  instances?: number;
}

/**
 * Registers a vitest suite that checks the `LeaseStore` contract against the stores `factory`
 * returns (one per test; `close()` is called after it when the store has one). Lease names are
 * fresh and random, so it can run against a shared server. It waits about half a second in all
 * for TTLs to run out. Each failing assertion says which clause broke.
 */
export function leaseStoreConformance(
  name: string,
  factory: () => LeaseStore | Promise<LeaseStore>,
  options: LeaseStoreConformanceOptions = {},
): void {
  const count = Math.max(1, options.instances ?? 1);
  describe(`LeaseStore conformance: ${name}${count > 1 ? ` (${count} instances)` : ""}`, () => {
    let instances: LeaseStore[] = [];
    let leases: LeaseStore;
    /** Another instance over the same data (the first again when there is only one). */
    let other: LeaseStore;
    beforeEach(async () => {
      instances = [];
      for (let i = 0; i < count; i++) instances.push(await factory());
      leases = instances[0]!;
      other = instances[instances.length - 1]!;
    });
    afterEach(async () => {
      for (const instance of instances) await (instance as { close?: () => unknown }).close?.();
    });

    it("gives a lease to one holder; the holder renews it, others are refused", async () => {
      const lease = randomName();
      expect(await leases.acquire(lease, "holder-a", 10_000), "a free lease is taken").toBe(true);
      expect(await other.acquire(lease, "holder-b", 10_000), "a held lease is refused to another holder").toBe(false);
      expect(await leases.acquire(lease, "holder-a", 10_000), "the holder renews its own lease").toBe(true);
      expect(await other.acquire(randomName(), "holder-b", 10_000), "another lease is free").toBe(true);
    });

    it("ignores a release by a non-holder; after the holder releases, another can acquire", async () => {
      const lease = randomName();
      await leases.release(lease, "nobody");
      expect(await leases.acquire(lease, "holder-a", 10_000), "releasing a free lease changes nothing").toBe(true);
      await other.release(lease, "holder-b");
      expect(await other.acquire(lease, "holder-b", 10_000), "a release by a non-holder frees nothing").toBe(false);
      await other.release(lease, "holder-a");
      expect(await leases.acquire(lease, "holder-b", 10_000), "the holder's release frees the lease").toBe(true);
      expect(await other.acquire(lease, "holder-a", 10_000), "and it is the new holder's").toBe(false);
    });

    it("lets another holder acquire once ttlMs has run out (a crashed holder never releases)", async () => {
      const lease = randomName();
      expect(await leases.acquire(lease, "holder-a", 50), "a free lease is taken").toBe(true);
      await sleep(150);
      expect(await other.acquire(lease, "holder-b", 10_000), "after ttlMs another holder may take it").toBe(true);
      expect(await leases.acquire(lease, "holder-a", 10_000), "and the expired holder is refused").toBe(false);
      // The expired holder's late release must not free the new holder's lease.
      await leases.release(lease, "holder-a");
      expect(await other.acquire(lease, "holder-c", 10_000), "an expired holder's late release frees nothing").toBe(false);
    });

    it("renewing extends the lease by ttlMs from the renewal", async () => {
      const lease = randomName();
      expect(await leases.acquire(lease, "holder-a", 150), "a free lease is taken").toBe(true);
      await sleep(100);
      expect(await leases.acquire(lease, "holder-a", 10_000), "the holder renews before expiry").toBe(true);
      await sleep(100);
      expect(await other.acquire(lease, "holder-b", 10_000), "the renewal counts from its own time").toBe(false);
    });

    it("gives a contended lease to exactly one of 20 concurrent holders, again after each release", async () => {
      const lease = randomName();
      for (let round = 0; round < 3; round++) {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            settle(() => instances[i % instances.length]!.acquire(lease, `holder-${round}-${i}`, 10_000)),
          ),
        );
        const winners = results.flatMap((won, i) => (won ? [i] : []));
        expect(winners, "exactly one concurrent holder gets the lease").toHaveLength(1);
        await instances[winners[0]! % instances.length]!.release(lease, `holder-${round}-${winners[0]}`);
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
