import type { ServerErrorCode } from "./types.js";

/**
 * Codes of a ToolsClientError: the server's codes (`ServerErrorCode`), and three of the client's own:
 * - `network_error` (status 0): no HTTP answer (connection refused, DNS failure, connection reset).
 * - `unexpected_response` (the answer's status): an answer that is not the Tools API's (an HTML
 *   502 from a proxy, a 404 page because `baseUrl` misses the mount path, a body that is not JSON).
 * - `invalid_argument` (status 0): the call itself was wrong (an upload stream longer or shorter
 *   than its declared `size`, a content type with line breaks).
 */
export type ToolsClientErrorCode = ServerErrorCode | "network_error" | "unexpected_response" | "invalid_argument";

/**
 * What every client method rejects with, except when its `signal` aborts (then it rejects with
 * the signal's reason). `message` is the server's own sentence for an error answer, or the
 * client's for the rest; it never contains the API key.
 */
export class ToolsClientError extends Error {
  override readonly name = "ToolsClientError";
  readonly code: ToolsClientErrorCode;
  /** HTTP status of the answer; 0 when there was none. */
  readonly status: number;
  /** Seconds to wait before retrying, from `Retry-After` (429 and 503 answers). */
  readonly retryAfter: number | undefined;

  constructor(code: ToolsClientErrorCode, message: string, options: { status?: number; retryAfter?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? 0;
    this.retryAfter = options.retryAfter;
  }
}

/** Whether `error` is a ToolsClientError (by name too, so it works across duplicated copies of the package). */
export function isToolsClientError(error: unknown): error is ToolsClientError {
  return (
    error instanceof ToolsClientError ||
    (error instanceof Error && error.name === "ToolsClientError" && "code" in error && "status" in error)
  );
}
