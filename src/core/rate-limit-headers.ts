import { z } from "zod";
import { isRetryableStatus, parseRetryAfter } from "./tool-error.js";

const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "must be an HTTP header name")
  .transform((name) => name.toLowerCase());

/**
 * A provider's own rate-limit headers, as data: `reset` names the header that says when the limit
 * lifts and how it is written (`epoch-seconds`, `epoch-ms`, `seconds` to wait, or an `http-date`);
 * `remaining`, the header that counts the requests left. With `remaining`, a 403 whose remaining
 * count is 0 is rate limiting (GitHub's way); any other 403 stays a permission failure.
 */
export const rateLimitHeadersSchema = z.strictObject({
  reset: z.strictObject({ header: headerName, as: z.enum(["epoch-seconds", "epoch-ms", "seconds", "http-date"]) }),
  remaining: headerName.optional(),
});

/** A provider's declared rate-limit headers: see `rateLimitHeadersSchema`. */
export type RateLimitHeaders = z.output<typeof rateLimitHeadersSchema>;

/**
 * The longest wait a declared reset gives, in milliseconds: a day, the widest window providers
 * reset on; a later or absurd value is read as this, never as an overflow.
 */
export const MAX_RESET_WAIT_MS = 24 * 60 * 60 * 1000;

/** What a failed answer says about retrying it: see `retryHintOf`. */
export interface RetryHint {
  /** Whether the same call may succeed later (a retryable status, or the provider's rate limit). */
  retryable: boolean;
  /** How long to wait, in milliseconds, when the answer says; undefined otherwise. */
  retryAfterMs: number | undefined;
}

/**
 * Whether an answer may be retried and after how long. `Retry-After` wins when present. Without
 * it, an answer that is rate limiting by the declaration (a 429, or a 403 whose declared
 * `remaining` header is 0) waits until the declared reset, between 0 and `MAX_RESET_WAIT_MS`,
 * unless the declared `remaining` header says requests are left: then the reset is another
 * limit's (a 429 from GitHub's secondary limits) and gives no wait.
 * Epoch forms are measured against the answer's own `Date` header when it has one, so that a skew
 * between the provider's clock and ours does not change the wait. A missing or unreadable header
 * gives no wait; the result is never NaN or negative.
 */
export function retryHintOf(response: Response, declared: RateLimitHeaders | undefined, now = Date.now()): RetryHint {
  const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), now);
  const limited = response.status === 429 || (response.status === 403 && isExhausted(response.headers, declared));
  const retryable = isRetryableStatus(response.status) || limited;
  if (retryAfterMs !== undefined || !limited || !declared || remainingOf(response.headers, declared) > 0) {
    return { retryable, retryAfterMs };
  }
  return { retryable, retryAfterMs: resetWait(response.headers, declared, now) };
}

/** The declared remaining count, or NaN when there is none to read. */
function remainingOf(headers: Headers, declared: RateLimitHeaders | undefined): number {
  // Header values come trimmed (the Fetch standard strips their surrounding whitespace).
  const value = String(declared?.remaining && headers.get(declared.remaining));
  return /^\d+$/.test(value) ? Number(value) : Number.NaN;
}

function isExhausted(headers: Headers, declared: RateLimitHeaders | undefined): boolean {
  return remainingOf(headers, declared) === 0;
}

const NUMBER = /^\d+(\.\d+)?$/;

/** Milliseconds until the declared reset, or undefined when the header is absent or unreadable. */
export function resetWait(headers: Headers, declared: RateLimitHeaders, now = Date.now()): number | undefined {
  const value = headers.get(declared.reset.header) ?? "";
  const { as } = declared.reset;
  if (as !== "http-date" && !NUMBER.test(value)) return undefined;
  const upstreamNow = Date.parse(headers.get("date") ?? "");
  const base = Number.isNaN(upstreamNow) ? now : upstreamNow;
  const wait =
    as === "seconds"
      ? Number(value) * 1000
      : as === "epoch-seconds"
        ? Number(value) * 1000 - base
        : as === "epoch-ms"
          ? Number(value) - base
          : Date.parse(value) - base;
  if (Number.isNaN(wait)) return undefined;
  return Math.min(MAX_RESET_WAIT_MS, Math.max(0, Math.ceil(wait)));
}
