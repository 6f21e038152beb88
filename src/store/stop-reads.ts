import type { ToolsStore } from "./types.js";

/** The store methods that only read, which `withSignal` stops. */
const READS = ["getApiKeyByHash", "listApiKeys", "getConnection", "listConnections", "getAuthorization"] as const;

/**
 * A view of `store` for one request (its `withSignal`): each read checks `signal` before it starts
 * and after it ends, and rejects with `signal.reason` once it has aborted, so a request that has
 * ended gets nothing back; writes are the store's own, never stopped. For stores whose reads
 * cannot be cancelled midway (in memory, key-value); SQL stores cancel the statement instead.
 */
export function stopReadsWith(store: ToolsStore, signal: AbortSignal): ToolsStore {
  const view: ToolsStore = { ...store };
  for (const name of READS) {
    const read = store[name] as (...args: unknown[]) => unknown;
    (view as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      signal.throwIfAborted();
      const result = await read.apply(store, args);
      signal.throwIfAborted();
      return result;
    };
  }
  return view;
}
