import { ToolRunError } from "../core/tool-error.js";

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
