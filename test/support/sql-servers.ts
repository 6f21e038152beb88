/**
 * The SQL databases the store tests run against, and whether each is there.
 *
 * PostgreSQL and MariaDB are the servers on this machine (override with TOOLS_PROXY_TEST_POSTGRES_URL
 * and TOOLS_PROXY_TEST_MYSQL_URL); SQLite is Node's built-in node:sqlite. A test file that needs an
 * absent server skips, printing why. CI (.ci/run) starts the servers, so there they always run.
 */
import { type Kysely, sql } from "kysely";
import { describe, it } from "vitest";
import { openDatabase } from "../../src/store/sql/connect.js";
import type { SqlDialect } from "../../src/store/sql/dialect.js";
import { tableNames } from "../../src/store/sql/schema.js";

export const POSTGRES_URL = process.env.TOOLS_PROXY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const MYSQL_URL = process.env.TOOLS_PROXY_TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";

export interface SqlTarget {
  name: string;
  dialect: SqlDialect;
  url: string;
}

/** Each database a store test may use; SQLite twice (in memory, and a file in a temp directory). */
export const TARGETS = {
  postgres: { name: "PostgreSQL", dialect: "postgres", url: POSTGRES_URL },
  mariadb: { name: "MariaDB", dialect: "mysql", url: MYSQL_URL },
  sqlite: { name: "SQLite", dialect: "sqlite", url: "sqlite::memory:" },
} satisfies Record<string, SqlTarget>;

/** Null when the database answers `select 1` within two seconds, else a sentence saying why not. */
export async function unavailableReason(target: SqlTarget): Promise<string | null> {
  let db: Kysely<any> | undefined;
  try {
    db = openDatabase(target.url, { connectTimeoutMs: 2000, poolSize: 1 }).db;
    await Promise.race([
      sql`select 1`.execute(db),
      new Promise((_, reject) => setTimeout(() => reject(new Error("no answer within 2 s")), 2000)),
    ]);
    return null;
  } catch (error) {
    const e = error as { code?: string; message?: string; cause?: { message?: string } };
    return `${target.name} is not reachable at ${redact(target.url)} (${e.code ?? e.cause?.message ?? e.message ?? "error"})`;
  } finally {
    await db?.destroy().catch(() => {});
  }
}

/** A fresh table prefix, so test files running at once never share tables. */
export function randomPrefix(tag: string): string {
  return `t${tag}_${Math.random().toString(36).slice(2, 8)}_`;
}

/** Drops every table of a prefix (indexes go with them). */
export async function dropTables(db: Kysely<any>, prefix: string): Promise<void> {
  const t = tableNames(prefix);
  for (const table of [t.apiKeys, t.connections, t.authorizations, t.leases, t.migrations, t.migrationLock]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}

/** Registers a skipped suite whose name says why, and prints the reason. */
export function skipSuite(name: string, reason: string): void {
  console.warn(`${name}: skipped: ${reason}`);
  describe.skip(`${name} (skipped: ${reason})`, () => {
    it("needs the database server", () => {});
  });
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");
}
