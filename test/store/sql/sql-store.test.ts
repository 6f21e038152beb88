/**
 * What the SQL store adds to the conformance suite, on each database: migrations (idempotent,
 * concurrent, indexed), exact string comparison, leases across instances, and the errors a
 * missing table or a missing server gives.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../../src/core/errors.js";
import { openDatabase } from "../../../src/store/sql/connect.js";
import { migrate } from "../../../src/store/sql/migrations.js";
import { type SqlToolsStore, sqlStore } from "../../../src/store/sql/store.js";
import type { ConnectionRecord } from "../../../src/store/types.js";
import { dropTables, randomPrefix, type SqlTarget, skipSuite, TARGETS, unavailableReason } from "../../support/sql-servers.js";

for (const target of Object.values(TARGETS) as SqlTarget[]) {
  const reason = await unavailableReason(target);
  if (reason) {
    skipSuite(`sqlStore on ${target.name}`, reason);
    continue;
  }
  // SQLite in memory is one database per connection: these tests share one file instead.
  const dir = target.dialect === "sqlite" ? mkdtempSync(join(tmpdir(), "tools-proxy-sql-")) : null;
  const url = dir ? `sqlite:${join(dir, "tools.db")}` : target.url;

  describe(`sqlStore on ${target.name}`, () => {
    const tablePrefix = randomPrefix("s");
    let admin: Kysely<any>;
    const stores: SqlToolsStore[] = [];
    const open = (options: Partial<Parameters<typeof sqlStore>[0]> = {}) => {
      const store = sqlStore({ url, tablePrefix, ...options } as Parameters<typeof sqlStore>[0]);
      stores.push(store);
      return store;
    };

    beforeAll(async () => {
      admin = openDatabase(url).db;
      await migrate(admin, { tablePrefix });
    });
    afterAll(async () => {
      await Promise.all(stores.map((store) => store.close()));
      await dropTables(admin, tablePrefix);
      await admin.destroy();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("migrates once: three processes starting at once apply each migration exactly once, a later run applies nothing", async () => {
      // Separate processes, as instances starting together would be (and SQLite's driver is synchronous).
      const fresh = randomPrefix("g");
      try {
        const results = await Promise.all([1, 2, 3].map(() => migrateInChild(url, fresh)));
        expect(results.flatMap((r) => r.applied)).toEqual(["0001_tables", "0002_listing_order"]);
        expect((await migrate(admin, { tablePrefix: fresh })).applied).toEqual([]);
      } finally {
        await dropTables(admin, fresh);
      }
    });

    it("indexes the hot lookups: key hash, connections by workspace/agent/toolkit, state hash, expiry", async () => {
      const indexed = await indexedColumns(admin, target, tablePrefix);
      expect(indexed).toEqual(
        expect.arrayContaining([
          `${tablePrefix}api_keys(hash)`,
          `${tablePrefix}api_keys(workspace_id)`,
          `${tablePrefix}connections(workspace_id,agent_id,toolkit,created_at)`,
          `${tablePrefix}connections(workspace_id,toolkit,created_at)`,
          `${tablePrefix}authorizations(state_hash)`,
          `${tablePrefix}authorizations(expires_at)`,
          `${tablePrefix}leases(expires_at)`,
        ]),
      );
    });

    it("compares ids exactly: another case or a trailing space is another workspace", async () => {
      const store = open();
      const workspaceId = `Ws_${crypto.randomUUID()}`;
      await store.createConnection(connection({ workspaceId }));
      expect(await store.listConnections({ workspaceId })).toHaveLength(1);
      expect(await store.listConnections({ workspaceId: workspaceId.toLowerCase() })).toEqual([]);
      expect(await store.listConnections({ workspaceId: `${workspaceId} ` })).toEqual([]);
    });

    it("shares a lease between two instances (two pools): one holds it, the other takes it after it expires", async () => {
      const [a, b] = [open(), open()];
      const lease = `lease_${crypto.randomUUID()}`;
      const now = Date.now();
      expect(await a.acquireLease(lease, "instance-a", 300, new Date(now))).toBe(true);
      expect(await b.acquireLease(lease, "instance-b", 300, new Date(now + 100))).toBe(false);
      expect(await b.acquireLease(lease, "instance-b", 10_000, new Date(now + 450))).toBe(true);
      expect(await a.acquireLease(lease, "instance-a", 10_000, new Date(now + 500))).toBe(false);
    });

    it("refuses oversized lease names and non-positive TTLs with a TypeError", async () => {
      const store = open();
      await expect(store.acquireLease("x".repeat(256), "h", 1000, new Date())).rejects.toThrow(TypeError);
      await expect(store.acquireLease("lease", "h", 0, new Date())).rejects.toThrow(TypeError);
    });

    // A server's connections only: SQLite runs in this process.
    if (target.dialect !== "sqlite")
      it("recovers when the server drops its connections: 503s at worst, then service, no crash", async () => {
        const own = openDatabase(url, { poolSize: 1 }).db;
        const store = sqlStore({ db: own, tablePrefix });
        try {
          const key = `hash_${crypto.randomUUID()}`;
          await store.createApiKey({
            id: `key_${crypto.randomUUID()}`,
            hash: key,
            kind: "service",
            workspaceId: "ws",
            agentId: null,
            hint: "psk_…",
            createdAt: new Date(),
            revokedAt: null,
          });
          const pid =
            target.dialect === "postgres"
              ? sql<{ id: number }>`select pg_backend_pid() as id`
              : sql<{ id: number }>`select connection_id() as id`;
          const { rows } = await pid.execute(own);
          await (target.dialect === "postgres"
            ? sql`select pg_terminate_backend(${rows[0]!.id})`
            : sql`kill connection ${sql.raw(String(Number(rows[0]!.id)))}`
          ).execute(admin);
          await new Promise((resolve) => setTimeout(resolve, 100));
          const outcomes: string[] = [];
          for (let attempt = 0; attempt < 5 && outcomes.at(-1) !== "ok"; attempt++) {
            const outcome = await Promise.resolve(store.getApiKeyByHash(key)).then(
              (found) => (found?.hash === key ? "ok" : "wrong"),
              (error: unknown) => (error instanceof StoreUnavailableError ? "unavailable" : `other: ${(error as Error).message}`),
            );
            outcomes.push(outcome);
          }
          expect(outcomes.at(-1)).toBe("ok");
          expect(outcomes.filter((o) => o !== "ok" && o !== "unavailable")).toEqual([]);
        } finally {
          await own.destroy();
        }
      });

    it("says to run the migrations when the tables are missing", async () => {
      const store = open({ tablePrefix: randomPrefix("m") });
      await expect(store.getApiKeyByHash("x")).rejects.toThrow(/tables are missing.*tools-proxy migrate/);
    });
  });
}

describe("sqlStore on a database that is not there", () => {
  it("throws StoreUnavailableError at once when nothing listens (PostgreSQL and MySQL URLs)", async () => {
    for (const url of ["postgres://u@127.0.0.1:1/db", "mysql://u@127.0.0.1:1/db"]) {
      const store = sqlStore({ url });
      const started = Date.now();
      const error = await Promise.resolve(store.getConnection("conn_x")).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, url).toBeInstanceOf(StoreUnavailableError);
      expect((error as StoreUnavailableError).retryAfter).toBeGreaterThan(0);
      expect((error as Error).message).not.toContain("127.0.0.1");
      expect(Date.now() - started).toBeLessThan(4000);
      await store.close();
    }
  });

  it("throws StoreUnavailableError after timeoutMs when the server accepts but never answers", async () => {
    const net = await import("node:net");
    const sockets = new Set<import("node:net").Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as import("node:net").AddressInfo).port;
    try {
      for (const scheme of ["postgres", "mysql"]) {
        const store = sqlStore({ url: `${scheme}://u@127.0.0.1:${port}/db`, timeoutMs: 300 });
        await expect(store.getApiKeyByHash("x")).rejects.toBeInstanceOf(StoreUnavailableError);
        for (const socket of sockets) socket.destroy();
        await store.close().catch(() => {});
      }
    } finally {
      silent.close();
    }
  });
});

const exec = promisify(execFile);

async function migrateInChild(url: string, tablePrefix: string): Promise<{ applied: string[] }> {
  const child = join(import.meta.dirname, "..", "..", "support", "migrate-child.ts");
  const { stdout } = await exec(process.execPath, ["--import", "tsx", child, url, tablePrefix], { timeout: 15_000 });
  return JSON.parse(stdout) as { applied: string[] };
}

function connection(overrides: Partial<ConnectionRecord>): ConnectionRecord {
  const now = new Date();
  return {
    id: `conn_${crypto.randomUUID()}`,
    workspaceId: `ws_${crypto.randomUUID()}`,
    agentId: "agent",
    toolkit: "github",
    label: "personal",
    remoteUser: "octocat",
    status: "active",
    statusReason: null,
    credentials: "v1.sealed",
    scopes: [],
    params: {},
    credentialsExpireAt: null,
    createdAt: now,
    updatedAt: now,
    version: 1,
    ...overrides,
  };
}

/** Every index (unique ones included) as `table(col,col)`, read from the database's own catalog. */
async function indexedColumns(db: Kysely<any>, target: SqlTarget, prefix: string): Promise<string[]> {
  const like = `${prefix}%`;
  if (target.dialect === "postgres") {
    const { rows } = await sql<{ t: string; cols: string }>`
      select t.relname as t, string_agg(a.attname, ',' order by k.n) as cols
      from pg_index x join pg_class t on t.oid = x.indrelid join pg_class i on i.oid = x.indexrelid
      cross join lateral unnest(x.indkey) with ordinality as k(attnum, n)
      join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
      where t.relname like ${like} and not x.indisprimary group by t.relname, i.relname`.execute(db);
    return rows.map((r) => `${r.t}(${r.cols})`);
  }
  if (target.dialect === "mysql") {
    const { rows } = await sql<{ t: string; cols: string }>`
      select TABLE_NAME as t, group_concat(COLUMN_NAME order by SEQ_IN_INDEX) as cols from information_schema.STATISTICS
      where TABLE_SCHEMA = database() and TABLE_NAME like ${like} and INDEX_NAME <> 'PRIMARY' group by TABLE_NAME, INDEX_NAME`.execute(db);
    return rows.map((r) => `${r.t}(${r.cols})`);
  }
  const { rows } = await sql<{ t: string; cols: string }>`
    select m.name as t, (select group_concat(name, ',') from (select name from pragma_index_info(l.name) order by seqno)) as cols
    from sqlite_master m join pragma_index_list(m.name) l where m.type = 'table' and m.name like ${like} and l.origin <> 'pk'`.execute(db);
  return rows.map((r) => `${r.t}(${r.cols})`);
}
