import { StoreUnavailableError } from "../core/errors.js";
import { createSubscriber, type RedisChannelListener, type RedisSubscriber } from "./subscriber.js";

export type { RedisChannelListener } from "./subscriber.js";

/**
 * The one command the Redis stores send: `EVAL` of a Lua script, in node-redis's shape. A
 * node-redis client (`createClient()` from `redis`, connected) is one as it is; wrap any other
 * client, e.g. ioredis: `{ eval: (script, o) => ioredis.eval(script, o.keys.length, ...o.keys, ...o.arguments) }`.
 */
export interface RedisScriptClient {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/**
 * A client that can also listen on a channel, as `redisApiKeyRevocations` needs: a `connectRedis`
 * connection is one. `listen` calls `listener` for `channel` until the function it returns is
 * called, and tells it each time the subscription is live (again): Redis keeps no message for a
 * subscriber that was away.
 */
export interface RedisPubSubClient extends RedisScriptClient {
  listen(channel: string, listener: RedisChannelListener): () => void;
}

/**
 * A connection made by `connectRedis`: a `RedisPubSubClient` you close when done. Its first
 * `listen` opens a second connection (a subscribed Redis connection can send nothing else).
 */
export interface RedisConnection extends RedisPubSubClient {
  close(): Promise<void>;
}

/** Options shared by the Redis stores. */
export interface RedisStoreOptions {
  /** Prepended to every key the store writes. */
  prefix?: string;
  /** How long one command may take before the store counts Redis as down, in ms. Default 2000. */
  timeoutMs?: number;
}

/**
 * Connects to `url` (`redis://[:password@]host:port[/db]`, or `rediss://` for TLS) with node-redis
 * (the `redis` package, an optional peer dependency) set up for the stores: commands fail at once
 * while the connection is down (no offline queue) and it reconnects in the background, backing
 * off up to 2 s. Commands wait at most `timeoutMs` for the first connection, and fail at once
 * once a connection attempt has failed and no connection is up. A URL node-redis cannot use
 * (another scheme, a path that is not a database number, bad percent-encoding) throws a TypeError
 * here rather than failing every command.
 */
export function connectRedis(url: string, options: { timeoutMs?: number } = {}): RedisConnection {
  checkRedisUrl(url);
  const timeoutMs = options.timeoutMs ?? 2000;
  const client = import("redis").then(
    ({ createClient }) => {
      if (typeof createClient !== "function") throw new TypeError(MISSING_CLIENT);
      const redis = createClient({
        url,
        disableOfflineQueue: true,
        socket: { connectTimeout: timeoutMs, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000) },
      });
      // Connection errors reach callers as StoreUnavailableError on their commands. After one, a
      // command fails at once while the client is not ready rather than waiting for a reconnect.
      const state = { failed: false };
      // Settles when the first connection is up or the first attempt fails, whichever comes first.
      const ready = new Promise<void>((resolve) => {
        redis.once("ready", resolve);
        redis.on("error", () => {
          state.failed = true;
          resolve();
        });
      });
      redis.connect().catch(() => {});
      return { redis, ready, state };
    },
    () => Promise.reject(new TypeError(MISSING_CLIENT)),
  );
  client.catch(() => {}); // reported by the first command instead
  let closed = false;
  let subscriber: RedisSubscriber | null = null;
  return {
    async eval(script, evalOptions) {
      if (closed) throw new StoreUnavailableError("The Redis connection was closed; retry shortly.");
      const { redis, ready, state } = await client;
      if (!redis.isReady && !state.failed) await withTimeout(ready, timeoutMs);
      if (!redis.isReady) throw new StoreUnavailableError("Redis is not connected (it is reconnecting in the background); retry shortly.");
      return redis.eval(script, evalOptions);
    },
    listen(channel, listener) {
      if (closed) throw new StoreUnavailableError("The Redis connection was closed; it cannot listen.");
      subscriber ??= createSubscriber(url, timeoutMs);
      return subscriber.subscribe(channel, listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      await subscriber?.close();
      const { redis } = await client.catch(() => ({ redis: null }));
      if (!redis) return;
      // close() waits for replies to pending commands; a hung server gets timeoutMs, then is cut.
      if (redis.isOpen) await withTimeout(redis.close(), timeoutMs).catch(() => {});
      if (redis.isOpen) redis.destroy();
    },
  };
}

/**
 * Throws a TypeError, without quoting the URL (it may hold a password), unless node-redis can use
 * it: node-redis checks only when it connects, and its error would then fail every command.
 */
function checkRedisUrl(url: string): void {
  const wrong = (what: string) =>
    new TypeError(
      `connectRedis: the Redis URL ${what}; use redis://[[user]:password@]host[:port][/db] (rediss:// for TLS), ` +
        "with special characters of the password percent-encoded.",
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw wrong("is not a URL");
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") throw wrong("must start with redis:// or rediss://");
  if (!/^\/?\d*$/.test(parsed.pathname)) throw wrong("may end with a database number only, such as /0");
  try {
    decodeURIComponent(parsed.username);
    decodeURIComponent(parsed.password);
  } catch {
    throw wrong("has a user name or password that is not valid percent-encoding");
  }
}

const MISSING_CLIENT = "connectRedis needs the `redis` package (node-redis): run `npm install redis`, or pass your own client.";
const REPLY_ERRORS = new Set(["ErrorReply", "SimpleError", "BlobError", "ReplyError"]);
// Replies that mean "not now" rather than "wrong command": loading, failover, a busy script.
const TRANSIENT_REPLY = /^(LOADING|BUSY|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|NOREPLICAS)\b/;

/**
 * Runs a script with a deadline. No answer in time, a lost connection, or a transient reply becomes
 * `StoreUnavailableError`; any other error reply (a bug) is rethrown as it is.
 */
export async function runScript(
  client: RedisScriptClient,
  script: string,
  keys: string[],
  args: string[],
  timeoutMs: number,
): Promise<unknown> {
  try {
    return await withTimeout(
      Promise.resolve().then(() => client.eval(script, { keys, arguments: args })),
      timeoutMs,
    );
  } catch (error) {
    // A programming error, or an error reply that is not transient, is a bug: rethrown as it is.
    if (error instanceof StoreUnavailableError || error instanceof TypeError) throw error;
    if (isReplyError(error) && !TRANSIENT_REPLY.test(error.message)) throw error;
    throw new StoreUnavailableError("Redis is unavailable; retry shortly.", { cause: error });
  }
}

function isReplyError(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  if (REPLY_ERRORS.has(error.name)) return true;
  for (let proto = Object.getPrototypeOf(error); proto && proto !== Error.prototype; proto = Object.getPrototypeOf(proto)) {
    if (REPLY_ERRORS.has((proto as { constructor: { name: string } }).constructor.name)) return true;
  }
  return false;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(`Redis did not answer within ${ms} ms; retry shortly.`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
