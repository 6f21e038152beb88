import {
  type AbortableQueryOptions,
  type Kysely,
  type Selectable,
  type SelectQueryBuilder,
  sql,
  type UpdateQueryBuilder,
  type UpdateResult,
} from "kysely";
import type {
  ApiKeyRecord,
  AuthorizationPatch,
  AuthorizationRecord,
  ConnectionFilter,
  ConnectionPatch,
  ConnectionRecord,
  ListPage,
} from "../types.js";
import type { SqlDialect } from "./dialect.js";
import * as rows from "./rows.js";
import type { AuthorizationsTable, ConnectionsTable, listingIndexNames, StoreDatabase, TableNames } from "./schema.js";

/** An UPDATE on one of the store's tables, before `RETURNING` is added or not. */
type AnyUpdate = UpdateQueryBuilder<any, any, any, UpdateResult>;

/**
 * A page of a listing, by keyset on (created_at, id): rows after `after` in that order, at most
 * `limit`. `created_at >= ?` is the range an index on (…, created_at, id) answers in every
 * dialect (MariaDB does not use a row comparison `(a, b) > (?, ?)` for a range); the `or` then
 * drops the rows of that same millisecond up to `after`'s id.
 */
function paged<DB, TB extends keyof DB & string, O>(query: SelectQueryBuilder<DB, TB, O>, page: ListPage): SelectQueryBuilder<DB, TB, O> {
  let q = query as unknown as SelectQueryBuilder<any, any, O>;
  if (page.after) {
    const at = page.after.createdAt.getTime();
    const id = page.after.id;
    q = q.where("created_at", ">=", at).where((eb) => eb.or([eb("created_at", ">", at), eb("id", ">", id)]));
  }
  q = q.orderBy("created_at").orderBy("id");
  if (page.limit !== undefined) q = q.limit(page.limit);
  return q as unknown as SelectQueryBuilder<DB, TB, O>;
}

/**
 * The queries behind API keys, connections and authorizations; `sqlStore` wraps each in `guard`.
 * Reads take Kysely's query options, whose signal cancels the statement in the database.
 */
export function recordOperations(
  db: Kysely<StoreDatabase>,
  dialect: SqlDialect,
  t: TableNames,
  indexes: ReturnType<typeof listingIndexNames>,
) {
  /**
   * The table a listing reads, naming on MySQL/MariaDB the index in its order: `FORCE INDEX`.
   * MariaDB's optimiser costs a range by every row after the cursor (the LIMIT does not lower
   * it), finds a deep page's range dearer than reading the table, and falls back to `ref` on the
   * workspace alone: the index in order from the workspace's first entry, each checked against
   * the cursor, 900,000 of them for a page 90% of the way through a million rows. With the index
   * forced it reads the range from the cursor. PostgreSQL and SQLite
   * find the range on their own. Without `index` (the toolkit listings, whose 0001 indexes end
   * at created_at, so that forcing one sorts every row after the cursor) the optimiser chooses.
   */
  function listing<T extends "connections" | "api_keys">(table: T, index: string | undefined) {
    if (dialect !== "mysql" || index === undefined) return db.selectFrom(table);
    const hinted = sql<Selectable<StoreDatabase[T]>>`${sql.table(table)}`.as<T>(sql`${sql.id(table)} force index (${sql.id(index)})`);
    return db.selectFrom(hinted) as unknown as ReturnType<typeof db.selectFrom<T>>;
  }

  /** The index in the order of a connection listing (workspace, agent): (…, created_at, id). */
  function connectionsIndex(filter: ConnectionFilter): string | undefined {
    if (filter.toolkit !== undefined) return undefined;
    return filter.agentId !== undefined ? indexes.connectionsAgentOrder : indexes.connectionsWorkspaceOrder;
  }

  /**
   * Runs a conditional UPDATE and reads the row it changed, as one atomic step: `RETURNING` on
   * PostgreSQL and SQLite; on MySQL a transaction whose row lock keeps other writers off the row
   * until it is read. Null when the condition matched no row.
   */
  async function updateReturning<Row>(
    table: string,
    column: "id" | "state_hash",
    value: string,
    build: (trx: Kysely<StoreDatabase>) => AnyUpdate,
  ): Promise<Row | null> {
    if (dialect !== "mysql") return ((await build(db).returningAll().executeTakeFirst()) as Row | undefined) ?? null;
    return db.transaction().execute(async (trx) => {
      const result = await build(trx).executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return null;
      const row = await (trx as Kysely<any>).selectFrom(table).selectAll().where(column, "=", value).executeTakeFirst();
      return (row as Row | undefined) ?? null;
    });
  }

  return {
    async createApiKey(record: ApiKeyRecord) {
      await db.insertInto(t.apiKeys).values(rows.apiKeyRow(record)).execute();
    },
    async getApiKeyByHash(hash: string, options?: AbortableQueryOptions) {
      const row = await db.selectFrom(t.apiKeys).selectAll().where("hash", "=", hash).executeTakeFirst(options);
      return row ? rows.apiKeyRecord(row) : null;
    },
    async listApiKeys(workspaceId: string, page: ListPage = {}, options?: AbortableQueryOptions) {
      const found = await paged(
        listing(t.apiKeys, indexes.apiKeysWorkspaceOrder).selectAll().where("workspace_id", "=", workspaceId),
        page,
      ).execute(options);
      return found.map(rows.apiKeyRecord);
    },
    async revokeApiKey(id: string, at: Date) {
      const result = await db
        .updateTable(t.apiKeys)
        .set({ revoked_at: at.getTime() })
        .where("id", "=", id)
        .where("revoked_at", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async createConnection(record: ConnectionRecord) {
      await db.insertInto(t.connections).values(rows.connectionRow(record)).execute();
    },
    async getConnection(id: string, options?: AbortableQueryOptions) {
      const row = await db.selectFrom(t.connections).selectAll().where("id", "=", id).executeTakeFirst(options);
      return row ? rows.connectionRecord(row) : null;
    },
    async listConnections(filter: ConnectionFilter, options?: AbortableQueryOptions) {
      let query = listing(t.connections, connectionsIndex(filter)).selectAll().where("workspace_id", "=", filter.workspaceId);
      if (filter.agentId !== undefined) query = query.where("agent_id", "=", filter.agentId);
      if (filter.toolkit !== undefined) query = query.where("toolkit", "=", filter.toolkit);
      const found = await paged(query, filter).execute(options);
      return found.map(rows.connectionRecord);
    },
    /** Compare-and-set when `expectedVersion` is given: `UPDATE … WHERE id = ? AND version = ?`. */
    async updateConnection(id: string, patch: ConnectionPatch, expectedVersion?: number) {
      const row = await updateReturning<Selectable<ConnectionsTable>>(t.connections, "id", id, (trx) => {
        let query = trx
          .updateTable(t.connections)
          .set({ ...rows.connectionPatchRow(patch), version: sql<number>`version + 1` })
          .where("id", "=", id);
        if (expectedVersion !== undefined) query = query.where("version", "=", expectedVersion);
        return query as AnyUpdate;
      });
      return row ? rows.connectionRecord(row) : null;
    },
    async deleteConnection(id: string) {
      const result = await db.deleteFrom(t.connections).where("id", "=", id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async createAuthorization(record: AuthorizationRecord) {
      await db.insertInto(t.authorizations).values(rows.authorizationRow(record)).execute();
    },
    async getAuthorization(id: string, options?: AbortableQueryOptions) {
      const row = await db.selectFrom(t.authorizations).selectAll().where("id", "=", id).executeTakeFirst(options);
      return row ? rows.authorizationRecord(row) : null;
    },
    /** One conditional UPDATE: of concurrent callers, only the first finds `consumed_at` null. */
    async consumeAuthorization(stateHash: string, now: Date) {
      const row = await updateReturning<Selectable<AuthorizationsTable>>(
        t.authorizations,
        "state_hash",
        stateHash,
        (trx) =>
          trx
            .updateTable(t.authorizations)
            .set({ consumed_at: now.getTime() })
            .where("state_hash", "=", stateHash)
            .where("consumed_at", "is", null)
            .where("expires_at", ">", now.getTime()) as AnyUpdate,
      );
      return row ? rows.authorizationRecord(row) : null;
    },
    async updateAuthorization(id: string, patch: AuthorizationPatch) {
      const set = rows.authorizationPatchRow(patch);
      if (Object.keys(set).length === 0) return this.getAuthorization(id);
      const row = await updateReturning<Selectable<AuthorizationsTable>>(
        t.authorizations,
        "id",
        id,
        (trx) => trx.updateTable(t.authorizations).set(set).where("id", "=", id) as AnyUpdate,
      );
      return row ? rows.authorizationRecord(row) : null;
    },

    /** Deletes authorizations whose `expiresAt` is at or before `now`; returns how many. */
    async sweepAuthorizations(now: Date) {
      const result = await db.deleteFrom(t.authorizations).where("expires_at", "<=", now.getTime()).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
