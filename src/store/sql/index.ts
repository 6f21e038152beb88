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

export { type OpenDatabaseOptions, openDatabase } from "./connect.js";
export { detectDialect, type SqlDialect } from "./dialect.js";
export { type MigrateOptions, type MigrateResult, migrate } from "./migrations.js";
export { DEFAULT_TABLE_PREFIX, type StoreDatabase } from "./schema.js";
export { openSqlite } from "./sqlite.js";
export { type SqlStoreOptions, type SqlToolsStore, sqlStore } from "./store.js";
