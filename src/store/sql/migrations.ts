import { type CreateTableBuilder, type Kysely, sql } from "kysely";
import { type Migration, type MigrationResultSet, Migrator } from "kysely/migration";
import { detectDialect, mysqlBinaryCollation, type SqlDialect } from "./dialect.js";
import { DEFAULT_TABLE_PREFIX, listingIndexNames, tableNames } from "./schema.js";

/** Options of `migrate`. */
export interface MigrateOptions {
  /** Prefix of the store's tables. Default `tools_proxy_`; use the same one as `sqlStore`. */
  tablePrefix?: string;
  /** The database's dialect; detected from the Kysely instance when omitted. */
  dialect?: SqlDialect;
}

/** What `migrate` did: the names of the migrations it applied now (empty when up to date). */
export interface MigrateResult {
  applied: string[];
}

/**
 * Creates or upgrades the store's tables to the version this library needs. Safe to run at every
 * start and from several instances at once: applied migrations are recorded in
 * `<prefix>migrations`, and Kysely's migration lock lets one instance apply them while the
 * others wait. Throws an Error naming the failed migration when one fails.
 */
export async function migrate(db: Kysely<any>, options: MigrateOptions = {}): Promise<MigrateResult> {
  const prefix = options.tablePrefix ?? DEFAULT_TABLE_PREFIX;
  const dialect = options.dialect ?? detectDialect(db);
  const names = tableNames(prefix);
  const migrator = (disableTransactions: boolean) =>
    new Migrator({
      db,
      provider: { getMigrations: async () => migrations(dialect, prefix) },
      migrationTableName: names.migrations,
      migrationLockTableName: names.migrationLock,
      disableTransactions,
    });
  const { error, results = [] } = dialect === "sqlite" ? await migrateSqlite(db, migrator) : await migrator(false).migrateToLatest();
  if (error) {
    const failed = results.find((result) => result.status === "Error")?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`tools-proxy: migrating the store's tables failed${failed ? ` at "${failed}"` : ""}: ${reason}`, { cause: error });
  }
  return { applied: results.filter((result) => result.status === "Success").map((result) => result.migrationName) };
}

/**
 * Kysely takes no migration lock on SQLite, which it assumes has one connection; but two
 * processes may open one file (a `serve` and a `tools-proxy migrate`). So the whole run is one
 * `BEGIN IMMEDIATE` transaction: SQLite's write lock lets one process migrate while the other
 * waits (busy timeout), then finds the work done. It relies on the instance having a single
 * connection (Kysely's SqliteDialect), used by nothing else meanwhile; where BEGIN IMMEDIATE is
 * refused, Kysely's own run is used.
 */
async function migrateSqlite(db: Kysely<any>, migrator: (disableTransactions: boolean) => Migrator): Promise<MigrationResultSet> {
  try {
    await sql`begin immediate`.execute(db);
  } catch {
    return migrator(false).migrateToLatest();
  }
  let outcome: MigrationResultSet | undefined;
  try {
    outcome = await migrator(true).migrateToLatest();
    return outcome;
  } finally {
    await sql.raw(outcome && !outcome.error ? "commit" : "rollback").execute(db);
  }
}

/** Every migration, in order. Never edit one that has shipped: add the next instead. */
function migrations(dialect: SqlDialect, prefix: string): Record<string, Migration> {
  return {
    "0001_tables": { up: (db) => createTables(db, dialect, prefix) },
    "0002_listing_order": { up: (db) => createListingIndexes(db, prefix) },
  };
}

/**
 * Indexes in the listings' order, (created_at, id) after the filter's columns, so that a page is
 * a range read of the index however deep it is: an agent's connections, a workspace's, and a
 * workspace's API keys. (The toolkit listings use 0001's indexes, in created_at order; ties on the
 * same millisecond are few and sorted on the spot.)
 */
async function createListingIndexes(db: Kysely<any>, prefix: string): Promise<void> {
  const t = tableNames(prefix);
  const index = listingIndexNames(prefix);
  await db.schema
    .createIndex(index.connectionsAgentOrder)
    .on(t.connections)
    .columns(["workspace_id", "agent_id", "created_at", "id"])
    .execute();
  await db.schema.createIndex(index.connectionsWorkspaceOrder).on(t.connections).columns(["workspace_id", "created_at", "id"]).execute();
  await db.schema.createIndex(index.apiKeysWorkspaceOrder).on(t.apiKeys).columns(["workspace_id", "created_at", "id"]).execute();
}

async function createTables(db: Kysely<any>, dialect: SqlDialect, prefix: string): Promise<void> {
  const t = tableNames(prefix);
  const id = "varchar(255)";
  // MySQL's TEXT holds 64 KiB; an encrypted credential with a large id_token can pass that.
  const long = dialect === "mysql" ? sql`mediumtext` : "text";
  const tableOptions = await mysqlTableOptions(db, dialect);
  const create = (name: string) => db.schema.createTable(name).$call(tableOptions);

  await create(t.apiKeys)
    .addColumn("id", id, (c) => c.primaryKey())
    .addColumn("hash", id, (c) => c.notNull().unique())
    .addColumn("kind", "varchar(16)", (c) => c.notNull())
    .addColumn("workspace_id", id, (c) => c.notNull())
    .addColumn("agent_id", id)
    .addColumn("hint", id, (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("revoked_at", "bigint")
    .execute();
  await db.schema.createIndex(`${prefix}keys_by_workspace`).on(t.apiKeys).columns(["workspace_id"]).execute();

  await create(t.connections)
    .addColumn("id", id, (c) => c.primaryKey())
    .addColumn("workspace_id", id, (c) => c.notNull())
    .addColumn("agent_id", id, (c) => c.notNull())
    .addColumn("toolkit", id, (c) => c.notNull())
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("remote_user", "text", (c) => c.notNull())
    .addColumn("status", "varchar(16)", (c) => c.notNull())
    .addColumn("status_reason", "text")
    .addColumn("credentials", long, (c) => c.notNull())
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("params", "text", (c) => c.notNull())
    .addColumn("credentials_expire_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .execute();
  // An agent's connections (to one toolkit), and a workspace's connections to one toolkit, oldest first.
  const index = listingIndexNames(prefix);
  await db.schema
    .createIndex(index.connectionsByAgent)
    .on(t.connections)
    .columns(["workspace_id", "agent_id", "toolkit", "created_at"])
    .execute();
  await db.schema.createIndex(index.connectionsByToolkit).on(t.connections).columns(["workspace_id", "toolkit", "created_at"]).execute();

  await create(t.authorizations)
    .addColumn("id", id, (c) => c.primaryKey())
    .addColumn("state_hash", id, (c) => c.notNull().unique())
    .addColumn("workspace_id", id, (c) => c.notNull())
    .addColumn("agent_id", id, (c) => c.notNull())
    .addColumn("toolkit", id, (c) => c.notNull())
    .addColumn("label", "text")
    .addColumn("return_url", "text")
    .addColumn("secrets", long, (c) => c.notNull())
    .addColumn("status", "varchar(16)", (c) => c.notNull())
    .addColumn("connection_id", id)
    .addColumn("error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("consumed_at", "bigint")
    .execute();
  await db.schema.createIndex(`${prefix}auth_expiry`).on(t.authorizations).columns(["expires_at"]).execute();

  await create(t.leases)
    .addColumn("name", id, (c) => c.primaryKey())
    .addColumn("holder", id, (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex(`${prefix}lease_expiry`).on(t.leases).columns(["expires_at"]).execute();
}

/** On MySQL/MariaDB: InnoDB (row locks, transactions) and a byte-exact collation; elsewhere nothing. */
async function mysqlTableOptions(db: Kysely<any>, dialect: SqlDialect) {
  if (dialect !== "mysql") return <T extends CreateTableBuilder<any, any>>(builder: T) => builder;
  const collation = await mysqlBinaryCollation(db);
  return <T extends CreateTableBuilder<any, any>>(builder: T) =>
    builder.modifyEnd(sql`engine = InnoDB default character set utf8mb4 collate ${sql.raw(collation)}`) as T;
}
