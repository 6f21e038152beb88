import { gcraParams, type RateLimitResult, type RateLimitRule, type RateLimitStore } from "../limits/types.js";
import { connectRedis, type RedisScriptClient, type RedisStoreOptions, runScript } from "./connection.js";
import { RATE_LIMIT_SCRIPT } from "./scripts.js";

/** The store `redisRateLimitStore` returns. */
export interface RedisRateLimitStore extends RateLimitStore {
  hit(key: string, rule: RateLimitRule): Promise<RateLimitResult>;
  /** Disconnects, when the store made the connection from a URL; otherwise does nothing. */
  close(): Promise<void>;
}

/**
 * A `RateLimitStore` in Redis, shared by every instance that uses the same Redis: GCRA in one Lua
 * script (atomic, on the Redis server's clock, so instances' clocks need not agree), one key per
 * bucket that expires when the bucket is full again. `redis` is a URL (the store connects with
 * `connectRedis` and `close()` disconnects) or a client you own (see `RedisScriptClient`).
 * When Redis is down or slow past `timeoutMs`, `hit` throws `StoreUnavailableError`, and
 * `rateLimit`'s `onStoreError` decides.
 */
export function redisRateLimitStore(redis: string | RedisScriptClient, options: RedisStoreOptions = {}): RedisRateLimitStore {
  const prefix = options.prefix ?? "tools-proxy:ratelimit:";
  const timeoutMs = options.timeoutMs ?? 2000;
  const owned = typeof redis === "string" ? connectRedis(redis, { timeoutMs }) : null;
  const client = owned ?? (redis as RedisScriptClient);
  return {
    async hit(key, rule) {
      const { intervalUs, capacityUs } = gcraParams(rule);
      const reply = (await runScript(
        client,
        RATE_LIMIT_SCRIPT,
        [prefix + key],
        [String(intervalUs), String(capacityUs)],
        timeoutMs,
      )) as unknown[];
      const [allowed, retryAfterUs, remaining] = reply.map(Number) as [number, number, number];
      return { allowed: allowed === 1, retryAfterMs: retryAfterUs / 1000, remaining };
    },
    async close() {
      await owned?.close();
    },
  };
}
