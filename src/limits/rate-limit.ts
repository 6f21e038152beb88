import { StoreUnavailableError } from "../core/errors.js";
import { createSafeLogger, type Logger } from "../core/logger.js";
import { memoryRateLimitStore } from "./memory.js";
import type { LimitsHook } from "./types.js";
import { checkRule, type LimitRequest, type RateLimitResult, type RateLimitStore } from "./types.js";

/** Options of `rateLimit`. */
export interface RateLimitOptions {
  /** Requests allowed per window, e.g. 100. */
  limit: number;
  /** The window, in milliseconds, e.g. 60_000 for "100 a minute". */
  windowMs: number;
  /** Where the counts live. Default `memoryRateLimitStore()` (this process only). */
  store?: RateLimitStore;
  /**
   * The bucket a request counts against. Default: the API key (`principal.keyId`). Return
   * `principal.workspaceId` for a limit per workspace, or null to leave a request unlimited.
   */
  key?: (request: LimitRequest) => string | null | undefined;
  /**
   * What happens when the store is down (throws `StoreUnavailableError`): `"allow"` (default) lets
   * the request through and logs a warning at most once a minute; `"refuse"` answers
   * `503 unavailable` with Retry-After.
   */
  onStoreError?: "allow" | "refuse";
  /** Where the store-down warning goes. Default `console`. */
  logger?: Logger;
  /** The sentence of the 429 answer. Default: says to wait for Retry-After. */
  message?: string;
}

const WARN_EVERY_MS = 60_000;

/**
 * A `limits` hook that allows `limit` requests per `windowMs` to each key (the API key unless
 * `key` says otherwise) and refuses the rest with `429 rate_limited` and a Retry-After of whole
 * seconds, rounded up, at least 1. The algorithm is GCRA (see `RateLimitStore`): a burst of
 * `limit`, then one request per `windowMs / limit`. Hooks with different rules may share a store:
 * the rule is part of the bucket's name.
 */
export function rateLimit(options: RateLimitOptions): LimitsHook {
  const rule = { limit: options.limit, windowMs: options.windowMs };
  checkRule(rule, "rateLimit");
  const store = options.store ?? memoryRateLimitStore();
  const keyOf = options.key ?? ((request: LimitRequest) => request.principal.keyId);
  const failOpen = (options.onStoreError ?? "allow") === "allow";
  const logger = createSafeLogger(options.logger ?? console);
  let lastWarning = -Infinity;

  return async (request) => {
    const key = keyOf(request);
    if (key === null || key === undefined) return;
    let result: RateLimitResult;
    try {
      result = await store.hit(`${rule.limit}/${rule.windowMs}:${key}`, rule);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || !failOpen) throw error;
      if (Date.now() - lastWarning >= WARN_EVERY_MS) {
        lastWarning = Date.now();
        logger.log("warn", "rate limit store unavailable; allowing requests unlimited until it is back", { error });
      }
      return;
    }
    if (result.allowed) return;
    return {
      allow: false,
      reason: "rate_limited",
      retryAfterSeconds: Math.max(1, Math.ceil(result.retryAfterMs / 1000)),
      ...(options.message ? { message: options.message } : {}),
    };
  };
}
