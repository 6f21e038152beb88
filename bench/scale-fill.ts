/**
 * Fresh databases for `npm run bench:scale`, and the bulk fill: connections and API keys copied
 * in SQL (never through the API) from the real connection and key a server made, so that the big
 * database has the shape of a large workspace without a million HTTP calls.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Kysely, sql } from "kysely";
import { openDatabase } from "../src/store/sql/connect.js";
import type { SqlDialect } from "../src/store/sql/dialect.js";
import { DEFAULT_TABLE_PREFIX, tableNames } from "../src/store/sql/schema.js";
import { progress } from "./report.js";

export interface BenchDatabase {
  name: string;
  dialect: SqlDialect;
  url: string;
  drop(): Promise<void>;
}

const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const MYSQL_URL = process.env.BENCH_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";
const RUN = Math.random().toString(36).slice(2, 8);

/** A database of its own on the shared server (or a SQLite file in a temp directory), dropped by `drop`. */
export async function createDatabase(dialect: SqlDialect, tag: string): Promise<BenchDatabase> {
  if (dialect === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), `tp-scale-${tag}-`));
    return {
      name: `sqlite ${tag}`,
      dialect,
      url: `sqlite:${join(dir, "tools.db")}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const server = dialect === "postgres" ? POSTGRES_URL : MYSQL_URL;
  const name = `tp_scale_${RUN}_${tag}`;
  await withDatabase(server, (db) => sql`create database ${sql.id(name)}`.execute(db));
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    name,
    dialect,
    url: url.toString(),
    drop: async () => {
      const drop =
        dialect === "postgres" ? sql`drop database if exists ${sql.id(name)} with (force)` : sql`drop database if exists ${sql.id(name)}`;
      await withDatabase(server, (db) => drop.execute(db));
    },
  };
}

async function withDatabase<T>(url: string, fn: (db: Kysely<any>) => Promise<T>): Promise<T> {
  const { db } = openDatabase(url, { poolSize: 1 });
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

/**
 * Adds `connections` copies of the connection `connectionId` (agents `fill_0` … each holding
 * `perAgent`, older than the original so that it stays the newest) and `keys` copies of an API
 * key of its workspace (unique made-up hashes: only the original keys open anything), in batches,
 * printing progress. Then updates the planner's statistics.
 */
export async function fill(
  database: BenchDatabase,
  options: { connectionId: string; connections: number; perAgent: number; keys: number; batch: number },
): Promise<number> {
  const t = tableNames(DEFAULT_TABLE_PREFIX);
  const { db } = openDatabase(database.url, { poolSize: 1 });
  const started = performance.now();
  try {
    for (let from = 0; from < options.connections; from += options.batch) {
      const to = Math.min(options.connections, from + options.batch) - 1;
      await copyConnections(db, database.dialect, t.connections, options.connectionId, from, to, options.perAgent, options.connections);
      progress(`${database.name}: ${to + 1} / ${options.connections} connections (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
    for (let from = 0; from < options.keys; from += options.batch) {
      const to = Math.min(options.keys, from + options.batch) - 1;
      await copyKeys(db, database.dialect, t.apiKeys, from, to);
      progress(`${database.name}: ${to + 1} / ${options.keys} API keys (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
    const analyze =
      database.dialect === "postgres"
        ? [sql`analyze ${sql.table(t.connections)}`, sql`analyze ${sql.table(t.apiKeys)}`]
        : database.dialect === "mysql"
          ? [sql`analyze table ${sql.table(t.connections)}, ${sql.table(t.apiKeys)}`]
          : [sql`analyze`];
    for (const statement of analyze) await statement.execute(db);
    return (performance.now() - started) / 1000;
  } finally {
    progress("");
    await db.destroy();
  }
}

/** The numbers `from` … `to` as a row source: generate_series, MariaDB's sequence engine, or a recursive CTE. */
function numbers(dialect: SqlDialect, from: number, to: number) {
  if (dialect === "postgres") return sql`generate_series(${sql.lit(from)}::bigint, ${sql.lit(to)}::bigint) as g(n)`;
  if (dialect === "mysql") return sql`(select seq as n from ${sql.raw(`seq_${from}_to_${to}`)}) as g`;
  return sql`g`;
}

function withNumbers(dialect: SqlDialect, from: number, to: number) {
  return dialect === "sqlite"
    ? sql`with recursive g(n) as (select ${sql.lit(from)} union all select n + 1 from g where n < ${sql.lit(to)}) `
    : sql``;
}

function concat(dialect: SqlDialect, prefix: string, value: ReturnType<typeof sql.raw>) {
  return dialect === "mysql" ? sql`concat(${sql.lit(prefix)}, ${value})` : sql`(${sql.lit(prefix)} || ${value})`;
}

async function copyConnections(
  db: Kysely<any>,
  dialect: SqlDialect,
  table: string,
  connectionId: string,
  from: number,
  to: number,
  perAgent: number,
  total: number,
): Promise<void> {
  const n = sql.raw("g.n");
  const agent =
    dialect === "postgres"
      ? sql.raw(`(g.n / ${perAgent})`)
      : dialect === "mysql"
        ? sql.raw(`(g.n div ${perAgent})`)
        : sql.raw(`(g.n / ${perAgent})`);
  await sql`${withNumbers(dialect, from, to)}insert into ${sql.table(table)}
    (id, workspace_id, agent_id, toolkit, label, remote_user, status, status_reason, credentials, scopes, params,
     credentials_expire_at, created_at, updated_at, version)
    select ${concat(dialect, "conn_fill_", n)}, c.workspace_id, ${concat(dialect, "fill_", agent)}, c.toolkit, c.label, c.remote_user,
      c.status, c.status_reason, c.credentials, c.scopes, c.params, c.credentials_expire_at,
      c.created_at - ${sql.lit(total + 1)} + g.n, c.updated_at, c.version
    from ${numbers(dialect, from, to)} cross join ${sql.table(table)} c where c.id = ${connectionId}`.execute(db);
}

async function copyKeys(db: Kysely<any>, dialect: SqlDialect, table: string, from: number, to: number): Promise<void> {
  const n = sql.raw("g.n");
  await sql`${withNumbers(dialect, from, to)}insert into ${sql.table(table)} (id, hash, kind, workspace_id, agent_id, hint, created_at, revoked_at)
    select ${concat(dialect, "key_fill_", n)}, ${concat(dialect, "fill_hash_", n)}, k.kind, k.workspace_id, ${concat(dialect, "fill_", n)},
      k.hint, k.created_at - ${sql.lit(to + 2)} + g.n, null
    from ${numbers(dialect, from, to)} cross join (select * from ${sql.table(table)} where kind = 'agent' order by created_at limit 1) k`.execute(
    db,
  );
}

/** Rows of the connections table, to print beside the figures. */
export async function countRows(database: BenchDatabase): Promise<{ connections: number; keys: number }> {
  const t = tableNames(DEFAULT_TABLE_PREFIX);
  return withDatabase(database.url, async (db) => {
    const count = async (table: string) =>
      Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db)).rows[0]!.n);
    return { connections: await count(t.connections), keys: await count(t.apiKeys) };
  });
}
