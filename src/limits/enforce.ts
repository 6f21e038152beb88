import { ToolsError } from "../core/errors.js";
import type { LimitRequest, LimitsHook } from "./types.js";

/**
 * Asks the `limits` hook about one request and throws what a refusal answers: `rate_limited`
 * (429, with Retry-After) or `insufficient_credits` (402). The one check of every authenticated
 * request, REST and MCP alike.
 */
export async function enforceLimits(hook: LimitsHook, request: LimitRequest): Promise<void> {
  const decision = await hook(request);
  if (!decision || decision.allow) return;
  if (decision.reason === "rate_limited") {
    throw new ToolsError(
      "rate_limited",
      decision.message ?? "Too many requests for this API key; wait for the Retry-After seconds and retry.",
      {
        retryAfter: decision.retryAfterSeconds,
      },
    );
  }
  throw new ToolsError(
    "insufficient_credits",
    decision.message ?? "The workspace has no credits left for this request; add credits and retry.",
  );
}
