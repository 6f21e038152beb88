/**
 * Scale-out: two `serve` processes sharing one PostgreSQL database, an OAuth toolkit from a
 * --toolkits file against the real authorization server (node-oidc-provider), and an expired
 * access token. Concurrent executions spread over both make exactly one refresh; then a holder
 * killed (SIGKILL) mid-refresh is taken over by the other instance once its lease runs out.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SqlToolsStore, sqlStore } from "../../src/store/sql/store.js";
import { type OidcServer, startOidcServer } from "../support/oidc-server.js";
import { createPostgresDatabase, type TestDatabase } from "../support/pg-database.js";
import { callApi, missingBuild, type ServeProcess, startServe, writeNotesToolkit } from "../support/serve-process.js";
import { TARGETS, unavailableReason } from "../support/sql-servers.js";

const reason = missingBuild ?? (await unavailableReason(TARGETS.postgres));
const REDIS_URL = process.env.TOOLS_PROXY_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const redisReason = reason ?? (await redisUnavailable(REDIS_URL));
const PUBLIC_URL = "http://tools.test"; // never contacted: the fixture hands the callback URL back
const LEASE_MS = 3000;
const SECRET = `scale-out-secret-${Math.random().toString(36).slice(2)}-0123456789`;

scaleOut("the leases in PostgreSQL", reason, []);
scaleOut("the leases in Redis (--redis-url)", redisReason, ["--redis-url", REDIS_URL]);

function scaleOut(leases: string, skip: string | null, extraArgs: string[]): void {
  describe.skipIf(skip)(
    skip ? `scale-out, ${leases} (skipped: ${skip})` : `scale-out: two serve processes on one PostgreSQL, ${leases}`,
    () => {
      let as: OidcServer;
      let database: TestDatabase;
      let store: SqlToolsStore;
      let dir: string;
      let a: ServeProcess;
      let b: ServeProcess;
      let key: string;
      let connectionId: string;

      const refreshes = () => as.tokenRequests.filter((r) => r.grantType === "refresh_token");
      const execute = (serve: ServeProcess) =>
        callApi(serve.api, key, "/execute", { tool: "NOTES_ME", arguments: {} }).then(async (response) => ({
          status: response.status,
          body: await response.json(),
        }));

      beforeAll(async () => {
        as = await startOidcServer({ redirectUris: [`${PUBLIC_URL}/proxy/tools/auth/callback`] });
        database = await createPostgresDatabase("scale");
        dir = mkdtempSync(join(tmpdir(), "tools-proxy-scale-"));
        const notes = writeNotesToolkit(dir, as);
        const env = { TOOLS_PROXY_SECRET: SECRET, TOOLS_PROXY_DATABASE_URL: database.url, NOTES_CLIENT_SECRET: as.clientSecret };
        const args = [
          "--no-demo",
          "--public-url",
          PUBLIC_URL,
          "--toolkits",
          notes,
          "--refresh-lease-ms",
          String(LEASE_MS),
          "--data-dir",
          join(dir, "data"),
          ...extraArgs,
        ];
        a = await startServe(args, env);
        b = await startServe(args, env);
        store = sqlStore({ url: database.url });
      });

      afterAll(async () => {
        await Promise.all([a?.kill(), b?.kill()]);
        await store?.close();
        await as?.close();
        await database?.drop();
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      it("the first instance creates the one agent key; the second finds it in the shared data", () => {
        expect(a.key).toMatch(/^pak_/);
        expect(b.key).toBeNull();
        key = a.key!;
      });

      it("connects through both: the flow starts on one instance and its callback lands on the other", async () => {
        as.setAccessTokenTtl(3); // the access token of this connection expires soon after the flow
        const started = await callApi(a.api, key, "/auth", { toolkit: "notes" });
        expect(started.status).toBe(200);
        const { authorizationId, authorizationUrl } = await started.json();
        const callbackUrl = await as.authorizeWithFetch(authorizationUrl);
        const callback = await fetch(`${b.origin}${callbackUrl.pathname}${callbackUrl.search}`, { redirect: "manual" });
        expect(callback.status).toBeLessThan(400);
        const status = await (await callApi(a.api, key, `/auth/${authorizationId}`)).json();
        expect(status).toMatchObject({ status: "connected" });
        connectionId = status.connectionId;
        as.setAccessTokenTtl(3600);
        const expiresAt = (await store.getConnection(connectionId))!.credentialsExpireAt!.getTime();
        while (Date.now() <= expiresAt) await new Promise((resolve) => setTimeout(resolve, 50));
      });

      it("40 concurrent executions over both instances on the expired token: one refresh, all succeed", async () => {
        as.tokenRequests.length = 0;
        as.apiRequests.length = 0;
        const before = (await store.getConnection(connectionId))!;
        const results = await Promise.all(Array.from({ length: 40 }, (_, i) => execute(i % 2 ? b : a)));
        expect(results.filter((r) => r.status !== 200 || r.body.successful !== true)).toEqual([]);
        expect(results.every((r) => r.body.data.sub === "alice")).toBe(true);
        expect(refreshes()).toHaveLength(1);
        expect(as.apiRequests.filter((r) => r.status !== 200)).toEqual([]); // no call went out with the expired token
        const after = (await store.getConnection(connectionId))!;
        expect(after.credentialsExpireAt!.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
        expect(after.version).toBeGreaterThan(before.version);
        expect(after.credentials).not.toBe(before.credentials);
      });

      it("a holder killed mid-refresh: the other instance takes over once the lease expires, and the connection works", async () => {
        // The stored token is marked expired again, through the library on the same database.
        await store.updateConnection(connectionId, { credentialsExpireAt: new Date(Date.now() - 1000), updatedAt: new Date() });
        as.tokenRequests.length = 0;
        as.setTokenDelay(30_000); // the holder's token request hangs

        const onA = execute(a).catch((error: unknown) => error); // A takes the lease and waits on the token endpoint
        await waitFor(() => refreshes().length === 1);
        const onB = Array.from({ length: 10 }, () => execute(b)); // B's callers wait for A's lease
        await new Promise((resolve) => setTimeout(resolve, 300));
        await a.kill();
        as.setTokenDelay(0);

        const results = await Promise.all(onB);
        expect(results.filter((r) => r.status !== 200 || r.body.successful !== true)).toEqual([]);
        expect(await onA).toBeInstanceOf(Error); // its client saw the crash
        const [held, takeover] = refreshes();
        expect(refreshes()).toHaveLength(2);
        // B refreshed only after A's lease ran out, not alongside it.
        expect(takeover!.at - held!.at).toBeGreaterThanOrEqual(LEASE_MS - 500);

        const after = (await store.getConnection(connectionId))!;
        expect(after).toMatchObject({ status: "active" });
        expect(after.credentialsExpireAt!.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
        const again = await execute(b);
        expect(again.body).toMatchObject({ successful: true, data: { sub: "alice" } });
        expect(refreshes()).toHaveLength(2);
        expect(b.stderr()).not.toContain(SECRET);
      });
    },
  );
}

/** Null when a Redis server answers PING at the URL, else why not. */
async function redisUnavailable(url: string): Promise<string | null> {
  const { hostname, port } = new URL(url);
  const { connect } = await import("node:net");
  return new Promise((resolve) => {
    const socket = connect(Number(port || 6379), hostname);
    const done = (why: string | null) => (socket.destroy(), resolve(why));
    socket.setTimeout(2000, () => done(`Redis did not answer at ${hostname}:${port} within 2 s`));
    socket.once("error", (error: NodeJS.ErrnoException) =>
      done(`Redis is not reachable at ${hostname}:${port} (${error.code ?? error.message})`),
    );
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => done(String(data).startsWith("+PONG") ? null : `Redis at ${hostname}:${port} did not answer PING`));
  });
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
