import { isToolsClientError } from "./errors.js";
import type { AuthorizationStatus, FinishedAuthorization } from "./types.js";

/** Options of `waitForAuthorization`. */
export interface WaitOptions {
  /** Stops waiting: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Milliseconds between two polls. Default 1000. */
  intervalMs?: number;
  /** Called with every status polled, `pending` ones included. */
  onStatus?: (status: AuthorizationStatus) => void;
}

/** Consecutive transient failures (no answer, 429, 503) tolerated before giving up. */
const MAX_TRANSIENT_FAILURES = 5;
const TRANSIENT = new Set(["network_error", "rate_limited", "unavailable"]);

/**
 * Polls `poll` until the authorization is over, and resolves with its final status: `connected`
 * (with `connectionId`), `failed` (with `error`) or `expired`. A failed authorization resolves,
 * it does not reject. Transient failures are retried (after Retry-After when given), up to
 * MAX_TRANSIENT_FAILURES in a row; any other error rejects.
 */
export async function waitForAuthorization(
  poll: (signal?: AbortSignal) => Promise<AuthorizationStatus>,
  options: WaitOptions = {},
): Promise<FinishedAuthorization> {
  const { signal, intervalMs = 1000 } = options;
  let failures = 0;
  for (;;) {
    signal?.throwIfAborted();
    let delay = intervalMs;
    try {
      const status = await poll(signal);
      failures = 0;
      options.onStatus?.(status);
      if (status.status !== "pending") return status as FinishedAuthorization;
    } catch (error) {
      if (signal?.aborted || !isToolsClientError(error) || !TRANSIENT.has(error.code) || ++failures > MAX_TRANSIENT_FAILURES) throw error;
      if (error.retryAfter !== undefined) delay = Math.max(delay, error.retryAfter * 1000);
    }
    await sleep(delay, signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
