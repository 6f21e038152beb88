/**
 * `tools-proxy/sql`: a `ToolsStore` on PostgreSQL, MySQL/MariaDB or SQLite through Kysely, with
 * its migrations.
 *
 * ```ts
 * import { sqlStore } from "tools-proxy/sql";
 * const store = sqlStore({ url: process.env.DATABASE_URL! }); // or { db: yourKysely }
 * await store.migrate();
 * const tools = createToolsHandler({ store, secret, toolkits });
 * ```
 */
export { sqlStore, type SqlStoreOptions, type SqlToolsStore } from "./store.js";
export { migrate, type MigrateOptions, type MigrateResult } from "./migrations.js";
export { openDatabase, type OpenDatabaseOptions } from "./connect.js";
export { openSqlite } from "./sqlite.js";
export { detectDialect, type SqlDialect } from "./dialect.js";
export { DEFAULT_TABLE_PREFIX, type StoreDatabase } from "./schema.js";
