import { isToolsClientError } from "../errors.js";
import type { ExecutionResult } from "../types.js";

/**
 * What a model reads when a call failed, in every framework: the server's `error` sentence, its
 * `code`, whether the same call may succeed later, and `hint`, what to do next. `successful` is
 * false, as in an ExecutionResult. A call that needs a connection adds `connectUrl`, the page
 * where the user connects the toolkit.
 */
export interface ToolFailure {
  successful: false;
  error: string;
  code: string;
  retryable: boolean;
  retryAfterMs?: number;
  connectUrl?: string;
  hint: string;
}

/** The result of running a tool for a model: the tool's `data`, or a ToolFailure. */
export type ToolOutcome = { ok: true; output: unknown } | { ok: false; output: ToolFailure };

/** Whether a tool's output is a ToolFailure (by its shape, so it survives a copy). */
export function isToolFailure(output: unknown): output is ToolFailure {
  return (
    typeof output === "object" &&
    output !== null &&
    (output as ToolFailure).successful === false &&
    typeof (output as ToolFailure).error === "string" &&
    typeof (output as ToolFailure).hint === "string"
  );
}

/** The outcome of an ExecutionResult (a 200 answer of `POST /execute`). */
export function outcomeOfResult(result: ExecutionResult): ToolOutcome {
  if (result.successful) return { ok: true, output: result.data };
  const code = result.code ?? "tool_failed";
  const retryable = result.retryable ?? false;
  return failure({
    error: result.error ?? "The tool failed.",
    code,
    retryable,
    ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }),
    hint: retryable
      ? retryHint(result.retryAfterMs)
      : code === "invalid_arguments"
        ? "Fix the arguments and call the tool again."
        : "Do not repeat the same call; tell the user what failed.",
  });
}

/** The outcome of a call the server refused (an error answer) or that got no answer. */
export function outcomeOfError(error: unknown): ToolOutcome {
  if (!isToolsClientError(error)) {
    return failure({
      error: `The call failed: ${error instanceof Error ? error.message : String(error)}`,
      code: "internal",
      retryable: false,
      hint: "Tell the user that the tool could not be called.",
    });
  }
  const retryAfterMs = error.retryAfter === undefined ? undefined : error.retryAfter * 1000;
  const base = { error: error.message, code: error.code, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  switch (error.code) {
    case "invalid_request":
      return failure({
        ...base,
        retryable: false,
        hint: "The arguments were refused: fix them as the error says and call the tool again.",
      });
    case "rate_limited":
    case "unavailable":
    case "network_error":
      return failure({ ...base, retryable: true, hint: retryHint(retryAfterMs) });
    case "connection_ambiguous":
      return failure({
        ...base,
        retryable: false,
        hint: "Several accounts are connected to this toolkit; tell the user that the application must choose one.",
      });
    case "unauthorized":
    case "insufficient_credits":
      return failure({ ...base, retryable: false, hint: "Tell the user: this is not something a different call can fix." });
    default:
      return failure({ ...base, retryable: false, hint: "Do not repeat the same call; tell the user what failed." });
  }
}

/** The outcome of a call that needs a connection the agent does not have. */
export function connectionRequired(toolkit: string, message: string, connectUrl: string | undefined): ToolOutcome {
  return failure({
    error: message,
    code: "connection_required",
    retryable: false,
    ...(connectUrl ? { connectUrl } : {}),
    hint: connectUrl
      ? `Ask the user to open ${connectUrl} to connect "${toolkit}", then call the tool again.`
      : `Ask the user to connect "${toolkit}" (for example with \`npx tools-proxy auth ${toolkit}\`), then call the tool again.`,
  });
}

function failure(fields: Omit<ToolFailure, "successful">): ToolOutcome {
  return { ok: false, output: { successful: false, ...fields } };
}

function retryHint(retryAfterMs: number | undefined): string {
  return retryAfterMs === undefined
    ? "This may succeed later: retry once after a short wait."
    : `This may succeed later: retry once after ${Math.ceil(retryAfterMs / 1000)} seconds.`;
}

/**
 * The text a framework that takes a string gets: a string output as it is, anything else as JSON.
 */
export function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  return JSON.stringify(output) ?? "null";
}
