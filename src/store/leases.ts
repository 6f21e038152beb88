import type { Awaitable, ToolsStore } from "./types.js";

/**
 * Named, expiring, exclusive leases. The OAuth refresh takes one per connection, so that of every
 * process sharing the lease store exactly one refreshes a token while the others wait for it.
 *
 * Contract, checked by `leaseStoreConformance` from `tools-proxy/testing`:
 * - Every method may return a value or a Promise.
 * - `acquire` is atomic across every process sharing the lease store: while a lease is held and
 *   unexpired, exactly one holder has it. It returns true when the lease was free, expired, or
 *   already held by this holder (which renews it for another `ttlMs`), false when another holder
 *   has it. `ttlMs` is in milliseconds; a holder that crashes loses the lease when it runs out.
 * - `release` frees the lease only if `holder` holds it; a release by anyone else does nothing.
 * - A backend that cannot be reached throws `StoreUnavailableError`: the request answers 503 and
 *   nothing is sent upstream.
 */
export interface LeaseStore {
  acquire(name: string, holder: string, ttlMs: number): Awaitable<boolean>;
  release(name: string, holder: string): Awaitable<void>;
}

/** The `ToolsStore`'s own leases, as a `LeaseStore`: the default of the handler's `leases` option. */
export function storeLeases(store: ToolsStore): LeaseStore {
  return {
    acquire: (name, holder, ttlMs) => store.acquireLease(name, holder, ttlMs, new Date()),
    release: (name, holder) => store.releaseLease(name, holder),
  };
}
