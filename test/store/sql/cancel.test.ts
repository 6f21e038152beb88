/**
 * A request that ends ends its query (issue 22, target 2), on PostgreSQL and MariaDB over real
 * HTTP: another session locks the connections table, so `GET /connections` waits in the database.
 * Past the store's timeout the answer is a 503, and the statement is gone from the server's own
 * list of running queries (cancelled there, not left to load its rows); so it is when the client
 * hangs up instead. The store's only pooled connection serves the next request while the lock is
 * still held, which it could not if the cancelled statement still held it.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toNodeHandler } from "../../../adapters/node.js";
import { createToolsHandler, issueApiKey } from "../../../src/index.js";
import { openDatabase } from "../../../src/store/sql/connect.js";
import { migrate } from "../../../src/store/sql/migrations.js";
import { tableNames } from "../../../src/store/sql/schema.js";
import { sqlStore } from "../../../src/store/sql/store.js";
import { dropTables, randomPrefix, type SqlTarget, skipSuite, TARGETS, unavailableReason } from "../../support/sql-servers.js";

const SECRET = `cancel-test-secret-${crypto.randomUUID()}`;

for (const target of [TARGETS.postgres, TARGETS.mariadb] as SqlTarget[]) {
  const reason = await unavailableReason(target);
  if (reason) {
    skipSuite(`queries that stop with their request on ${target.name}`, reason);
    continue;
  }

  describe(`queries that stop with their request on ${target.name}`, () => {
    const tablePrefix = randomPrefix("x");
    const connections = tableNames(tablePrefix).connections;
    const admin = openDatabase(target.url).db;
    beforeAll(() => migrate(admin, { tablePrefix }));
    afterAll(async () => {
      await dropTables(admin, tablePrefix);
      await admin.destroy();
    });

    /** A handler on a store with one pooled connection, served over HTTP, with an agent key and one connection. */
    async function serve(timeoutMs: number) {
      const db = openDatabase(target.url, { poolSize: 1 }).db;
      const store = sqlStore({ db, tablePrefix, timeoutMs });
      const tools = createToolsHandler({ store, secret: SECRET });
      const workspaceId = `ws_${crypto.randomUUID()}`;
      const { key } = await issueApiKey(store, { workspaceId, agentId: "agent" });
      const now = new Date();
      await store.createConnection({
        id: `conn_${crypto.randomUUID()}`,
        workspaceId,
        agentId: "agent",
        toolkit: "github",
        label: "work",
        remoteUser: "octocat",
        status: "active",
        statusReason: null,
        credentials: "v1.unused",
        scopes: [],
        params: {},
        credentialsExpireAt: null,
        createdAt: now,
        updatedAt: now,
        version: 1,
      });
      const server = createServer(toNodeHandler(tools));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/proxy/tools`;
      const close = async () => {
        await closeServer(server);
        await tools.close();
        await db.destroy();
      };
      return { url, key, close };
    }

    it("past the store's timeout: a 503, the query cancelled in the database, the pooled connection free", async () => {
      const app = await serve(400);
      const lock = await lockTable(admin, target, connections);
      try {
        const response = await fetch(`${app.url}/connections`, { headers: { "x-api-key": app.key } });
        expect(response.status).toBe(503);
        expect(response.headers.get("retry-after")).toBeTruthy();
        expect(await response.json()).toEqual({ error: expect.stringMatching(/retry/i), code: "unavailable" });

        await waitFor(async () => (await runningQueries(admin, target, connections)) === 0, "the query is gone from the server");
        await expectPoolFree(app);
      } finally {
        await lock.release();
        await app.close();
      }
    });

    it("when the client hangs up: the query cancelled in the database, the pooled connection free", async () => {
      // A timeout far beyond the test's: only the client going away can stop this query.
      const app = await serve(120_000);
      const lock = await lockTable(admin, target, connections);
      try {
        const hangUp = requestThenHangUp(`${app.url}/connections`, app.key);
        await waitFor(async () => (await runningQueries(admin, target, connections)) === 1, "the query waits on the lock");
        hangUp();
        await waitFor(async () => (await runningQueries(admin, target, connections)) === 0, "the query is gone from the server");
        await expectPoolFree(app);
      } finally {
        await lock.release();
        await app.close();
      }
      const after = await serve(10_000);
      try {
        const listed = await fetch(`${after.url}/connections`, { headers: { "x-api-key": after.key } });
        expect(listed.status, "with the lock gone the same listing answers").toBe(200);
        expect(((await listed.json()) as { connections: unknown[] }).connections).toHaveLength(1);
      } finally {
        await after.close();
      }
    });
  });
}

/**
 * Holds a lock on `table` from a session of its own until `release`: one that makes every read
 * wait (PostgreSQL's ACCESS EXCLUSIVE in a transaction, MariaDB's LOCK TABLES … WRITE).
 */
async function lockTable(db: Kysely<any>, target: SqlTarget, table: string): Promise<{ release(): Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let locked!: () => void;
  let failed!: (error: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => {
    locked = resolve;
    failed = reject;
  });
  const session = db
    .connection()
    .execute(async (conn) => {
      if (target.dialect === "postgres") {
        await sql`begin`.execute(conn);
        await sql`lock table ${sql.table(table)} in access exclusive mode`.execute(conn);
        locked();
        await released;
        await sql`rollback`.execute(conn);
      } else {
        await sql`lock tables ${sql.table(table)} write`.execute(conn);
        locked();
        await released;
        await sql`unlock tables`.execute(conn);
      }
    })
    .catch(failed);
  await ready;
  return {
    async release() {
      release();
      await session;
    },
  };
}

/** How many statements other sessions are running on `table`, from the server's own list. */
async function runningQueries(db: Kysely<any>, target: SqlTarget, table: string): Promise<number> {
  const pattern = `%${table}%`;
  const { rows } =
    target.dialect === "postgres"
      ? await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where pid <> pg_backend_pid() and state = 'active' and query like ${pattern} and query not like 'lock table%'`.execute(db)
      : await sql<{ n: number }>`select count(*) as n from information_schema.PROCESSLIST
          where ID <> connection_id() and COMMAND = 'Query' and INFO like ${pattern} and INFO not like 'lock tables%'`.execute(db);
  return Number(rows[0]!.n);
}

/**
 * With the lock still held, a request that reads other tables (the key, an authorization) is
 * answered: the store's only pooled connection is free again.
 */
async function expectPoolFree(app: { url: string; key: string }): Promise<void> {
  const response = await fetch(`${app.url}/auth/auth_unknown`, { headers: { "x-api-key": app.key } });
  expect(response.status, "the pooled connection serves the next request").toBe(404);
}

/** Sends a GET and returns a function that closes its socket before the answer. */
function requestThenHangUp(url: string, key: string): () => void {
  const request = httpRequest(url, { headers: { "x-api-key": key } });
  request.on("error", () => {}); // the hang-up itself
  request.end();
  return () => request.destroy();
}

/** Polls `condition` until it holds, failing with `what` after 15 s. */
async function waitFor(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
