/**
 * `serve --rate-limit N/PERIOD` (env TOOLS_PROXY_RATE_LIMIT): the text form of a `rateLimit` rule,
 * e.g. `600/1m`, `10/s`, `100/1h`, `5000/1d`, and `off`. The limiter itself is the library's
 * (src/limits): GCRA, a burst of N, then one request every PERIOD / N.
 */
import type { RateLimitRule } from "../limits/types.js";

const UNITS: Record<string, { ms: number; name: string }> = {
  s: { ms: 1000, name: "second" },
  m: { ms: 60_000, name: "minute" },
  h: { ms: 3_600_000, name: "hour" },
  d: { ms: 86_400_000, name: "day" },
};
const UNIT_WORDS: Record<string, string> = { sec: "s", second: "s", min: "m", minute: "m", hour: "h", day: "d" };
const MAX_REQUESTS = 1_000_000_000;
const MAX_PERIOD_MS = 31 * UNITS.d!.ms;

/** What a `--rate-limit` value must look like, for error sentences. */
export const RATE_LIMIT_FORM =
  "REQUESTS/PERIOD, such as 600/1m, 10/s or 100/1h (PERIOD: an optional whole number and s, m, h or d), or off";

/**
 * The rule of a `--rate-limit` value; null for `off`. A malformed value throws an Error whose
 * message is a sentence naming `from` (the flag or the environment variable) and the expected form.
 */
export function parseRateLimit(text: string, from: string): RateLimitRule | null {
  const value = text.trim().toLowerCase();
  if (value === "off") return null;
  const match = /^(\d+)\s*\/\s*(\d*)\s*([a-z]+)$/.exec(value);
  const word = match?.[3] ?? "";
  const unit = UNITS[word] ? word : (UNIT_WORDS[word] ?? UNIT_WORDS[word.replace(/s$/, "")]);
  if (!match || !unit) throw new Error(`${from} must be ${RATE_LIMIT_FORM}; got "${text}".`);
  const limit = Number(match[1]);
  const count = match[2] ? Number(match[2]) : 1;
  if (limit < 1 || limit > MAX_REQUESTS)
    throw new Error(`${from} must allow from 1 to ${MAX_REQUESTS} requests per period; got "${text}".`);
  const windowMs = count * UNITS[unit]!.ms;
  if (count < 1 || windowMs > MAX_PERIOD_MS) throw new Error(`${from} must have a period from 1 s to 31 d; got "${text}".`);
  return { limit, windowMs };
}

/** "600 requests per minute", "100 requests per 15 minutes", "1 request per second". */
export function describeRateLimit(rule: RateLimitRule): string {
  const requests = `${rule.limit} request${rule.limit === 1 ? "" : "s"}`;
  // The largest unit that divides the period evenly names it.
  for (const { ms, name } of [UNITS.d!, UNITS.h!, UNITS.m!, UNITS.s!]) {
    if (rule.windowMs % ms !== 0) continue;
    const count = rule.windowMs / ms;
    return `${requests} per ${count === 1 ? name : `${count} ${name}s`}`;
  }
  return `${requests} per ${rule.windowMs} ms`;
}
