/**
 * Reading a provider's declared rate-limit headers: every `as` form, the upstream's clock against
 * ours, and values that are missing, garbage, negative or huge (never NaN, never above a day).
 */

import { describe, expect, it } from "vitest";
import {
  MAX_RESET_WAIT_MS,
  type RateLimitHeaders,
  rateLimitHeadersSchema,
  resetWait,
  retryHintOf,
} from "../../src/core/rate-limit-headers.js";

const NOW = Date.parse("2026-03-01T12:00:00Z");
const declare = (as: RateLimitHeaders["reset"]["as"], remaining?: string): RateLimitHeaders =>
  rateLimitHeadersSchema.parse({ reset: { header: "X-RateLimit-Reset", as }, ...(remaining ? { remaining } : {}) });
const answer = (status: number, headers: Record<string, string>) => new Response(null, { status, headers });
const wait = (as: RateLimitHeaders["reset"]["as"], value: string, extra: Record<string, string> = {}) =>
  resetWait(new Headers({ "x-ratelimit-reset": value, ...extra }), declare(as), NOW);

describe("resetWait: each form of the reset header", () => {
  it("epoch-seconds, epoch-ms, seconds and http-date", () => {
    expect(wait("epoch-seconds", String(NOW / 1000 + 90))).toBe(90_000);
    expect(wait("epoch-ms", String(NOW + 1_500))).toBe(1_500);
    expect(wait("seconds", "42")).toBe(42_000);
    expect(wait("seconds", "0.25")).toBe(250);
    expect(wait("http-date", new Date(NOW + 30_000).toUTCString())).toBe(30_000);
  });

  it("measures epochs and dates against the answer's Date header, so a skewed clock does not move the wait", () => {
    const upstreamNow = NOW + 3_600_000; // the provider's clock is an hour ahead of ours
    const date = new Date(upstreamNow).toUTCString();
    expect(wait("epoch-seconds", String(upstreamNow / 1000 + 60), { date })).toBe(60_000);
    expect(wait("epoch-ms", String(upstreamNow + 60_000), { date })).toBe(60_000);
    expect(wait("http-date", new Date(upstreamNow + 60_000).toUTCString(), { date })).toBe(60_000);
    expect(wait("seconds", "60", { date })).toBe(60_000);
    // An unreadable Date falls back to our clock.
    expect(wait("epoch-seconds", String(NOW / 1000 + 5), { date: "yesterday-ish" })).toBe(5_000);
  });

  it("a reset in the past waits 0", () => {
    expect(wait("epoch-seconds", String(NOW / 1000 - 30))).toBe(0);
    expect(wait("epoch-ms", "1")).toBe(0);
    expect(wait("http-date", "Thu, 01 Jan 1970 00:00:00 GMT")).toBe(0);
    expect(wait("seconds", "0")).toBe(0);
  });

  it("caps a huge value at a day, never an overflow", () => {
    expect(MAX_RESET_WAIT_MS).toBe(86_400_000);
    expect(wait("seconds", "999999999999")).toBe(MAX_RESET_WAIT_MS);
    expect(wait("seconds", "9".repeat(400))).toBe(MAX_RESET_WAIT_MS); // Infinity as a number
    expect(wait("epoch-seconds", "99999999999")).toBe(MAX_RESET_WAIT_MS);
    expect(wait("epoch-ms", String(NOW + 2 * MAX_RESET_WAIT_MS))).toBe(MAX_RESET_WAIT_MS);
    expect(wait("http-date", "Fri, 01 Jan 2100 00:00:00 GMT")).toBe(MAX_RESET_WAIT_MS);
  });

  it.each([
    ["epoch-seconds", "-5"],
    ["seconds", "-5"],
    ["epoch-ms", "-1"],
    ["seconds", "NaN"],
    ["seconds", "Infinity"],
    ["seconds", "1e3"],
    ["seconds", "0x10"],
    ["epoch-seconds", "12abc"],
    ["epoch-seconds", ""],
    ["seconds", "   "],
    ["http-date", "not a date"],
    ["http-date", ""],
  ] as const)("%s %j is unreadable: no wait", (as, value) => {
    expect(wait(as, value)).toBeUndefined();
  });

  it("no header: no wait; whitespace around a number is allowed", () => {
    expect(resetWait(new Headers(), declare("seconds"), NOW)).toBeUndefined();
    expect(wait("seconds", " 3 ")).toBe(3_000);
  });
});

describe("retryHintOf: when an answer is the provider's rate limit", () => {
  const github = declare("epoch-seconds", "X-RateLimit-Remaining");
  const reset = String(NOW / 1000 + 600);

  it("a 403 with none remaining is rate limiting: retryable, waiting until the reset", () => {
    const hint = retryHintOf(answer(403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset }), github, NOW);
    expect(hint).toEqual({ retryable: true, retryAfterMs: 600_000 });
  });

  it("a 403 with requests remaining, or no remaining header, stays a permission failure", () => {
    const answers: Array<Record<string, string>> = [
      { "x-ratelimit-remaining": "4999", "x-ratelimit-reset": reset },
      { "x-ratelimit-reset": reset },
      {},
    ];
    for (const headers of answers) {
      expect(retryHintOf(answer(403, headers), github, NOW)).toEqual({ retryable: false, retryAfterMs: undefined });
    }
    expect(retryHintOf(answer(403, { "x-ratelimit-remaining": "0x0" }), github, NOW).retryable).toBe(false);
    expect(retryHintOf(answer(403, { "x-ratelimit-remaining": "-0" }), github, NOW).retryable).toBe(false);
    expect(retryHintOf(answer(403, { "x-ratelimit-remaining": "00" }), github, NOW).retryable).toBe(true);
    expect(retryHintOf(answer(403, { "x-ratelimit-remaining": "" }), github, NOW).retryable).toBe(false);
  });

  it("a 403 is never rate limiting for a provider that declares no remaining header", () => {
    const hint = retryHintOf(answer(403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset }), declare("epoch-seconds"), NOW);
    expect(hint).toEqual({ retryable: false, retryAfterMs: undefined });
  });

  it("a 429 waits until the declared reset, unless the remaining header says requests are left", () => {
    expect(retryHintOf(answer(429, { "x-ratelimit-reset": reset }), github, NOW)).toEqual({ retryable: true, retryAfterMs: 600_000 });
    const exhausted = { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset };
    expect(retryHintOf(answer(429, exhausted), github, NOW)).toEqual({ retryable: true, retryAfterMs: 600_000 });
    // GitHub's secondary limits: a 429 with requests left in the primary window, whose reset is not this limit's.
    const secondary = { "x-ratelimit-remaining": "4000", "x-ratelimit-reset": reset };
    expect(retryHintOf(answer(429, secondary), github, NOW)).toEqual({ retryable: true, retryAfterMs: undefined });
    expect(
      retryHintOf(answer(429, { "x-ratelimit-remaining": "1", "x-ratelimit-reset": reset }), github, NOW).retryAfterMs,
    ).toBeUndefined();
    expect(retryHintOf(answer(429, { "x-ratelimit-remaining": "n/a", "x-ratelimit-reset": reset }), github, NOW).retryAfterMs).toBe(
      600_000,
    );
    // A provider that declares no remaining header: the reset is read whatever such a header says.
    expect(retryHintOf(answer(429, secondary), declare("epoch-seconds"), NOW).retryAfterMs).toBe(600_000);
    expect(retryHintOf(answer(429, { "x-ratelimit-reset": "garbage" }), github, NOW)).toEqual({ retryable: true, retryAfterMs: undefined });
  });

  it("Retry-After wins over the declared reset", () => {
    const headers = { "retry-after": "7", "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset };
    expect(retryHintOf(answer(403, headers), github, NOW)).toEqual({ retryable: true, retryAfterMs: 7_000 });
  });

  it("other failures keep their status's verdict and read no reset", () => {
    const headers = { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset };
    expect(retryHintOf(answer(503, headers), github, NOW)).toEqual({ retryable: true, retryAfterMs: undefined });
    expect(retryHintOf(answer(404, headers), github, NOW)).toEqual({ retryable: false, retryAfterMs: undefined });
    expect(retryHintOf(answer(401, headers), github, NOW)).toEqual({ retryable: false, retryAfterMs: undefined });
  });

  it("without a declaration: only the status and Retry-After, as before", () => {
    expect(retryHintOf(answer(429, { "x-ratelimit-reset": reset }), undefined, NOW)).toEqual({ retryable: true, retryAfterMs: undefined });
    expect(retryHintOf(answer(403, { "x-ratelimit-remaining": "0" }), undefined, NOW)).toEqual({
      retryable: false,
      retryAfterMs: undefined,
    });
    expect(retryHintOf(answer(503, { "retry-after": "2" }), undefined, NOW)).toEqual({ retryable: true, retryAfterMs: 2_000 });
  });
});

describe("rateLimitHeadersSchema: the declaration", () => {
  it("lowercases header names", () => {
    expect(declare("seconds", "RateLimit-Remaining")).toEqual({
      reset: { header: "x-ratelimit-reset", as: "seconds" },
      remaining: "ratelimit-remaining",
    });
  });

  it.each([
    [{ reset: { header: "x-ratelimit-reset", as: "minutes" } }, "reset.as"],
    [{ reset: { header: "x ratelimit", as: "seconds" } }, "reset.header"],
    [{ reset: { header: "", as: "seconds" } }, "reset.header"],
    [{ reset: { header: "x-ratelimit-reset", as: "seconds" }, remaining: "a:b" }, "remaining"],
    [{ reset: { header: "x-ratelimit-reset", as: "seconds" }, statuses: [403] }, ""],
    [{ remaining: "x-ratelimit-remaining" }, "reset"],
  ])("refuses %j at %s", (value, path) => {
    const parsed = rateLimitHeadersSchema.safeParse(value);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path.join(".")).toBe(path);
  });

  it("says what a header name must be", () => {
    const parsed = rateLimitHeadersSchema.safeParse({ reset: { header: "x-ratelimit-reset", as: "seconds" }, remaining: "a b" });
    expect(parsed.error!.issues[0]!.message).toBe("must be an HTTP header name");
  });
});
