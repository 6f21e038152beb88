import { ToolsError } from "./errors.js";
import type { ResultCode } from "./results.js";
import { RESULT_CODES } from "./results.js";
import { ToolRunError } from "./tool-error.js";

/** A failed call, as an ExecutionResult reports it (before redaction). */
export interface CallFailure {
  code: string;
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
  upstreamStatus?: number;
}

// Error codes of Node's sockets and DNS, and of undici, that mean the upstream was not reached
// or the connection broke: nothing the caller did, so worth retrying.
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "ENETDOWN",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CLOSED",
  "UND_ERR_DESTROYED",
]);

/** The message of a network failure: the same for every call path, and never the address. */
export const UNREACHABLE_MESSAGE = "The upstream could not be reached (connection refused, reset or DNS failure).";

/**
 * Whether `error` (or an error in its `cause` chain) is a failure to reach the upstream: a
 * socket or DNS error, or fetch's own "fetch failed".
 */
export function isNetworkFailure(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
    if (current.name === "TypeError" && current.message === "fetch failed") return true;
  }
  return false;
}

/**
 * How any failure of a tool run or a proxied call is reported, in one place: a `ToolRunError`
 * keeps its code and details; a `ToolsError` raised inside the call (a URL the policy refused)
 * keeps its code; a network failure is `upstream_unreachable` (retryable, without the address);
 * an abort is `aborted`; anything else a tool threw is `tool_failed` with its message, named
 * after the tool (or `upstream_unreachable` for a proxied call, where nothing else can throw).
 */
export function describeFailure(error: unknown, toolSlug?: string): CallFailure {
  if (error instanceof ToolRunError) {
    return {
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
      ...(error.upstreamStatus !== undefined ? { upstreamStatus: error.upstreamStatus } : {}),
    };
  }
  if (error instanceof ToolsError)
    return { code: error.code, message: error.message, retryable: RESULT_CODES[error.code as ResultCode]?.retryable === true };
  if (isNetworkFailure(error)) return { code: "upstream_unreachable", message: UNREACHABLE_MESSAGE, retryable: true };
  if (error instanceof Error && error.name === "AbortError")
    return { code: "aborted", message: "The request was aborted.", retryable: true };
  if (toolSlug === undefined) return { code: "upstream_unreachable", message: UNREACHABLE_MESSAGE, retryable: true };
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : "a non-Error value was thrown";
  return { code: "tool_failed", message: `The tool ${toolSlug} failed. ${detail}`, retryable: false };
}

/**
 * The error `ctx.fetch` throws when the upstream cannot be reached: a `ToolRunError` with code
 * `upstream_unreachable` and no address, so that a tool that lets it propagate reports what the
 * proxy reports. Any other error passes through unchanged.
 */
export function asUnreachable(error: unknown): unknown {
  if (!isNetworkFailure(error)) return error;
  return new ToolRunError(UNREACHABLE_MESSAGE, { code: "upstream_unreachable", retryable: true, cause: error });
}
