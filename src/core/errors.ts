import { z } from "zod";
import { wholeResponse } from "./whole-bodies.js";

const encoder = new TextEncoder();

/**
 * Machine codes of every error the Tools API answers with, and the HTTP status of each.
 * This table is the only place a status is chosen for an error.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  not_found: 404,
  method_not_allowed: 405,
  connection_required: 409,
  connection_ambiguous: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  upstream_unreachable: 502,
  upstream_redirect: 502,
  unavailable: 503,
  upstream_timeout: 504,
} as const;

/** A machine-readable error code, as sent in the `code` field of an error body. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** The JSON body of every non-2xx answer: a sentence to act on, and the machine code. */
export const ErrorBodySchema = z
  .object({
    error: z.string().meta({ description: "A sentence a person or an agent can act on." }),
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
  })
  .meta({ id: "Error" });

/** The JSON body of every non-2xx answer. */
export type ErrorBody = z.output<typeof ErrorBodySchema>;

/**
 * The one error class of the library. Its `message` is shown to the caller as it is, so it
 * must never contain a credential, a token, an API key or an internal detail; anything that is
 * not a ToolsError becomes a generic `internal` answer instead.
 */
export class ToolsError extends Error {
  override readonly name = "ToolsError";
  readonly code: ErrorCode;
  /** Seconds the caller should wait, sent as `Retry-After` (429 and 503). */
  readonly retryAfter: number | undefined;
  /** Headers the answer carries besides its JSON body, e.g. `Allow` on a 405. */
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: { retryAfter?: number; cause?: unknown; headers?: Record<string, string> } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.retryAfter = options.retryAfter;
    this.headers = options.headers;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/**
 * Thrown by a store or blob store when its backend cannot be reached or timed out. The handler
 * answers `503 unavailable` with `Retry-After`, and nothing is sent upstream.
 */
export class StoreUnavailableError extends ToolsError {
  constructor(message = "Storage is temporarily unavailable; retry shortly.", options: { cause?: unknown; retryAfter?: number } = {}) {
    super("unavailable", message, { retryAfter: options.retryAfter ?? 5, cause: options.cause });
  }
}

/** Builds the JSON error response for a ToolsError. */
export function errorResponse(error: ToolsError): Response {
  const headers: Record<string, string> = {};
  if (error.headers) for (const [name, value] of new Headers(error.headers)) headers[name] = value;
  headers["content-type"] = "application/json; charset=utf-8";
  if (error.retryAfter !== undefined) headers["retry-after"] = String(Math.max(0, Math.ceil(error.retryAfter)));
  if (error.code === "unauthorized") headers["www-authenticate"] = 'Bearer realm="tools-proxy"';
  const body: ErrorBody = { error: error.message, code: error.code };
  // With its length, as every JSON answer (see `json`): sent whole rather than chunked.
  const bytes = encoder.encode(JSON.stringify(body));
  headers["content-length"] = String(bytes.length);
  return wholeResponse(bytes, error.status, headers);
}

/** Turns anything thrown into a ToolsError; unknown errors become a generic `internal`. */
export function toToolsError(error: unknown): ToolsError {
  if (error instanceof ToolsError) return error;
  return new ToolsError("internal", "The server failed to handle this request. Retry later, and contact the operator if it persists.");
}
