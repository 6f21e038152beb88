import type { AbortableQueryOptions, InflightQueryAbortStrategy, Kysely } from "kysely";
import type { ToolsStore } from "../types.js";
import { openDatabase } from "./connect.js";
import { detectDialect, type SqlDialect } from "./dialect.js";
import { guard, isDuplicate } from "./errors.js";
import { leaseOperations } from "./leases.js";
import { type MigrateResult, migrate } from "./migrations.js";
import { recordOperations } from "./records.js";
import { DEFAULT_TABLE_PREFIX, listingIndexNames, type StoreDatabase, tableNames } from "./schema.js";

/** Options of `sqlStore`: a database (a Kysely instance or a URL) and how to use it. */
export type SqlStoreOptions = (
  | {
      /** Your Kysely instance (PostgreSQL, MySQL/MariaDB or SQLite). `close()` leaves it open: it is yours. */
      db: Kysely<any>;
      url?: undefined;
    }
  | {
      /**
       * `postgres://…` (or `postgresql://`), `mysql://…` (or `mariadb://`), or `sqlite:PATH` /
       * `sqlite::memory:`. The store opens a pool (drivers `pg` and `mysql2` are optional peer
       * dependencies; SQLite is built in) and `close()` ends it.
       */
      url: string;
      db?: undefined;
    }
) & {
  /** Prefix of the store's tables. Default `tools_proxy_`. */
  tablePrefix?: string;
  /** The dialect of `db`; detected from its adapter when omitted. */
  dialect?: SqlDialect;
  /**
   * Longest wait for one store call, in milliseconds (default 5000): past it the call fails with
   * `StoreUnavailableError` (the handler answers 503 with Retry-After) instead of holding the request.
   */
  timeoutMs?: number;
};

/** A `ToolsStore` on SQL, with its database and migrations at hand. */
export interface SqlToolsStore extends ToolsStore {
  readonly db: Kysely<any>;
  readonly dialect: SqlDialect;
  /** Creates or upgrades the tables (see `migrate`). Run it before serving, e.g. at start. */
  migrate(): Promise<MigrateResult>;
  /**
   * The store, with its reads stopped when `signal` aborts: cancelled in the database on
   * PostgreSQL (`pg_cancel_backend`) and MySQL/MariaDB (`KILL QUERY`); on SQLite a statement that
   * has started runs to its end (docs/storage/sql.md in the repository).
   */
  withSignal(signal: AbortSignal): ToolsStore;
  /** Removes expired authorizations and leases; returns how many rows went. */
  sweep(now: Date): Promise<number>;
  /** Ends the pool the store opened from `url`; a `db` you passed stays open. */
  close(): Promise<void>;
}

/**
 * A `ToolsStore` on PostgreSQL, MySQL/MariaDB or SQLite, through Kysely. Every instance of an
 * app may share one database: API keys, connections and authorizations are rows, the connection
 * compare-and-set is `UPDATE … WHERE version = ?`, consuming an OAuth state is one conditional
 * `UPDATE`, and leases are rows whose expiry is compared with the caller's `now`.
 *
 * Call `migrate()` (or `tools-proxy migrate`) once before use. An unreachable database, or a call
 * slower than `timeoutMs`, throws `StoreUnavailableError`; a read past `timeoutMs` is also
 * cancelled in the database (PostgreSQL, MySQL/MariaDB), so it frees its pooled connection and
 * loads no rows.
 */
export function sqlStore(options: SqlStoreOptions): SqlToolsStore {
  const opened = options.url !== undefined ? openDatabase(options.url) : null;
  const db = (opened?.db ?? options.db) as Kysely<StoreDatabase> | undefined;
  if (!db) throw new TypeError("sqlStore needs either db (a Kysely instance) or url (postgres://, mysql:// or sqlite:).");
  const dialect = options.dialect ?? opened?.dialect ?? detectDialect(db);
  const tablePrefix = options.tablePrefix ?? DEFAULT_TABLE_PREFIX;
  const t = tableNames(tablePrefix);
  const timeoutMs = options.timeoutMs ?? 5000;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new TypeError("timeoutMs must be a positive whole number of milliseconds.");

  const records = recordOperations(db, dialect, t, listingIndexNames(tablePrefix));
  const leases = leaseOperations(db, dialect, t);
  /** A write is never cancelled: past `timeoutMs` its caller stops waiting, and the statement ends on its own. */
  const write = <T>(operation: string, fn: () => Promise<T>) => guard(operation, timeoutMs, fn);
  let strategy: Promise<InflightQueryAbortStrategy> | undefined;
  /**
   * A read stops past `timeoutMs` or when `caller` aborts, and is cancelled in the database where
   * the driver can (`pg_cancel_backend`, `KILL QUERY`): its rows are never loaded.
   */
  const read = <T>(operation: string, caller: AbortSignal | undefined, fn: (options: AbortableQueryOptions) => Promise<T>) =>
    guard(
      operation,
      timeoutMs,
      async (signal) => {
        // Asked once; a database that could not be reached is asked again next time.
        strategy ??= (dialect === "sqlite" ? Promise.resolve("ignore query" as const) : cancelStrategy(db)).catch((error: unknown) => {
          strategy = undefined;
          throw error;
        });
        return fn({ signal, inflightQueryAbortStrategy: await strategy });
      },
      caller,
    );
  /**
   * PostgreSQL's text cannot hold NUL (it rejects such a parameter with an error), so no row has
   * one: a lookup by a value holding NUL (say, `%00` in a request's path) finds nothing, as it
   * would in the other databases, without asking the server.
   */
  const unstorable = (...values: Array<string | undefined>) => dialect === "postgres" && values.some((value) => value?.includes("\u0000"));
  const none = <T>(value: T) => Promise.resolve(value);
  /** A create that finds its id or unique key taken throws a plain Error, as the contract says. */
  const create = (what: string, id: string, fn: () => Promise<unknown>) =>
    write(`create ${what}`, async () => {
      try {
        await fn();
      } catch (error) {
        if (isDuplicate(error)) throw new Error(`${what} ${id} already exists.`, { cause: error });
        throw error;
      }
    });

  /** The store's operations; reads stop when `caller` aborts (see `withSignal`). */
  const operations = (caller?: AbortSignal): ToolsStore => ({
    createApiKey: (record) => create("API key", record.id, () => records.createApiKey(record)),
    getApiKeyByHash: (hash) =>
      unstorable(hash) ? none(null) : read("get API key", caller, (options) => records.getApiKeyByHash(hash, options)),
    listApiKeys: (workspaceId, page) =>
      unstorable(workspaceId) ? none([]) : read("list API keys", caller, (options) => records.listApiKeys(workspaceId, page, options)),
    revokeApiKey: (id, at) => (unstorable(id) ? none(false) : write("revoke API key", () => records.revokeApiKey(id, at))),

    createConnection: (record) => create("Connection", record.id, () => records.createConnection(record)),
    getConnection: (id) => (unstorable(id) ? none(null) : read("get connection", caller, (options) => records.getConnection(id, options))),
    listConnections: (filter) =>
      unstorable(filter.workspaceId, filter.agentId, filter.toolkit)
        ? none([])
        : read("list connections", caller, (options) => records.listConnections(filter, options)),
    updateConnection: (id, patch, expectedVersion) =>
      unstorable(id) ? none(null) : write("update connection", () => records.updateConnection(id, patch, expectedVersion)),
    deleteConnection: (id) => (unstorable(id) ? none(false) : write("delete connection", () => records.deleteConnection(id))),

    createAuthorization: (record) => create("Authorization", record.id, () => records.createAuthorization(record)),
    getAuthorization: (id) =>
      unstorable(id) ? none(null) : read("get authorization", caller, (options) => records.getAuthorization(id, options)),
    consumeAuthorization: (stateHash, now) =>
      unstorable(stateHash) ? none(null) : write("consume authorization", () => records.consumeAuthorization(stateHash, now)),
    updateAuthorization: (id, patch) =>
      unstorable(id) ? none(null) : write("update authorization", () => records.updateAuthorization(id, patch)),

    acquireLease: (name, holder, ttlMs, now) => write("acquire lease", () => leases.acquire(name, holder, ttlMs, now)),
    releaseLease: (name, holder) => write("release lease", () => leases.release(name, holder)),
  });

  return {
    ...operations(),
    db,
    dialect,
    migrate: () => migrate(db, { tablePrefix, dialect }),
    withSignal: (signal) => operations(signal),
    sweep: (now) => write("sweep", async () => (await records.sweepAuthorizations(now)) + (await leases.sweep(now))),
    close: async () => {
      if (opened) await opened.db.destroy();
    },
  };
}

/**
 * How a read stops in the database: "cancel query" when the dialect's connections can cancel a
 * running statement (Kysely's PostgreSQL and MySQL dialects: `pg_cancel_backend`, `KILL QUERY`,
 * from a separate control connection), else "ignore query" (the statement runs to its end; its
 * caller stops waiting). Asked of one pooled connection, once.
 */
async function cancelStrategy(db: Kysely<any>): Promise<InflightQueryAbortStrategy> {
  return db.getExecutor().provideConnection(async (connection) => (connection.cancelQuery ? "cancel query" : "ignore query"));
}
