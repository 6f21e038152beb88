import type { ToolsStore } from "../store/types.js";
import type { ApiKeyCache } from "./key-cache.js";

/** What `ApiKeyRevocations.subscribe` calls. */
export interface ApiKeyRevocationListener {
  /** The key `keyId` was revoked, on this instance or another. */
  revoked(keyId: string): void;
  /**
   * Revocations may have been missed: the subscription has just started, or has come back after a
   * disconnection. Keys cached before may since have been revoked.
   */
  missed(): void;
}

/**
 * How the instances of a deployment tell each other that an API key was revoked, so that each
 * drops it from its API key cache at once instead of after the cache's `ttlMs`: the handler's
 * `apiKeyRevocations` option and `revokeApiKey`'s `revocations`. `redisApiKeyRevocations` from
 * `tools-proxy/redis` is one; any publish-subscribe bus can be another.
 */
export interface ApiKeyRevocations {
  /**
   * Tells every subscribed instance that `keyId` was revoked. It may reject (the bus is down): the
   * revocation stands, and the other instances refuse the key when their cache entry expires.
   */
  publish(keyId: string): Promise<void>;
  /**
   * Calls `listener` for each revocation any instance publishes, and `listener.missed()` each time
   * the subscription is (again) live, since messages sent before it may be lost. Returns a
   * function that ends the subscription.
   */
  subscribe(listener: ApiKeyRevocationListener): () => void;
}

/** The revocation buses of the handlers of this process, by store: `revokeApiKey(store, id)` publishes on them. */
const busesByStore = new WeakMap<ToolsStore, Map<ApiKeyRevocations, number>>();

/**
 * Joins a handler to `revocations`: its `cache` (null when off) forgets a key any instance
 * revokes, and everything when revocations may have been missed; and `revokeApiKey(store, ...)`
 * in this process publishes on it. Returns what the handler calls when it closes.
 */
export function joinRevocations(store: ToolsStore, cache: ApiKeyCache | null, revocations: ApiKeyRevocations): () => void {
  const buses = busesByStore.get(store) ?? new Map<ApiKeyRevocations, number>();
  buses.set(revocations, (buses.get(revocations) ?? 0) + 1);
  busesByStore.set(store, buses);
  const unsubscribe = cache
    ? revocations.subscribe({ revoked: (keyId) => cache.forget(keyId), missed: () => cache.forgetAll() })
    : () => {};
  let joined = true;
  return () => {
    if (!joined) return;
    joined = false;
    unsubscribe();
    const count = (buses.get(revocations) ?? 1) - 1;
    if (count > 0) buses.set(revocations, count);
    else buses.delete(revocations);
  };
}

/**
 * Publishes the revocation of `keyId` on the buses of this process's handlers over `store` and on
 * `also`, once each. A bus that fails is passed over: the key is revoked in the store whatever
 * happens here, and the instances it did not reach refuse the key when their cache entry expires.
 */
export async function publishRevocation(store: ToolsStore, keyId: string, also?: ApiKeyRevocations): Promise<void> {
  const buses = new Set(busesByStore.get(store)?.keys());
  if (also) buses.add(also);
  await Promise.allSettled([...buses].map((bus) => Promise.resolve().then(() => bus.publish(keyId))));
}
