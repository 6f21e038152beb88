import { Kysely, type MysqlConnection, MysqlDialect, type MysqlPool, PostgresDialect, type PostgresPool, SqliteDialect } from "kysely";
import type { SqlDialect } from "./dialect.js";
import { openSqlite } from "./sqlite.js";

/** Options of `openDatabase`. */
export interface OpenDatabaseOptions {
  /** Most connections in the pool (PostgreSQL, MySQL). Default 10. */
  poolSize?: number;
  /** Longest wait for a new connection, or for a free one from a full pool, in ms. Default 5000. */
  connectTimeoutMs?: number;
  /** Receives errors of idle pooled connections (the server went away); they never crash the process. */
  onPoolError?: (error: Error) => void;
}

/**
 * Opens a Kysely instance from a URL:
 * - `postgres://user:pass@host:5432/db` (or `postgresql://`), with the `pg` package;
 * - `mysql://user:pass@host:3306/db` (or `mariadb://`), with the `mysql2` package;
 * - `sqlite:PATH` (a file, created when missing) or `sqlite::memory:`, with the runtime's
 *   built-in SQLite (`node:sqlite` on Node 22.13+, `bun:sqlite` on Bun).
 *
 * `pg` and `mysql2` are optional peer dependencies: install the one you use. Nothing connects
 * until the first query. `db.destroy()` ends the pool.
 */
export function openDatabase(url: string, options: OpenDatabaseOptions = {}): { db: Kysely<any>; dialect: SqlDialect } {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  const poolSize = options.poolSize ?? 10;
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const onPoolError = options.onPoolError ?? (() => {});

  if (scheme === "postgres" || scheme === "postgresql") {
    const pool = async (): Promise<PostgresPool> => {
      const pg = await importDriver<{
        Pool: new (config: object) => PostgresPool & { on(event: "error", listener: (error: Error) => void): void };
      }>("pg", "PostgreSQL");
      const created = new pg.Pool({
        connectionString: url,
        max: poolSize,
        connectionTimeoutMillis: connectTimeoutMs,
        keepAlive: true,
        idleTimeoutMillis: 30_000,
      });
      created.on("error", onPoolError);
      return created;
    };
    return { db: new Kysely({ dialect: new PostgresDialect({ pool }) }), dialect: "postgres" };
  }

  if (scheme === "mysql" || scheme === "mariadb") {
    let mysql: MysqlModule | undefined;
    const pool = async (): Promise<MysqlPool> => {
      mysql = await importDriver<MysqlModule>("mysql2", "MySQL/MariaDB");
      const created = mysql.createPool({
        uri: scheme === "mariadb" ? `mysql:${url.slice(url.indexOf(":") + 1)}` : url,
        connectionLimit: poolSize,
        connectTimeout: connectTimeoutMs,
        enableKeepAlive: true,
        // UPDATE reports the rows it matched, not only those it changed: the store relies on it.
        flags: ["FOUND_ROWS"],
      });
      created.on("connection", (connection: { on(event: "error", listener: (error: Error) => void): void }) =>
        connection.on("error", onPoolError),
      );
      return created;
    };
    // `KILL QUERY` goes through a connection of its own: a full pool of stuck queries cannot lend one.
    // The pool is made (and mysql2 loaded) before any query, so before any cancel.
    const controlConnection = (config: object | string) => mysql!.createConnection(config as object);
    return { db: new Kysely({ dialect: new MysqlDialect({ pool, controlConnection }) }), dialect: "mysql" };
  }

  if (scheme === "sqlite") {
    const filename = url.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
    if (!filename) throw new TypeError('A SQLite URL names a file, as in "sqlite:./data/tools.db", or "sqlite::memory:".');
    return { db: new Kysely({ dialect: new SqliteDialect({ database: () => openSqlite(filename) }) }), dialect: "sqlite" };
  }

  // Only a scheme the pattern matched is quoted: text without one may be a password.
  const what = scheme ? `scheme "${scheme}:"` : "URL without a scheme";
  throw new TypeError(`Unsupported database ${what}: use postgres://, mysql://, mariadb:// or sqlite:.`);
}

/** The part of mysql2 used here. */
interface MysqlModule {
  createPool(config: object): MysqlPool & { on(event: string, listener: (...args: any[]) => void): void };
  createConnection(config: object): MysqlConnection;
}

/** Loads an optional driver, or throws an Error saying which package to install. */
async function importDriver<T>(name: string, what: string): Promise<T> {
  try {
    const module = (await import(name)) as T & { default?: T };
    return (module.default ?? module) as T;
  } catch (error) {
    throw new Error(`${what} needs the "${name}" package: run \`npm install ${name}\`.`, { cause: error });
  }
}
