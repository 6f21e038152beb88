/**
 * A map whose entries expire `ttlMs` after they were set and that holds at most `maxEntries`
 * (setting one more drops the oldest). For small caches on a request's hot path; nothing is
 * swept, an expired entry is dropped when it is read.
 */
export interface TtlCache<K, V> {
  /** The value while fresh, else undefined. */
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  /** Drops every entry whose value matches. */
  deleteWhere(match: (value: V) => boolean): void;
  readonly size: number;
}

export function createTtlCache<K, V>(settings: { ttlMs: number; maxEntries: number }, now: () => number = Date.now): TtlCache<K, V> {
  const entries = new Map<K, { value: V; expiresAt: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt > now()) return entry.value;
      entries.delete(key);
      return undefined;
    },
    set(key, value) {
      entries.delete(key);
      if (entries.size >= settings.maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, expiresAt: now() + settings.ttlMs });
    },
    deleteWhere(match) {
      for (const [key, entry] of entries) if (match(entry.value)) entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}
