import type { ApiKeyRecord, ToolsStore } from "../store/types.js";
import { createTtlCache } from "../util/ttl-cache.js";

/** The `apiKeyCache` option: how long a looked-up key is trusted without asking the store, and how many are kept. */
export interface ApiKeyCacheSettings {
  ttlMs: number;
  maxEntries: number;
}

/**
 * Valid API keys looked up recently, by hash: a request with the same key within `ttlMs` skips
 * the store. Bounded (the oldest entry goes first when full); misses and revoked keys are never
 * kept, so a new key works at once and a revoked one is refused by the store.
 */
export interface ApiKeyCache {
  /** The key's record: from the cache while fresh, else from `load`, kept when it is valid. */
  lookup(hash: string, load: () => Promise<ApiKeyRecord | null>): Promise<ApiKeyRecord | null>;
  /** Drops the key `keyId` (revoked), and anything being loaded meanwhile. */
  forget(keyId: string): void;
  /** Drops every key, and anything being loaded meanwhile: revocations may have been missed. */
  forgetAll(): void;
  readonly size: number;
}

/** The caches of the handlers of this process, by store: `revokeApiKey(store, id)` empties them of that key. */
const cachesByStore = new WeakMap<ToolsStore, Set<ApiKeyCache>>();

/** A cache for the handler over `store`, forgotten by `forgetRevokedKey(store, ...)`. */
export function createApiKeyCache(store: ToolsStore, settings: ApiKeyCacheSettings, now: () => number = Date.now): ApiKeyCache {
  const entries = createTtlCache<string, ApiKeyRecord>(settings, now);
  // Bumped by every forget: a load that started before a revocation must not put the key back.
  let generation = 0;
  const cache: ApiKeyCache = {
    async lookup(hash, load) {
      const hit = entries.get(hash);
      if (hit) return hit;
      const started = generation;
      const record = await load();
      if (record && !record.revokedAt && started === generation) entries.set(hash, Object.freeze(record));
      return record;
    },
    forget(keyId) {
      generation++;
      entries.deleteWhere((record) => record.id === keyId);
    },
    forgetAll() {
      generation++;
      entries.deleteWhere(() => true);
    },
    get size() {
      return entries.size;
    },
  };
  const caches = cachesByStore.get(store) ?? new Set();
  caches.add(cache);
  cachesByStore.set(store, caches);
  return cache;
}

/** Removes `cache` from its store's set (the handler closed). */
export function dropApiKeyCache(store: ToolsStore, cache: ApiKeyCache): void {
  cachesByStore.get(store)?.delete(cache);
}

/** Forgets a revoked key in every cache of this process over `store`. */
export function forgetRevokedKey(store: ToolsStore, keyId: string): void {
  for (const cache of cachesByStore.get(store) ?? []) cache.forget(keyId);
}
