/**
 * A PostgreSQL database of its own for a test file (created on the shared server, dropped after),
 * so `serve` processes with the default table names share it with nothing else.
 */
import { sql } from "kysely";
import { openDatabase } from "../../src/store/sql/connect.js";
import { POSTGRES_URL } from "./sql-servers.js";

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createPostgresDatabase(tag: string): Promise<TestDatabase> {
  const name = `tp_${tag}_${Math.random().toString(36).slice(2, 8)}`;
  const { db } = openDatabase(POSTGRES_URL, { poolSize: 1 });
  try {
    await sql`create database ${sql.id(name)}`.execute(db);
  } finally {
    await db.destroy();
  }
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const { db: admin } = openDatabase(POSTGRES_URL, { poolSize: 1 });
      try {
        await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
      } finally {
        await admin.destroy();
      }
    },
  };
}
