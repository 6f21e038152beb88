import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { openDatabase } from "../../src/store/sql/connect.js";
import { migrate } from "../../src/store/sql/migrations.js";
import { sqlStore } from "../../src/store/sql/store.js";
import { toolsStoreConformance } from "../../src/testing/tools-store.js";
import { dropTables, randomPrefix, type SqlTarget, skipSuite, unavailableReason } from "./sql-servers.js";

/**
 * Runs the ToolsStore conformance suite against a server database, on tables of a fresh prefix
 * (dropped afterwards). Every test gets two stores, so two pools, raced as two processes would be.
 */
export async function serverConformance(target: SqlTarget): Promise<void> {
  const reason = await unavailableReason(target);
  if (reason) return skipSuite(`ToolsStore conformance: ${target.name}`, reason);
  const tablePrefix = randomPrefix("c");
  const admin = openDatabase(target.url).db;
  await migrate(admin, { tablePrefix });
  afterAll(async () => {
    await dropTables(admin, tablePrefix);
    await admin.destroy();
  });
  toolsStoreConformance(`${target.name} (sqlStore)`, () => sqlStore({ url: target.url, tablePrefix }), { instances: 2 });
}

/** SQLite in memory: each store is its own database, migrated when made. */
export function sqliteMemoryConformance(): void {
  toolsStoreConformance("SQLite in memory (sqlStore)", async () => {
    const store = sqlStore({ url: "sqlite::memory:" });
    await store.migrate();
    return store;
  });
}

/** SQLite in a file: every test opens the same file anew, as a restarted or second process would. */
export async function sqliteFileConformance(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "tools-proxy-sqlite-"));
  const url = `sqlite:${join(dir, "tools.db")}`;
  const admin = sqlStore({ url });
  await admin.migrate();
  await admin.close();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  toolsStoreConformance("SQLite file (sqlStore)", () => sqlStore({ url }), { instances: 2 });
}
