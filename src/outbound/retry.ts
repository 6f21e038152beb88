import { z } from "zod";
import { type RateLimitHeaders, retryHintOf } from "../core/rate-limit-headers.js";

export const DEFAULT_BASE_DELAY_MS = 200;
export const DEFAULT_MAX_DELAY_MS = 5_000;

/**
 * Retries of outbound calls (the handler's `retries` option, a toolkit's `retries`): `max` extra
 * attempts after the first (0 turns retries off), a first backoff ceiling `baseDelayMs` that
 * doubles per attempt, and the longest wait `maxDelayMs` (a longer Retry-After is not waited for).
 */
export const retriesSchema = z.strictObject({
  /** Extra attempts after the first one, 0 to 10. */
  max: z.number().int().min(0).max(10),
  /** First backoff ceiling, in milliseconds; it doubles per attempt. Default 200. */
  baseDelayMs: z.number().int().positive().optional(),
  /** Longest wait between attempts, in milliseconds; a longer Retry-After is not waited for. Default 5000. */
  maxDelayMs: z.number().int().positive().optional(),
});

/** Retries of outbound calls, as given: see `retriesSchema`. */
export type RetryOptions = z.infer<typeof retriesSchema>;

/** `RetryOptions` with every default filled in (by `resolveRetryPolicy`). */
export type RetryPolicy = Required<RetryOptions>;

/** Methods safe to send twice (RFC 9110 section 9.2.2). POST and PATCH are never retried. */
export const RETRY_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

/** The policy with its defaults; null when retries are off (absent or `max` 0). */
export function resolveRetryPolicy(options: RetryOptions | undefined): RetryPolicy | null {
  if (!options || options.max <= 0) return null;
  return {
    max: options.max,
    baseDelayMs: options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS,
    maxDelayMs: options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
  };
}

/**
 * Full-jitter exponential backoff: a uniformly random wait in
 * `[0, min(maxDelayMs, baseDelayMs * 2^attempt))`, where `attempt` counts from 0 for the first retry.
 */
export function backoffDelay(
  attempt: number,
  policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}

export interface RetryContext {
  method: string;
  body: unknown;
  policy: RetryPolicy | null;
  signal: AbortSignal;
  /** `performance.now()` value after which no further attempt starts; the last answer is returned instead. */
  deadline?: number;
  /** The provider's declared rate-limit headers: a declared reset is waited for as a Retry-After is. */
  rateLimit?: RateLimitHeaders;
  random?: () => number;
}

/**
 * Sends with `send`, and again after a network error or a retryable answer (`retryHintOf`: a
 * retryable status, or the provider's declared rate limit), up to `policy.max` more times, only for
 * a method in `RETRY_METHODS` and a body that is not a stream (a stream cannot be sent twice). The
 * wait is the upstream's `Retry-After` or declared reset when it gives one, otherwise
 * `backoffDelay`. Such a wait longer than `maxDelayMs`, or a wait that would end past the deadline,
 * stops the retries and returns that answer (so the caller sees its Retry-After).
 * Waits end at once when `signal` aborts. Without a policy, this is exactly one `send()`.
 */
export async function sendWithRetries(send: () => Promise<Response>, context: RetryContext): Promise<Response> {
  const { policy, signal, deadline } = context;
  if (!policy || !RETRY_METHODS.has(context.method) || context.body instanceof ReadableStream) return send();
  const fits = (delay: number) => deadline === undefined || performance.now() + delay < deadline;
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await send();
    } catch (error) {
      const delay = backoffDelay(attempt, policy, context.random);
      if (signal.aborted || attempt >= policy.max || !fits(delay)) throw error;
      await sleep(delay, signal);
      continue;
    }
    if (attempt >= policy.max) return response;
    const { retryable, retryAfterMs: retryAfter } = retryHintOf(response, context.rateLimit);
    if (!retryable) return response;
    if (retryAfter !== undefined && retryAfter > policy.maxDelayMs) return response;
    const delay = retryAfter ?? backoffDelay(attempt, policy, context.random);
    if (!fits(delay)) return response;
    await response.body?.cancel().catch(() => {});
    await sleep(delay, signal);
  }
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
