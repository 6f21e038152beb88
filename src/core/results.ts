import { z } from "zod";
import { describeFailure } from "./failure.js";
import { redact } from "./redact.js";

/**
 * Every code a failed call's ExecutionResult carries by itself, and whether the same call may
 * succeed later: the one table, as `ERROR_STATUS` is for error answers. A tool may also fail with
 * a code of its own (`ToolRunError`), which then says whether it is retryable.
 */
export const RESULT_CODES = {
  upstream_error: {
    retryable: "by status",
    meaning:
      "The upstream answered 400 or more; `upstreamStatus` says which, and 408, 425, 429, 500, 502, 503 and 504 are retryable, " +
      "as is a 403 that the toolkit's declared rate-limit headers call a rate limit.",
  },
  upstream_unreachable: { retryable: true, meaning: "The upstream could not be reached, or the connection broke mid-answer." },
  timeout: { retryable: true, meaning: "The call did not finish within its timeout." },
  aborted: { retryable: true, meaning: "The call was aborted (the caller went away)." },
  response_too_large: { retryable: false, meaning: "The upstream's answer was larger than `maxResponseBytes`." },
  tool_failed: { retryable: false, meaning: "The tool threw an error the library does not know; its message is in `error`." },
  invalid_arguments: { retryable: false, meaning: "An argument cannot be used (e.g. a path placeholder left empty)." },
  invalid_request: { retryable: false, meaning: "A URL or header the tool sent was refused by the outbound policy; nothing was sent." },
  connection_required: {
    retryable: false,
    meaning: "The connection cannot be used any more (its refresh token was refused); reconnect it.",
  },
  unavailable: { retryable: true, meaning: "Storage, or the provider's token endpoint, was unavailable during the call." },
} as const satisfies Record<string, { retryable: boolean | "by status"; meaning: string }>;

/** A code of `RESULT_CODES`. */
export type ResultCode = keyof typeof RESULT_CODES;

/** The answer of a tool or proxied call: `data`, `error` and `successful`, with the details of a failure. */
export const ExecutionResultSchema = z
  .object({
    data: z.unknown(),
    error: z.string().nullable(),
    successful: z.boolean(),
    code: z
      .string()
      .optional()
      .meta({ description: `Machine code of a failure: ${Object.keys(RESULT_CODES).join(", ")}, or a tool's own.` }),
    retryable: z.boolean().optional().meta({ description: "Whether the same call may succeed later." }),
    retryAfterMs: z.number().optional().meta({ description: "How long to wait before retrying, when the upstream said so." }),
    upstreamStatus: z.number().optional().meta({ description: "The upstream's HTTP status, when it answered." }),
  })
  .meta({ id: "ExecutionResult" });

/** The answer of an execute or proxy call. */
export type ExecutionResult = z.output<typeof ExecutionResultSchema>;

export function success(data: unknown): ExecutionResult {
  return { data: data === undefined ? null : data, error: null, successful: true };
}

/**
 * The failed result for anything a tool or a proxied call threw (classified by
 * `describeFailure`). The message is redacted of the connection's secrets (and anything shaped
 * like a credential) and cut to 500 characters; errors the library does not know are named but
 * their details stay in the log.
 */
export function failureFromError(error: unknown, secrets: string[], toolSlug?: string): ExecutionResult {
  const { message, ...failure } = describeFailure(error, toolSlug);
  return { data: null, error: clean(message, secrets), successful: false, ...failure };
}

function clean(message: string, secrets: string[]): string {
  const text = redact(message, secrets);
  return text.length > 500 ? `${text.slice(0, 499)}…` : text;
}
