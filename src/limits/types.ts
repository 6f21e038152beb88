import type { Awaitable, Principal } from "../core/principal.js";

/** What the `limits` hook decides for one request. */
export type LimitDecision =
  | { allow: true }
  | { allow: false; reason: "rate_limited"; retryAfterSeconds: number; message?: string }
  | { allow: false; reason: "insufficient_credits"; message?: string };

/**
 * Called before every authenticated request (after the key is checked). Return nothing or
 * `{ allow: true }` to let it through; a refusal answers 429 (with Retry-After) or 402.
 */
export type LimitsHook = (request: {
  principal: Principal;
  /** The route template, e.g. `POST /execute` or `GET /toolkit/:toolkit`. */
  route: string;
  method: string;
}) => LimitAnswer | Promise<LimitAnswer>;

// biome-ignore lint/suspicious/noConfusingVoidType: a hook allows a request by returning nothing.
type LimitAnswer = LimitDecision | void;

/** What a `LimitsHook` is asked about: the caller and the route of one request. */
export type LimitRequest = Parameters<LimitsHook>[0];

/** A rate: at most `limit` requests in any `windowMs` milliseconds. */
export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

/** The outcome of one `RateLimitStore.hit`. */
export interface RateLimitResult {
  allowed: boolean;
  /** Milliseconds until a request of this key would be allowed; 0 when this one was. */
  retryAfterMs: number;
  /** Requests still allowed right now after this one. */
  remaining: number;
}

/**
 * Where rate-limit state lives: `memoryRateLimitStore()` for one process, `redisRateLimitStore()`
 * from `tools-proxy/redis` across instances.
 *
 * Contract, checked by `rateLimitStoreConformance` from `tools-proxy/testing`:
 * - The algorithm is GCRA (a token bucket kept as one timestamp per key): a bucket holds `limit`
 *   requests and refills one every `windowMs / limit` ms. A new key may burst `limit` requests;
 *   then one is allowed per refill interval. No window boundary lets `2 × limit` through.
 * - `hit` counts the request only when it is allowed, and is atomic across every process sharing
 *   the store: of any number of concurrent hits on a full bucket exactly `limit` are allowed.
 * - A refused hit says how long until the next one is allowed (`retryAfterMs` > 0).
 * - Keys are independent; state of a key that has refilled completely may be forgotten.
 * - A backend that cannot be reached throws `StoreUnavailableError`.
 */
export interface RateLimitStore {
  hit(key: string, rule: RateLimitRule): Awaitable<RateLimitResult>;
  /** Optional: releases connections and timers. */
  close?(): Awaitable<void>;
}

/**
 * GCRA in integer microseconds (exact in a double up to 2^53, about the year 2255): the refill
 * interval, and the bucket's depth (`limit` intervals, so a burst is exactly `limit` requests even
 * when `windowMs / limit` is rounded).
 */
export function gcraParams(rule: RateLimitRule): { intervalUs: number; capacityUs: number } {
  const intervalUs = Math.max(1, Math.round((rule.windowMs * 1000) / rule.limit));
  return { intervalUs, capacityUs: intervalUs * rule.limit };
}

/** Checks a rule once, where it is configured; throws a TypeError that names the wrong field. */
export function checkRule(rule: RateLimitRule, where: string): void {
  if (!Number.isSafeInteger(rule.limit) || rule.limit < 1)
    throw new TypeError(`${where}: "limit" must be a whole number of requests, at least 1.`);
  if (!Number.isSafeInteger(rule.windowMs) || rule.windowMs < 1)
    throw new TypeError(`${where}: "windowMs" must be a whole number of milliseconds, at least 1.`);
}
