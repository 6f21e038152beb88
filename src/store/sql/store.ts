import type { Kysely } from "kysely";
import type { ToolsStore } from "../types.js";
import { openDatabase } from "./connect.js";
import { detectDialect, type SqlDialect } from "./dialect.js";
import { guard, isDuplicate } from "./errors.js";
import { leaseOperations } from "./leases.js";
import { type MigrateResult, migrate } from "./migrations.js";
import { recordOperations } from "./records.js";
import { DEFAULT_TABLE_PREFIX, type StoreDatabase, tableNames } from "./schema.js";

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
 * slower than `timeoutMs`, throws `StoreUnavailableError`.
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

  const records = recordOperations(db, dialect, t);
  const leases = leaseOperations(db, dialect, t);
  const run = <T>(operation: string, fn: () => Promise<T>) => guard(operation, timeoutMs, fn);
  /**
   * PostgreSQL's text cannot hold NUL (it rejects such a parameter with an error), so no row has
   * one: a lookup by a value holding NUL (say, `%00` in a request's path) finds nothing, as it
   * would in the other databases, without asking the server.
   */
  const unstorable = (...values: Array<string | undefined>) => dialect === "postgres" && values.some((value) => value?.includes("\u0000"));
  const none = <T>(value: T) => Promise.resolve(value);
  /** A create that finds its id or unique key taken throws a plain Error, as the contract says. */
  const create = (what: string, id: string, fn: () => Promise<unknown>) =>
    run(`create ${what}`, async () => {
      try {
        await fn();
      } catch (error) {
        if (isDuplicate(error)) throw new Error(`${what} ${id} already exists.`, { cause: error });
        throw error;
      }
    });

  return {
    db,
    dialect,
    migrate: () => migrate(db, { tablePrefix, dialect }),

    createApiKey: (record) => create("API key", record.id, () => records.createApiKey(record)),
    getApiKeyByHash: (hash) => (unstorable(hash) ? none(null) : run("get API key", () => records.getApiKeyByHash(hash))),
    listApiKeys: (workspaceId, page) =>
      unstorable(workspaceId) ? none([]) : run("list API keys", () => records.listApiKeys(workspaceId, page)),
    revokeApiKey: (id, at) => (unstorable(id) ? none(false) : run("revoke API key", () => records.revokeApiKey(id, at))),

    createConnection: (record) => create("Connection", record.id, () => records.createConnection(record)),
    getConnection: (id) => (unstorable(id) ? none(null) : run("get connection", () => records.getConnection(id))),
    listConnections: (filter) =>
      unstorable(filter.workspaceId, filter.agentId, filter.toolkit)
        ? none([])
        : run("list connections", () => records.listConnections(filter)),
    updateConnection: (id, patch, expectedVersion) =>
      unstorable(id) ? none(null) : run("update connection", () => records.updateConnection(id, patch, expectedVersion)),
    deleteConnection: (id) => (unstorable(id) ? none(false) : run("delete connection", () => records.deleteConnection(id))),

    createAuthorization: (record) => create("Authorization", record.id, () => records.createAuthorization(record)),
    getAuthorization: (id) => (unstorable(id) ? none(null) : run("get authorization", () => records.getAuthorization(id))),
    consumeAuthorization: (stateHash, now) =>
      unstorable(stateHash) ? none(null) : run("consume authorization", () => records.consumeAuthorization(stateHash, now)),
    updateAuthorization: (id, patch) =>
      unstorable(id) ? none(null) : run("update authorization", () => records.updateAuthorization(id, patch)),

    acquireLease: (name, holder, ttlMs, now) => run("acquire lease", () => leases.acquire(name, holder, ttlMs, now)),
    releaseLease: (name, holder) => run("release lease", () => leases.release(name, holder)),

    sweep: (now) => run("sweep", async () => (await records.sweepAuthorizations(now)) + (await leases.sweep(now))),
    close: async () => {
      if (opened) await opened.db.destroy();
    },
  };
}
