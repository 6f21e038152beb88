import type { BlobStore } from "./blob/types.js";
import type { SafeLogger } from "./core/logger.js";
import type { ToolsStore } from "./store/types.js";

/** Deletes what expired: staged files, OAuth authorizations and leases; on a timer and on demand. */
export interface Sweeper {
  /** Deletes what expired now and resolves to how many; a call during a sweep joins it. */
  sweep(): Promise<number>;
  /** Starts the timer, once, unless it is off or the sweeper was stopped. */
  start(): void;
  /** Stops the timer for good and waits for a sweep in progress to end. */
  stop(): Promise<void>;
}

/**
 * The handler's sweeper: every `intervalMs` (0: never) it calls `blobStore.deleteExpired(now)` and,
 * when the store has one, `store.sweep(now)`; both contracts make that safe from several processes
 * at once. The timer is started by the first request (runtimes such as Workers allow no timers
 * outside one) and does not keep the process alive. A failed sweep is logged as a warning and
 * retried at the next tick.
 */
export function createSweeper(stores: { blobStore: BlobStore; store: ToolsStore }, logger: SafeLogger, intervalMs: number): Sweeper {
  let running: Promise<number> | null = null;
  let timer: ReturnType<typeof setInterval> | null = null;
  let stopped = intervalMs === 0;

  const sweep = (): Promise<number> => {
    running ??= Promise.resolve()
      .then(async () => {
        const now = new Date();
        const [blobs, records] = await Promise.all([stores.blobStore.deleteExpired(now), stores.store.sweep?.(now) ?? 0]);
        return blobs + records;
      })
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
        sweep().catch((error: unknown) => logger.log("warn", "sweep of expired staged files, authorizations and leases failed", { error }));
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
