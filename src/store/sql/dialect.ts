import { type Kysely, MysqlAdapter, PostgresAdapter, SqliteAdapter, sql } from "kysely";

/** The SQL dialects the store speaks. MariaDB is "mysql". */
export type SqlDialect = "postgres" | "mysql" | "sqlite";

/**
 * The dialect of a Kysely instance, from its adapter: Kysely's own (and dialects built on them,
 * such as PGlite's or libSQL's), else the adapter's class name. Throws a TypeError naming the
 * `dialect` option when it cannot tell.
 */
export function detectDialect(db: Kysely<any>): SqlDialect {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) return "postgres";
  if (adapter instanceof MysqlAdapter) return "mysql";
  if (adapter instanceof SqliteAdapter) return "sqlite";
  const name = adapter.constructor?.name ?? "";
  if (/postgres|pglite|neon/i.test(name)) return "postgres";
  if (/mysql|maria|planetscale/i.test(name)) return "mysql";
  if (/sqlite|libsql|d1/i.test(name)) return "sqlite";
  throw new TypeError(
    `Cannot tell the SQL dialect of this Kysely instance (adapter "${name || "unknown"}"); pass dialect: "postgres", "mysql" or "sqlite".`,
  );
}

/**
 * A binary collation without trailing-space padding, for MySQL/MariaDB tables: ids, hashes and
 * workspace names must compare byte for byte ("Ws" is not "ws", "a " is not "a"). MySQL 8 has
 * `utf8mb4_0900_bin`, MariaDB `utf8mb4_nopad_bin`; older servers fall back to `utf8mb4_bin`.
 */
export async function mysqlBinaryCollation(db: Kysely<any>): Promise<string> {
  const preferred = ["utf8mb4_0900_bin", "utf8mb4_nopad_bin"];
  const { rows } = await sql<{
    name: string;
  }>`select COLLATION_NAME as name from information_schema.COLLATIONS where COLLATION_NAME in (${sql.join(preferred)})`.execute(db);
  const available = new Set(rows.map((row) => row.name));
  return preferred.find((name) => available.has(name)) ?? "utf8mb4_bin";
}
