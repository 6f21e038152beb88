import type { LimitDecision, LimitRequest, LimitsHook } from "./types.js";

/**
 * One `limits` hook from several, asked in order: the first refusal is the answer and the hooks
 * after it are not asked. Put the cheap, local checks first; a rate limit asked before a refusal
 * has counted the request.
 */
export function combineLimits(...hooks: LimitsHook[]): LimitsHook {
  return async (request) => {
    for (const hook of hooks) {
      const decision = await hook(request);
      if (decision && !decision.allow) return decision;
    }
  };
}

/** Options of `credits`. */
export interface CreditsOptions {
  /** The sentence of the 402 answer. Default: says to add credits and retry. */
  message?: string;
}

/**
 * A `limits` hook from a credit check: when `hasCredits` returns false the request is refused with
 * `402 insufficient_credits`, before any tool runs or anything is sent upstream. An error it
 * throws fails the request (a `StoreUnavailableError` answers 503).
 */
export function credits(hasCredits: (request: LimitRequest) => boolean | Promise<boolean>, options: CreditsOptions = {}): LimitsHook {
  // biome-ignore lint/suspicious/noConfusingVoidType: a limits hook allows by returning nothing.
  return async (request): Promise<LimitDecision | void> => {
    if (await hasCredits(request)) return;
    return { allow: false, reason: "insufficient_credits", ...(options.message ? { message: options.message } : {}) };
  };
}
