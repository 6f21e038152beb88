import type { LeaseStore } from "../store/leases.js";
import { connectRedis, type RedisScriptClient, type RedisStoreOptions, runScript } from "./connection.js";
import { ACQUIRE_LEASE_SCRIPT, RELEASE_LEASE_SCRIPT } from "./scripts.js";

/** The store `redisLeaseStore` returns. */
export interface RedisLeaseStore extends LeaseStore {
  acquire(name: string, holder: string, ttlMs: number): Promise<boolean>;
  release(name: string, holder: string): Promise<void>;
  /** Disconnects, when the store made the connection from a URL; otherwise does nothing. */
  close(): Promise<void>;
}

/**
 * A `LeaseStore` in Redis, for the handler's `leases` option: the OAuth refresh of a connection
 * then happens once across every instance using this Redis, whatever the store. A lease is one key
 * holding its holder's id, set with `SET NX PX` (so a crashed holder's lease expires after
 * `ttlMs`) and released by a compare-and-delete script (so only its holder frees it).
 *
 * `redis` is a URL (the store connects and `close()` disconnects) or a client you own. Redis down,
 * or slower than `timeoutMs`, throws `StoreUnavailableError`: the request answers 503 and nothing
 * is sent upstream. An acquire that timed out may still land on the server later; it is released
 * in the background, and at worst expires after `ttlMs`.
 */
export function redisLeaseStore(redis: string | RedisScriptClient, options: RedisStoreOptions = {}): RedisLeaseStore {
  const prefix = options.prefix ?? "tools-proxy:lease:";
  const timeoutMs = options.timeoutMs ?? 2000;
  const owned = typeof redis === "string" ? connectRedis(redis, { timeoutMs }) : null;
  const client = owned ?? (redis as RedisScriptClient);
  const release = (name: string, holder: string) => runScript(client, RELEASE_LEASE_SCRIPT, [prefix + name], [holder], timeoutMs);
  return {
    async acquire(name, holder, ttlMs) {
      if (!Number.isSafeInteger(ttlMs) || ttlMs < 1)
        throw new TypeError("redisLeaseStore.acquire: ttlMs must be a whole number of milliseconds, at least 1.");
      try {
        return Number(await runScript(client, ACQUIRE_LEASE_SCRIPT, [prefix + name], [holder, String(ttlMs)], timeoutMs)) === 1;
      } catch (error) {
        release(name, holder).catch(() => {});
        throw error;
      }
    },
    async release(name, holder) {
      await release(name, holder);
    },
    async close() {
      await owned?.close();
    },
  };
}
