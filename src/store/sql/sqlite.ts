import type { SqliteDatabase, SqliteStatement } from "kysely";

/** The subset of `node:sqlite`'s StatementSync and `bun:sqlite`'s Statement used here. */
interface NativeStatement {
  all(...parameters: unknown[]): unknown[];
  run(...parameters: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...parameters: unknown[]): IterableIterator<unknown>;
  /** node:sqlite: the result columns; empty for a statement that returns no rows. */
  columns?(): unknown[];
  /** bun:sqlite: the result column names; empty for a statement that returns no rows. */
  columnNames?: string[];
}

/** The subset of `node:sqlite`'s DatabaseSync and `bun:sqlite`'s Database used here. */
interface NativeDatabase {
  prepare(sql: string): NativeStatement;
  exec(sql: string): unknown;
  close(): void;
}

/**
 * Opens a SQLite database with the runtime's built-in driver — `bun:sqlite` on Bun, `node:sqlite`
 * on Node (22.13 or later; no native build step) — shaped as Kysely's `SqliteDatabase`, so
 * Kysely's own `SqliteDialect` runs on it.
 *
 * `filename` is a file path or `:memory:`. A file database uses write-ahead logging, and waits up
 * to `busyTimeoutMs` for a lock held by another process (a `tools-proxy keys create` next to a
 * running `serve`) before failing with SQLITE_BUSY.
 */
export async function openSqlite(filename: string, options: { busyTimeoutMs?: number } = {}): Promise<SqliteDatabase> {
  const native = await openNative(filename);
  try {
    native.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    if (filename !== ":memory:") native.exec("PRAGMA journal_mode = WAL");
    native.exec("PRAGMA synchronous = NORMAL");
  } catch (error) {
    native.close();
    throw error;
  }
  const prepared = new Map<string, SqliteStatement>();
  return {
    prepare(sql) {
      let found = prepared.get(sql);
      if (found) {
        // Most recently used last, so that the first entry is the one to drop when the cache is full.
        prepared.delete(sql);
      } else {
        found = statement(native, sql);
        if (prepared.size >= STATEMENT_CACHE_SIZE) prepared.delete(prepared.keys().next().value!);
      }
      prepared.set(sql, found);
      return found;
    },
    close: () => {
      prepared.clear();
      native.close();
    },
  };
}

/**
 * How many prepared statements a database keeps for reuse. The store runs a few dozen distinct
 * statements; preparing one again for each query (SQLite parses and plans it) cost GET
 * /connections more than running it.
 */
const STATEMENT_CACHE_SIZE = 200;

// Module names in variables: bundlers leave such imports alone (esbuild would otherwise drop the
// "node:" prefix, which node:sqlite cannot do without, and try to resolve bun:sqlite).
const NODE_SQLITE: string = "node:sqlite";
const BUN_SQLITE: string = "bun:sqlite";

async function openNative(filename: string): Promise<NativeDatabase> {
  if (typeof (globalThis as { Bun?: unknown }).Bun !== "undefined") {
    const { Database } = (await import(/* @vite-ignore */ BUN_SQLITE)) as { Database: new (filename: string) => NativeDatabase };
    return new Database(filename);
  }
  let sqlite: { DatabaseSync: new (filename: string) => NativeDatabase };
  try {
    sqlite = (await import(/* @vite-ignore */ NODE_SQLITE)) as typeof sqlite;
  } catch (error) {
    throw new Error(
      `SQLite needs the built-in node:sqlite module (Node 22.13 or later, or Bun): ${(error as Error).message}. ` +
        "Upgrade Node, or use PostgreSQL or MySQL with --database-url.",
      { cause: error },
    );
  }
  return new sqlite.DatabaseSync(filename);
}

/**
 * Adapts a native statement to Kysely's interface: parameters as an array, and `reader`. `all`
 * and `run` finish before they return, so one prepared statement serves every call; `iterate`
 * gets a statement of its own, since a second query on a shared one would reset the first's rows.
 */
function statement(database: NativeDatabase, sql: string): SqliteStatement {
  const native = database.prepare(sql);
  const columns = native.columns ? native.columns().length : (native.columnNames?.length ?? 0);
  return {
    reader: columns > 0,
    all: (parameters) => native.all(...parameters.map(bindable)),
    run: (parameters) => native.run(...parameters.map(bindable)),
    iterate: (parameters) => database.prepare(sql).iterate(...parameters.map(bindable)),
  };
}

/** node:sqlite binds no booleans or undefined: they become 1/0 and NULL, as better-sqlite3 does. */
function bindable(value: unknown): unknown {
  if (typeof value === "boolean") return value ? 1 : 0;
  return value === undefined ? null : value;
}
