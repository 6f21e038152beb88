/**
 * Redis for what several instances must share: the rate limiter's counts, the OAuth refresh
 * lease, and the news of a revoked API key. Needs Redis 6 or later; `redis` (node-redis) is an
 * optional peer dependency, used when you pass a URL.
 *
 *   import { connectRedis, redisApiKeyRevocations, redisLeaseStore, redisRateLimitStore } from "tools-proxy/redis";
 *   const redis = connectRedis(process.env.REDIS_URL!);
 *   createToolsHandler({
 *     leases: redisLeaseStore(redis),
 *     limits: rateLimit({ limit: 100, windowMs: 60_000, store: redisRateLimitStore(redis) }),
 *     apiKeyRevocations: redisApiKeyRevocations(redis),
 *   });
 */
export {
  connectRedis,
  type RedisChannelListener,
  type RedisConnection,
  type RedisPubSubClient,
  type RedisScriptClient,
  type RedisStoreOptions,
} from "./connection.js";
export { type RedisLeaseStore, redisLeaseStore } from "./lease-store.js";
export { type RedisRateLimitStore, redisRateLimitStore } from "./rate-limit-store.js";
export { type RedisApiKeyRevocations, type RedisApiKeyRevocationsOptions, redisApiKeyRevocations } from "./revocations.js";
