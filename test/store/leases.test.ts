/**
 * The `leases` option: its default (the store's own leases) passes the LeaseStore suite, and a
 * wrong value is refused at once. That the handler uses them is shown by behaviour: one refresh
 * between two handlers sharing a store (test/oauth/refresh.test.ts) or a Redis lease store
 * (test/oauth/redis-lease.test.ts).
 */
import { describe, expect, it } from "vitest";
import { createToolsHandler, memoryStore, storeLeases } from "../../src/index.js";
import { leaseStoreConformance } from "../../src/testing/lease-store.js";

leaseStoreConformance("storeLeases(memoryStore())", () => storeLeases(memoryStore()));

describe("the leases option", () => {
  it("refuses a value without acquire and release, naming the option", () => {
    expect(() => createToolsHandler({ leases: { acquire: () => true } as never })).toThrow(
      /option "leases" must be a LeaseStore with the methods acquire, release/,
    );
  });
});
