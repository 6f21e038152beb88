import { gcraParams, type RateLimitResult, type RateLimitRule, type RateLimitStore } from "./types.js";

/** Options of `memoryRateLimitStore`. */
export interface MemoryRateLimitStoreOptions {
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
  /** At most how often full buckets are forgotten, in milliseconds. Default 60 000. */
  sweepIntervalMs?: number;
}

/** A `RateLimitStore` that also reports how many keys it holds (for tests and metrics). */
export interface MemoryRateLimitStore extends RateLimitStore {
  /** Synchronous: the state is in this process. */
  hit(key: string, rule: RateLimitRule): RateLimitResult;
  /** Keys whose bucket is not yet full again. */
  readonly size: number;
}

/**
 * The in-process `RateLimitStore` (GCRA; see `RateLimitStore`). State is one number per key
 * whose bucket is not full; a sweep, at most once per `sweepIntervalMs` and run by a `hit`,
 * forgets keys that have refilled, so memory follows the keys active in the last window, not
 * every key ever seen. Limits are per process: use `redisRateLimitStore` to share them.
 */
export function memoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): MemoryRateLimitStore {
  const now = options.now ?? Date.now;
  const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
  // Theoretical arrival time of each key's next request, in microseconds.
  const tats = new Map<string, number>();
  let lastSweep = now();

  const sweep = (nowUs: number) => {
    for (const [key, tat] of tats) if (tat <= nowUs) tats.delete(key);
  };

  return {
    get size() {
      return tats.size;
    },
    hit(key, rule) {
      const nowMs = now();
      const nowUs = nowMs * 1000;
      if (nowMs - lastSweep >= sweepIntervalMs) {
        lastSweep = nowMs;
        sweep(nowUs);
      }
      const { intervalUs, capacityUs } = gcraParams(rule);
      const tat = Math.max(tats.get(key) ?? nowUs, nowUs);
      const next = tat + intervalUs;
      if (next - nowUs > capacityUs) return { allowed: false, retryAfterMs: (next - nowUs - capacityUs) / 1000, remaining: 0 };
      tats.set(key, next);
      return { allowed: true, retryAfterMs: 0, remaining: Math.floor((capacityUs - (next - nowUs)) / intervalUs) };
    },
  };
}
