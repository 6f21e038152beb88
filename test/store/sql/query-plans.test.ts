/**
 * Every query the SQL store sends is read through an index once its tables are large: the store's
 * methods run against tables of tens of thousands of rows (filled in bulk by SQL, under a table
 * prefix of this run's own), the SQL Kysely compiles for each is recorded by a plugin, and
 * `EXPLAIN` of each must show no full scan of a filled table: no `Seq Scan` on PostgreSQL, no
 * access type `ALL` on MariaDB. And a deep page of a listing must read its index from the cursor
 * on (`created_at` bounds the index read), as the first page does from the start.
 *
 * Exempt, and why: `listConnections` and `listApiKeys` without `limit` (the whole listing, which
 * the handler never asks for since paging; a user calling it gets what they asked), and the
 * migrator's own queries (not the store's). The admin command `keys list` without `--workspace`
 * reads every key by design and is not a store method.
 */
import { CompiledQuery, type Kysely, type KyselyPlugin, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../../src/store/sql/connect.js";
import { migrate } from "../../../src/store/sql/migrations.js";
import { tableNames } from "../../../src/store/sql/schema.js";
import { sqlStore } from "../../../src/store/sql/store.js";
import { TOOLS_STORE_METHODS, type ToolsStore } from "../../../src/store/types.js";
import { connectionRecord } from "../../../src/testing/store-records.js";
import { dropTables, randomPrefix, type SqlTarget, TARGETS, unavailableReason } from "../../support/sql-servers.js";

/** Rows per table: large enough that a planner prefers an index to reading the table. */
const ROWS = { connections: 30_000, apiKeys: 20_000, authorizations: 20_000, leases: 10_000 };
const BASE_MS = 1_700_000_000_000;

interface Captured {
  method: string;
  sql: string;
  parameters: readonly unknown[];
}

for (const target of [TARGETS.postgres, TARGETS.mariadb] satisfies SqlTarget[]) {
  const reason = await unavailableReason(target);
  describe.skipIf(reason)(`query plans on ${target.name}${reason ? ` (skipped: ${reason})` : ""}`, () => {
    const tablePrefix = randomPrefix("qp");
    const t = tableNames(tablePrefix);
    let admin: Kysely<any>;
    let store: ToolsStore;
    const captured: Captured[] = [];
    let method = "";

    beforeAll(async () => {
      admin = openDatabase(target.url, { poolSize: 2 }).db;
      await migrate(admin, { tablePrefix });
      await fill(admin, target, t);
      // Records the SQL of each store call, compiled exactly as the store's own queries are.
      const recorder: KyselyPlugin = {
        transformQuery({ node, queryId }) {
          const compiled = admin.getExecutor().compileQuery(node, queryId);
          if (/^\s*(select|insert|update|delete)\b/i.test(compiled.sql))
            captured.push({ method, sql: compiled.sql, parameters: compiled.parameters });
          return node;
        },
        transformResult: async ({ result }) => result,
      };
      store = sqlStore({ db: admin.withPlugin(recorder), tablePrefix, dialect: target.dialect });
      await callEveryMethod(store, (name) => {
        method = name;
      });
    }, 300_000);
    afterAll(async () => {
      await dropTables(admin, tablePrefix);
      await admin.destroy();
    });

    it("records a query of every store method", () => {
      const methods = new Set(captured.map((c) => c.method.split(" ")[0]));
      for (const name of [...TOOLS_STORE_METHODS, "sweep"]) expect(methods, `a query of ${name} was recorded`).toContain(name);
    });

    it("no query reads a whole filled table", async () => {
      const big = new Set<string>([t.connections, t.apiKeys, t.authorizations, t.leases]);
      const scans: string[] = [];
      for (const query of captured) {
        const plan = await explain(admin, target, query);
        for (const table of fullScans(plan, target)) if (big.has(table)) scans.push(`${query.method}: ${table}\n  ${query.sql}`);
      }
      expect(scans, "queries that read a whole table").toEqual([]);
    }, 120_000);

    // A deep page must cost what the first does: its index read starts at the cursor. MariaDB's
    // optimiser, left alone, read a workspace's index from its first entry (`ref` on
    // workspace_id) and filtered up to the cursor, 900,000 entries 90% of the way through a
    // million rows (issue 22).
    it("a deep page reads its index from the cursor on", async () => {
      const deep = captured.filter((query) => query.method.endsWith(" deep page"));
      expect(deep.length, "deep pages recorded").toBeGreaterThan(0);
      const unbounded: string[] = [];
      for (const query of deep) {
        const accesses = indexAccesses(await explain(admin, target, query), target);
        if (accesses.length === 0 || accesses.some((access) => !access.bounds.includes("created_at")))
          unbounded.push(`${query.method}: ${JSON.stringify(accesses)}\n  ${query.sql}`);
      }
      expect(unbounded, "deep pages whose index read is not bounded by created_at").toEqual([]);
    }, 120_000);
  });
}

/** The integers 1..n as a derived table with one column `n`, in the target's SQL. */
function numbers(target: SqlTarget, n: number) {
  return target.dialect === "postgres"
    ? sql`(select generate_series(1, ${sql.lit(n)}) as n) as numbers`
    : sql`(select seq as n from ${sql.raw(`seq_1_to_${n}`)}) as numbers`;
}

/**
 * Fills the tables in bulk: one big workspace (nine tenths of the rows) and fifty small ones,
 * 3,000 agents of ten connections, three connections per millisecond; authorizations and leases
 * expiring in the future, as a live system's do. Then the planner's statistics are refreshed.
 */
async function fill(db: Kysely<any>, target: SqlTarget, t: ReturnType<typeof tableNames>) {
  const workspace = sql`case when n % 10 = 0 then concat('w', n % 50) else 'big' end`;
  const future = Date.now() + 86_400_000;
  await sql`insert into ${sql.table(t.connections)}
    (id, workspace_id, agent_id, toolkit, label, remote_user, status, status_reason, credentials, scopes, params,
     credentials_expire_at, created_at, updated_at, version)
    select concat('conn_', n), ${workspace}, concat('a', n % 3000), concat('t', n % 10), 'label', '', 'active', null, 'v1.x', '[]', '{}',
      null, ${sql.lit(BASE_MS)} + floor(n / 3), ${sql.lit(BASE_MS)} + floor(n / 3), 1
    from ${numbers(target, ROWS.connections)}`.execute(db);
  await sql`insert into ${sql.table(t.apiKeys)} (id, hash, kind, workspace_id, agent_id, hint, created_at, revoked_at)
    select concat('key_', n), concat('hash_', n), 'agent', ${workspace}, concat('a', n % 3000), 'pak_...', ${sql.lit(BASE_MS)} + n, null
    from ${numbers(target, ROWS.apiKeys)}`.execute(db);
  await sql`insert into ${sql.table(t.authorizations)}
    (id, state_hash, workspace_id, agent_id, toolkit, label, return_url, secrets, status, connection_id, error, created_at, expires_at, consumed_at)
    select concat('auth_', n), concat('state_', n), ${workspace}, concat('a', n % 3000), 't1', null, null, 'v1.x', 'pending', null, null,
      ${sql.lit(BASE_MS)} + n, ${sql.lit(future)} + n, null
    from ${numbers(target, ROWS.authorizations)}`.execute(db);
  await sql`insert into ${sql.table(t.leases)} (name, holder, expires_at)
    select concat('lease_', n), 'holder', ${sql.lit(future)} + n from ${numbers(target, ROWS.leases)}`.execute(db);
  for (const table of [t.connections, t.apiKeys, t.authorizations, t.leases]) {
    await (target.dialect === "postgres" ? sql`analyze ${sql.table(table)}` : sql`analyze table ${sql.table(table)}`).execute(db);
  }
}

/** Calls every store method the handler uses, with arguments that hit the filled rows; `as` names each call. */
async function callEveryMethod(store: ToolsStore, as: (method: string) => void) {
  const call = async <T>(name: string, fn: () => Promise<T> | T): Promise<T> => {
    as(name);
    return fn();
  };
  const now = new Date();
  const mid = { createdAt: new Date(BASE_MS + 5_000), id: "conn_15001" };
  const connection = connectionRecord({
    id: `conn_plan_${Math.random().toString(36).slice(2)}`,
    workspaceId: "big",
    agentId: "a7",
    toolkit: "t7",
    createdAt: now,
  });

  await call("createApiKey", () =>
    store.createApiKey({
      id: `key_plan_${connection.id}`,
      hash: `hash_plan_${connection.id}`,
      kind: "agent",
      workspaceId: "big",
      agentId: "a7",
      hint: "pak_...",
      createdAt: now,
      revokedAt: null,
    }),
  );
  await call("getApiKeyByHash", () => store.getApiKeyByHash("hash_12345"));
  await call("listApiKeys first page", () => store.listApiKeys("big", { limit: 51 }));
  await call("listApiKeys deep page", () =>
    store.listApiKeys("big", { limit: 51, after: { createdAt: new Date(BASE_MS + 15_000), id: "key_15000" } }),
  );
  await call("revokeApiKey", () => store.revokeApiKey("key_777", now));

  await call("createConnection", () => store.createConnection(connection));
  await call("getConnection", () => store.getConnection("conn_4242"));
  for (const [name, filter] of [
    ["workspace", { workspaceId: "big" }],
    ["agent", { workspaceId: "big", agentId: "a7" }],
    ["workspace toolkit", { workspaceId: "big", toolkit: "t3" }],
    ["agent toolkit", { workspaceId: "big", agentId: "a7", toolkit: "t7" }],
  ] as const) {
    await call(`listConnections ${name} first page`, () => store.listConnections({ ...filter, limit: 51 }));
    await call(`listConnections ${name} deep page`, () => store.listConnections({ ...filter, limit: 51, after: mid }));
  }
  await call("updateConnection", () => store.updateConnection(connection.id, { label: "x", updatedAt: now }));
  await call("updateConnection compare-and-set", () => store.updateConnection(connection.id, { label: "y", updatedAt: now }, 2));
  await call("deleteConnection", () => store.deleteConnection(connection.id));

  const authorizationId = `auth_plan_${connection.id}`;
  await call("createAuthorization", () =>
    store.createAuthorization({
      id: authorizationId,
      stateHash: `state_plan_${connection.id}`,
      workspaceId: "big",
      agentId: "a7",
      toolkit: "t7",
      label: null,
      returnUrl: null,
      secrets: "v1.x",
      status: "pending",
      connectionId: null,
      error: null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + 600_000),
      consumedAt: null,
    }),
  );
  await call("getAuthorization", () => store.getAuthorization("auth_999"));
  await call("consumeAuthorization", () => store.consumeAuthorization(`state_plan_${connection.id}`, now));
  await call("updateAuthorization", () => store.updateAuthorization(authorizationId, { status: "connected" }));

  await call("acquireLease", () => store.acquireLease("lease_123", "someone", 10_000, now));
  await call("acquireLease new", () => store.acquireLease(`lease_plan_${connection.id}`, "someone", 10_000, now));
  await call("releaseLease", () => store.releaseLease(`lease_plan_${connection.id}`, "someone"));
  await call("sweep", () => store.sweep?.(now));
}

/** The plan of one recorded query, as JSON. */
async function explain(db: Kysely<any>, target: SqlTarget, query: Captured): Promise<unknown> {
  const prefix = target.dialect === "postgres" ? "explain (format json) " : "explain format=json ";
  const { rows } = await db.executeQuery(CompiledQuery.raw(prefix + query.sql, [...query.parameters]));
  const cell = Object.values(rows[0] as Record<string, unknown>)[0];
  return typeof cell === "string" ? JSON.parse(cell) : cell;
}

/**
 * The index reads of a plan and what bounds each: on MariaDB the key parts it uses
 * (`used_key_parts`; `ref` on workspace_id alone reads from the workspace's first entry), on
 * PostgreSQL its `Index Cond`.
 */
function indexAccesses(plan: unknown, target: SqlTarget): { index: string; bounds: string }[] {
  const found: { index: string; bounds: string }[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    const record = node as Record<string, unknown>;
    if (target.dialect === "postgres" && typeof record["Index Name"] === "string")
      found.push({ index: record["Index Name"], bounds: String(record["Index Cond"] ?? "") });
    if (target.dialect === "mysql" && typeof record.table_name === "string" && typeof record.key === "string")
      found.push({ index: `${record.key} (${record.access_type})`, bounds: JSON.stringify(record.used_key_parts ?? []) });
    Object.values(record).forEach(visit);
  };
  visit(plan);
  return found;
}

/** The tables a plan reads whole: PostgreSQL's `Seq Scan` nodes, MariaDB's access type `ALL`. */
function fullScans(plan: unknown, target: SqlTarget): string[] {
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    const record = node as Record<string, unknown>;
    if (target.dialect === "postgres" && record["Node Type"] === "Seq Scan") found.push(String(record["Relation Name"]));
    if (target.dialect === "mysql" && record.access_type === "ALL") found.push(String(record.table_name));
    Object.values(record).forEach(visit);
  };
  visit(plan);
  return found;
}
