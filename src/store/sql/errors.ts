import { StoreUnavailableError } from "../../core/errors.js";

/** Codes of errors that mean "the database cannot be reached or is not answering now". */
const UNAVAILABLE_CODES = new Set([
  // Node's sockets
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ECONNABORTED",
  // PostgreSQL: admin shutdown, crash shutdown, cannot connect now, too many connections, lock timeout, serialization, deadlock
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "55P03",
  "40001",
  "40P01",
  // mysql2
  "PROTOCOL_CONNECTION_LOST",
  "PROTOCOL_SEQUENCE_TIMEOUT",
  "ER_CON_COUNT_ERROR",
  "ER_SERVER_SHUTDOWN",
  "ER_LOCK_WAIT_TIMEOUT",
  "ER_LOCK_DEADLOCK",
  "ER_QUERY_INTERRUPTED",
  "ER_CONNECTION_KILLED",
  "POOL_CLOSED",
  // SQLite (node:sqlite puts the extended code name in `errstr`/message; bun:sqlite in `code`)
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_IOERR",
  "SQLITE_FULL",
  "SQLITE_CANTOPEN",
]);

const UNAVAILABLE_MESSAGES = [
  /connection terminated/i, // pg, when the server goes away mid-query
  /timeout exceeded when trying to connect/i, // pg-pool
  /connection (?:is )?(?:closed|lost|ended)/i,
  /can't add new command when connection is in closed state/i, // mysql2
  /database is locked|database table is locked|disk i\/o error|unable to open database/i, // SQLite
  /server closed the connection unexpectedly/i,
];

/** Whether an error from a driver means the database is unreachable, overloaded or timed out. */
export function isUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof StoreUnavailableError) return true;
    const { code, errno, errstr, message } = e as { code?: unknown; errno?: unknown; errstr?: unknown; message?: unknown };
    if (typeof code === "string" && UNAVAILABLE_CODES.has(code)) return true;
    if (typeof errstr === "string" && /busy|locked|disk I\/O|unable to open/i.test(errstr)) return true;
    if (typeof errno === "number" && [1040, 1053, 1205, 1213, 1317, 1927, 2002, 2003, 2006, 2013].includes(errno)) return true;
    if (typeof message === "string" && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
    if (e instanceof AggregateError && e.errors.some(isUnavailable)) return true;
  }
  return false;
}

/** Whether an error says the store's tables do not exist (the migrations have not run). */
export function isMissingTable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === "42P01" || code === "ER_NO_SUCH_TABLE" || (typeof message === "string" && /no such table/i.test(message));
}

/** Whether an error is a unique-key violation (a duplicate id or hash). */
export function isDuplicate(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === "23505" ||
    code === "ER_DUP_ENTRY" ||
    (typeof message === "string" && /UNIQUE constraint failed|PRIMARY KEY constraint/i.test(message))
  );
}

/**
 * Runs one store operation within `timeoutMs`, turning an unreachable or slow database into
 * `StoreUnavailableError` (503 with Retry-After), and missing tables into an Error that says to
 * run the migrations. Other errors pass through unchanged. The driver's error is kept as `cause`
 * and never shown to callers.
 *
 * `run` gets a signal that aborts when the time is up (its reason is the StoreUnavailableError) or
 * when `caller` aborts (its reason is the caller's): a read hands it to Kysely, which cancels the
 * statement in the database. The call settles at once either way, with that reason.
 */
export async function guard<T>(
  operation: string,
  timeoutMs: number,
  run: (signal: AbortSignal) => Promise<T>,
  caller?: AbortSignal,
): Promise<T> {
  caller?.throwIfAborted();
  const controller = new AbortController();
  const { signal } = controller;
  const stopped = new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
  const timer = setTimeout(
    () => controller.abort(new StoreUnavailableError("The database did not answer in time; retry shortly.", { retryAfter: 5 })),
    timeoutMs,
  );
  const forward = () => controller.abort(caller?.reason);
  caller?.addEventListener("abort", forward, { once: true });
  try {
    return await Promise.race([run(signal), stopped]);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof StoreUnavailableError) throw error;
    if (isUnavailable(error))
      throw new StoreUnavailableError("The database cannot be reached; retry shortly.", { cause: error, retryAfter: 5 });
    if (isMissingTable(error)) {
      throw new Error(
        `tools-proxy: the store's tables are missing (${operation}); ` +
          'run `tools-proxy migrate` or `await migrate(db)` from "tools-proxy/sql" first.',
        { cause: error },
      );
    }
    throw error;
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener("abort", forward);
  }
}
