/**
 * Thrown by a tool's `run` to fail the execution with a message meant for the agent. The
 * handler answers a 200 ExecutionResult with `successful: false`, and `error` is this message
 * after redaction of the connection's secrets; `code`, `retryable`, `upstreamStatus` and
 * `retryAfterMs` are copied beside it. Anything else a tool throws becomes a generic message.
 */
export class ToolRunError extends Error {
  override readonly name = "ToolRunError";
  /** Machine code, e.g. `upstream_error` or `invalid_arguments`. */
  readonly code: string;
  /** Whether the same call may succeed if retried later. */
  readonly retryable: boolean;
  /** HTTP status of the upstream answer that caused the failure, if any. */
  readonly upstreamStatus: number | undefined;
  /** How long to wait before retrying, in milliseconds, when the upstream said so. */
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    options: { code?: string; retryable?: boolean; upstreamStatus?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = options.code ?? "tool_failed";
    this.retryable = options.retryable ?? false;
    this.upstreamStatus = options.upstreamStatus;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** A tool's failure for arguments it cannot use (code `invalid_arguments`); `message` says what to change. */
export function invalidArguments(message: string): ToolRunError {
  return new ToolRunError(message, { code: "invalid_arguments" });
}

/**
 * Statuses after which the same request may succeed later: request timeout, too early, too many
 * requests, and the transient server errors. The one definition: results report `retryable` by it,
 * and retries retry exactly these (a 501 Not Implemented is neither).
 */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504]);

/** Whether a request that got this status may succeed if sent again later (see `RETRYABLE_STATUSES`). */
export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/**
 * Milliseconds to wait according to a `Retry-After` header (delay in seconds or HTTP date),
 * or undefined when it is absent or unreadable. A date in the past gives 0.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
