import type { BlobStore } from "../blob/types.js";
import type { SafeLogger } from "../core/logger.js";

/** Default period of the handler's sweep of expired staged files. */
export const DEFAULT_SWEEP_INTERVAL_MS = 60_000;

/** Deletes expired staged files, on a timer and on demand. */
export interface Sweeper {
  /** Deletes the expired blobs now and resolves to how many; a call during a sweep joins it. */
  sweep(): Promise<number>;
  /** Starts the timer, once, unless it is off or the sweeper was stopped. */
  start(): void;
  /** Stops the timer for good and waits for a sweep in progress to end. */
  stop(): Promise<void>;
}

/**
 * The handler's sweeper: every `intervalMs` (0: never) it calls `blobStore.deleteExpired(now)`,
 * which the `BlobStore` contract makes safe to run from several processes at once. The timer is
 * started by the first request (runtimes such as Workers allow no timers outside one) and does not
 * keep the process alive. A failed sweep is logged as a warning and retried at the next tick.
 */
export function createSweeper(blobStore: BlobStore, logger: SafeLogger, intervalMs: number): Sweeper {
  let running: Promise<number> | null = null;
  let timer: ReturnType<typeof setInterval> | null = null;
  let stopped = intervalMs === 0;

  const sweep = (): Promise<number> => {
    running ??= Promise.resolve()
      .then(() => blobStore.deleteExpired(new Date()))
      .finally(() => {
        running = null;
      });
    return running;
  };

  return {
    sweep,
    start() {
      if (stopped || timer) return;
      timer = setInterval(() => {
        if (running) return; // a slow store: let the sweep in progress finish
        sweep().catch((error: unknown) => logger.log("warn", "sweep of expired staged files failed", { error }));
      }, intervalMs);
      unref(timer);
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      await running?.catch(() => {});
    },
  };
}

/** Lets the process exit while the timer is pending: Node and Bun have `unref`, Deno `Deno.unrefTimer`. */
function unref(timer: ReturnType<typeof setInterval>): void {
  const handle = timer as unknown as { unref?: () => void };
  if (typeof handle.unref === "function") handle.unref();
  else if (typeof timer === "number") (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno?.unrefTimer?.(timer);
}
