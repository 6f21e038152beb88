import { redact } from "../core/redact.js";
import { describeFailure } from "../core/failure.js";
import { ToolRunError } from "../core/tool-error.js";

/** The answer of an execute or proxy call (SPEC's ExecutionResult, with failure details). */
export interface ExecutionResult {
  data: unknown;
  error: string | null;
  successful: boolean;
  code?: string;
  retryable?: boolean;
  retryAfterMs?: number;
  upstreamStatus?: number;
}

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

/**
 * Runs `work` with a deadline: after `ms` the signal aborts and the returned promise rejects
 * with a timeout, even if `work` ignores the signal.
 */
export async function withTimeout<T>(ms: number, parent: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new ToolRunError(`Timed out after ${ms} ms.`, { code: "timeout", retryable: true });
      controller.abort(error);
      reject(error);
    }, ms);
  });
  const onParentAbort = () => controller.abort(parent?.reason);
  parent?.addEventListener("abort", onParentAbort, { once: true });
  try {
    return await Promise.race([work(controller.signal), timedOut]);
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener("abort", onParentAbort);
  }
}
