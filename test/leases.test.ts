/** The `leases` option: its default (the store's own leases) passes the LeaseStore suite, and a wrong value is refused at once. */
import { describe, expect, it } from "vitest";
import { createToolsHandler, memoryStore, storeLeases } from "../src/index.js";
import { leaseStoreConformance } from "../src/testing/lease-store.js";

const SECRET = "leases-test-secret-0123456789abcdef";

leaseStoreConformance("storeLeases(memoryStore())", () => storeLeases(memoryStore()));

describe("the leases option", () => {
  it("defaults to the store's leases, and takes a LeaseStore", async () => {
    const store = memoryStore();
    expect(await createToolsHandler({ store, secret: SECRET }).context.leases.acquire("l", "a", 10_000)).toBe(true);
    expect(await store.acquireLease("l", "b", 10_000)).toBe(false);
    const taken: string[] = [];
    const leases = { acquire: (name: string) => (taken.push(name), true), release: () => {} };
    expect(await createToolsHandler({ store, leases, secret: SECRET }).context.leases.acquire("m", "a", 1000)).toBe(true);
    expect(taken).toEqual(["m"]);
  });

  it("refuses a value without acquire and release, naming the option", () => {
    expect(() => createToolsHandler({ leases: { acquire: () => true } as never })).toThrow(/option "leases" must be a LeaseStore with the methods acquire, release/);
  });
});
