import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApiKeyRecord, AuthorizationRecord, Awaitable, ConnectionRecord, ToolsStore } from "../store/types.js";

/** Options of `toolsStoreConformance`. */
export interface ToolsStoreConformanceOptions {
  /** Runs after each test, before `store.close()`, e.g. to drop a temporary database. */
  cleanup?: (store: ToolsStore) => unknown;
}

/**
 * Registers a vitest suite that checks every clause of the `ToolsStore` contract against the
 * stores `factory` returns (one per test, closed after it).
 *
 * Every test uses fresh random ids, workspaces and lease names, so the suite can run against a
 * shared persistent database without wiping it, and several suites may run against it at once.
 * Lease tests wait a few hundred milliseconds in total for TTLs to run out.
 */
export function toolsStoreConformance(
  name: string,
  factory: () => ToolsStore | Promise<ToolsStore>,
  options: ToolsStoreConformanceOptions = {},
): void {
  describe(`ToolsStore conformance: ${name}`, () => {
    let store: ToolsStore;
    beforeEach(async () => {
      store = await factory();
    });
    afterEach(async () => {
      await options.cleanup?.(store);
      await store.close?.();
    });

    describe("API keys", () => {
      it("returns a created key by its hash, as a copy", async () => {
        const key = apiKey();
        await store.createApiKey(key);
        key.hint = "changed after create";
        const found = await store.getApiKeyByHash(key.hash);
        expect(found).toEqual({ ...key, hint: "pak_…test" });
        expect(found!.createdAt).toBeInstanceOf(Date);
        found!.workspaceId = "changed after get";
        expect((await store.getApiKeyByHash(key.hash))!.workspaceId).toBe(key.workspaceId);
      });

      it("returns null for an unknown hash", async () => {
        expect(await store.getApiKeyByHash(randomId("hash"))).toBeNull();
      });

      it("throws on a duplicate hash or a duplicate id, keeping the first key", async () => {
        const key = apiKey();
        await store.createApiKey(key);
        await expect(settle(() => store.createApiKey({ ...key, id: randomId("key") }))).rejects.toThrow();
        await expect(settle(() => store.createApiKey({ ...key, hash: randomId("hash") }))).rejects.toThrow();
        expect(await store.getApiKeyByHash(key.hash)).toEqual(key);
      });

      it("lists the keys of one workspace only", async () => {
        const workspaceId = randomId("ws");
        const mine = [apiKey({ workspaceId }), apiKey({ workspaceId, kind: "service", agentId: null })];
        for (const key of [...mine, apiKey()]) await store.createApiKey(key);
        const listed = await store.listApiKeys(workspaceId);
        expect(sortById(listed)).toEqual(sortById(mine));
        expect(await store.listApiKeys(randomId("ws"))).toEqual([]);
      });

      it("revokes a key once: true, then false; the revoked key is still returned", async () => {
        const key = apiKey();
        await store.createApiKey(key);
        const at = new Date("2025-03-04T05:06:07.891Z");
        expect(await store.revokeApiKey(key.id, at)).toBe(true);
        expect(await store.revokeApiKey(key.id, new Date())).toBe(false);
        const found = await store.getApiKeyByHash(key.hash);
        expect(found!.revokedAt).toBeInstanceOf(Date);
        expect(found!.revokedAt!.getTime()).toBe(at.getTime());
        expect((await store.listApiKeys(key.workspaceId))[0]!.revokedAt!.getTime()).toBe(at.getTime());
      });

      it("returns false when revoking an unknown key", async () => {
        expect(await store.revokeApiKey(randomId("key"), new Date())).toBe(false);
      });
    });

    describe("connections", () => {
      it("returns a created connection by id, with Dates, arrays and objects intact", async () => {
        const connection = connectionRecord({
          scopes: ["repo", "read:user"],
          params: { subdomain: "acme", region: "eu" },
          statusReason: "provider said invalid_grant",
          status: "expired",
          credentialsExpireAt: new Date("2030-01-02T03:04:05.678Z"),
        });
        await store.createConnection(connection);
        const found = await store.getConnection(connection.id);
        expect(found).toEqual(connection);
        for (const date of [found!.createdAt, found!.updatedAt, found!.credentialsExpireAt]) expect(date).toBeInstanceOf(Date);
        expect(found!.createdAt.getTime()).toBe(connection.createdAt.getTime());
        expect(found!.credentialsExpireAt!.getTime()).toBe(connection.credentialsExpireAt!.getTime());
      });

      it("round-trips nulls, empty scopes and empty params", async () => {
        const connection = connectionRecord({ scopes: [], params: {}, statusReason: null, credentialsExpireAt: null });
        await store.createConnection(connection);
        expect(await store.getConnection(connection.id)).toEqual(connection);
      });

      it("returns null for an unknown id", async () => {
        expect(await store.getConnection(randomId("conn"))).toBeNull();
      });

      it("throws on a duplicate id, keeping the first connection", async () => {
        const connection = connectionRecord();
        await store.createConnection(connection);
        await expect(settle(() => store.createConnection({ ...connection, label: "second" }))).rejects.toThrow();
        expect(await store.getConnection(connection.id)).toEqual(connection);
      });

      it("keeps no reference to records passed in or handed out", async () => {
        const connection = connectionRecord({ scopes: ["a"], params: { p: "1" } });
        const original = structuredClone(connection);
        await store.createConnection(connection);
        connection.label = "mutated input";
        connection.scopes.push("mutated");
        connection.params.p = "mutated";

        const got = (await store.getConnection(original.id))!;
        got.label = "mutated get";
        got.scopes.push("mutated");
        got.params.p = "mutated";
        got.createdAt.setTime(0);
        const listed = (await store.listConnections({ workspaceId: original.workspaceId }))[0]!;
        listed.scopes.push("mutated");
        listed.params.q = "mutated";
        expect(await store.getConnection(original.id)).toEqual(original);

        const updated = (await store.updateConnection(original.id, { label: "updated" }))!;
        updated.label = "mutated update";
        updated.scopes.push("mutated");
        expect(await store.getConnection(original.id)).toMatchObject({ label: "updated", scopes: ["a"] });
      });

      it("lists by workspace, agent and toolkit, oldest first", async () => {
        const workspaceId = randomId("ws");
        const [agentA, agentB] = [randomId("agent"), randomId("agent")];
        const at = (ms: number) => new Date(Date.UTC(2024, 0, 1, 0, 0, 0, ms));
        // Created out of order, so that insertion order and age disagree.
        const newest = connectionRecord({ workspaceId, agentId: agentA, toolkit: "alpha", createdAt: at(300) });
        const oldest = connectionRecord({ workspaceId, agentId: agentB, toolkit: "alpha", createdAt: at(100) });
        const middle = connectionRecord({ workspaceId, agentId: agentA, toolkit: "beta", createdAt: at(200) });
        const elsewhere = connectionRecord({ agentId: agentA, toolkit: "alpha", createdAt: at(0) });
        for (const c of [newest, oldest, middle, elsewhere]) await store.createConnection(c);

        const ids = async (filter: Parameters<ToolsStore["listConnections"]>[0]) => (await store.listConnections(filter)).map((c) => c.id);
        expect(await ids({ workspaceId })).toEqual([oldest.id, middle.id, newest.id]);
        expect(await ids({ workspaceId, agentId: agentA })).toEqual([middle.id, newest.id]);
        expect(await ids({ workspaceId, toolkit: "alpha" })).toEqual([oldest.id, newest.id]);
        expect(await ids({ workspaceId, agentId: agentA, toolkit: "alpha" })).toEqual([newest.id]);
        expect(await ids({ workspaceId, agentId: randomId("agent") })).toEqual([]);
        expect(await ids({ workspaceId: randomId("ws") })).toEqual([]);
        expect((await store.listConnections({ workspaceId }))[0]).toEqual(oldest);
      });

      it("applies a patch, increments version and sets updatedAt; the rest is unchanged", async () => {
        const connection = connectionRecord({ credentialsExpireAt: new Date("2030-01-01T00:00:00.001Z") });
        await store.createConnection(connection);
        const patch = {
          label: "renamed",
          status: "revoked" as const,
          statusReason: "revoked by the user",
          scopes: ["x", "y"],
          params: { tenant: "t1" },
          credentials: "v1.encrypted-new",
          credentialsExpireAt: null,
        };
        const updated = await store.updateConnection(connection.id, patch);
        expect(updated).toMatchObject({ ...patch, remoteUser: connection.remoteUser, createdAt: connection.createdAt });
        expect(updated!.version).toBe(connection.version + 1);
        expect(updated!.updatedAt).toBeInstanceOf(Date);
        expect(updated!.updatedAt.getTime()).toBeGreaterThan(connection.updatedAt.getTime());
        expect(await store.getConnection(connection.id)).toEqual(updated);

        const again = await store.updateConnection(connection.id, { credentialsExpireAt: new Date("2031-05-06T07:08:09.123Z") });
        expect(again!.version).toBe(connection.version + 2);
        expect(again!.credentialsExpireAt!.getTime()).toBe(Date.parse("2031-05-06T07:08:09.123Z"));
        expect(again!.label).toBe("renamed");
      });

      it("ignores patch fields that are undefined", async () => {
        const connection = connectionRecord();
        await store.createConnection(connection);
        const updated = await store.updateConnection(connection.id, { label: undefined, credentials: "v1.new" });
        expect(updated).toMatchObject({ label: connection.label, credentials: "v1.new" });
        expect((await store.getConnection(connection.id))!.label).toBe(connection.label);
      });

      it("compare-and-set: succeeds with the current version, returns null on a stale one", async () => {
        const connection = connectionRecord({ version: 3 });
        await store.createConnection(connection);
        const first = await store.updateConnection(connection.id, { label: "first" }, 3);
        expect(first).toMatchObject({ label: "first", version: 4 });
        expect(await store.updateConnection(connection.id, { label: "stale" }, 3)).toBeNull();
        expect(await store.getConnection(connection.id)).toMatchObject({ label: "first", version: 4 });
      });

      it("compare-and-set under concurrency: exactly one of 20 writers with the same version wins", async () => {
        const connection = connectionRecord();
        await store.createConnection(connection);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            settle(() => store.updateConnection(connection.id, { label: `writer ${i}` }, connection.version)),
          ),
        );
        const winners = results.filter((r) => r !== null);
        expect(winners).toHaveLength(1);
        expect(await store.getConnection(connection.id)).toMatchObject({ label: winners[0]!.label, version: connection.version + 1 });
      });

      it("returns null when updating, and false when deleting, an unknown connection", async () => {
        const id = randomId("conn");
        expect(await store.updateConnection(id, { label: "x" })).toBeNull();
        expect(await store.updateConnection(id, { label: "x" }, 1)).toBeNull();
        expect(await store.deleteConnection(id)).toBe(false);
      });

      it("compares ids exactly: another case or a trailing space is another workspace, agent or toolkit", async () => {
        const connection = connectionRecord({ workspaceId: `Ws_${crypto.randomUUID()}`, agentId: "Agent", toolkit: "GitHub" });
        await store.createConnection(connection);
        const { workspaceId } = connection;
        expect(await store.listConnections({ workspaceId })).toHaveLength(1);
        expect(await store.listConnections({ workspaceId: workspaceId.toLowerCase() })).toEqual([]);
        expect(await store.listConnections({ workspaceId: `${workspaceId} ` })).toEqual([]);
        expect(await store.listConnections({ workspaceId, agentId: "agent" })).toEqual([]);
        expect(await store.listConnections({ workspaceId, toolkit: "github" })).toEqual([]);
        expect(await store.getConnection(connection.id.toUpperCase())).toBeNull();
      });

      it("finds nothing, and throws nothing, for a lookup by a value holding a NUL character (e.g. from a request's path)", async () => {
        const connection = connectionRecord();
        await store.createConnection(connection);
        const { workspaceId } = connection;
        const nul = `${connection.id}\u0000`;
        expect(await store.getConnection(nul)).toBeNull();
        expect(await store.updateConnection(nul, { label: "x" })).toBeNull();
        expect(await store.deleteConnection(nul)).toBe(false);
        expect(await store.listConnections({ workspaceId: `${workspaceId}\u0000` })).toEqual([]);
        expect(await store.listConnections({ workspaceId, agentId: "\u0000" })).toEqual([]);
        expect(await store.listConnections({ workspaceId, toolkit: "\u0000" })).toEqual([]);
        expect(await store.getAuthorization("auth_\u0000")).toBeNull();
        expect(await store.updateAuthorization("auth_\u0000", { status: "failed" })).toBeNull();
        expect(await store.consumeAuthorization("\u0000", new Date())).toBeNull();
        expect(await store.getApiKeyByHash("\u0000")).toBeNull();
        expect(await store.listApiKeys("\u0000")).toEqual([]);
        expect(await store.revokeApiKey("key_\u0000", new Date())).toBe(false);
        expect(await store.getConnection(connection.id)).toEqual(connection);
      });

      it("deletes a connection once", async () => {
        const connection = connectionRecord();
        await store.createConnection(connection);
        expect(await store.deleteConnection(connection.id)).toBe(true);
        expect(await store.getConnection(connection.id)).toBeNull();
        expect(await store.listConnections({ workspaceId: connection.workspaceId })).toEqual([]);
        expect(await store.deleteConnection(connection.id)).toBe(false);
      });
    });

    describe("authorizations", () => {
      it("returns a created authorization by id, as a copy", async () => {
        const authorization = authorizationRecord({ label: "work", returnUrl: "https://app.test/done?x=1" });
        await store.createAuthorization(authorization);
        const found = await store.getAuthorization(authorization.id);
        expect(found).toEqual(authorization);
        expect(found!.expiresAt).toBeInstanceOf(Date);
        found!.status = "failed";
        expect((await store.getAuthorization(authorization.id))!.status).toBe("pending");
        expect(await store.getAuthorization(randomId("auth"))).toBeNull();
      });

      it("throws on a duplicate state hash or a duplicate id", async () => {
        const authorization = authorizationRecord();
        await store.createAuthorization(authorization);
        await expect(settle(() => store.createAuthorization({ ...authorization, id: randomId("auth") }))).rejects.toThrow();
        await expect(settle(() => store.createAuthorization({ ...authorization, stateHash: randomId("state") }))).rejects.toThrow();
        expect(await store.getAuthorization(authorization.id)).toEqual(authorization);
      });

      it("consumes once: sets consumedAt to now and returns the record, then null", async () => {
        const authorization = authorizationRecord();
        await store.createAuthorization(authorization);
        // A time distinct from the store's own clock, to see that `now` is the one recorded.
        const now = new Date(Date.now() - 1234);
        const consumed = await store.consumeAuthorization(authorization.stateHash, now);
        expect(consumed).toMatchObject({ id: authorization.id, status: "pending" });
        expect(consumed!.consumedAt).toBeInstanceOf(Date);
        expect(consumed!.consumedAt!.getTime()).toBe(now.getTime());
        expect((await store.getAuthorization(authorization.id))!.consumedAt!.getTime()).toBe(now.getTime());
        expect(await store.consumeAuthorization(authorization.stateHash, new Date())).toBeNull();
      });

      it("consumes exactly once under concurrency: one of 20 callers receives the record", async () => {
        const authorization = authorizationRecord();
        await store.createAuthorization(authorization);
        const results = await Promise.all(
          Array.from({ length: 20 }, () => settle(() => store.consumeAuthorization(authorization.stateHash, new Date()))),
        );
        expect(results.filter((r) => r !== null)).toHaveLength(1);
      });

      it("does not consume an expired authorization (expiresAt at or before now)", async () => {
        const now = new Date();
        const expired = authorizationRecord({ expiresAt: new Date(now.getTime() - 1) });
        const atNow = authorizationRecord({ expiresAt: new Date(now.getTime()) });
        await store.createAuthorization(expired);
        await store.createAuthorization(atNow);
        expect(await store.consumeAuthorization(expired.stateHash, now)).toBeNull();
        expect(await store.consumeAuthorization(atNow.stateHash, now)).toBeNull();
        // Another suite's sweep may remove the expired row meanwhile; either way it was not consumed.
        expect((await store.getAuthorization(expired.id))?.consumedAt ?? null).toBeNull();
      });

      it("returns null when consuming an unknown state hash", async () => {
        expect(await store.consumeAuthorization(randomId("state"), new Date())).toBeNull();
      });

      it("updates status, connectionId and error; null for an unknown id", async () => {
        const authorization = authorizationRecord();
        await store.createAuthorization(authorization);
        const connectionId = randomId("conn");
        const updated = await store.updateAuthorization(authorization.id, { status: "connected", connectionId });
        expect(updated).toEqual({ ...authorization, status: "connected", connectionId });
        expect(await store.getAuthorization(authorization.id)).toEqual(updated);
        const failed = await store.updateAuthorization(authorization.id, {
          status: "failed",
          error: "access_denied",
          connectionId: undefined,
        });
        expect(failed).toMatchObject({ status: "failed", error: "access_denied", connectionId });
        expect(await store.updateAuthorization(randomId("auth"), { status: "failed" })).toBeNull();
      });
    });

    describe("leases", () => {
      it("gives a lease to one holder; the holder renews it, others are refused", async () => {
        const lease = randomId("lease");
        expect(await store.acquireLease(lease, "holder-a", 10_000)).toBe(true);
        expect(await store.acquireLease(lease, "holder-b", 10_000)).toBe(false);
        expect(await store.acquireLease(lease, "holder-a", 10_000)).toBe(true);
        expect(await store.acquireLease(randomId("lease"), "holder-b", 10_000)).toBe(true);
      });

      it("ignores a release by a non-holder; after the holder releases, another can acquire", async () => {
        const lease = randomId("lease");
        await store.releaseLease(lease, "nobody");
        expect(await store.acquireLease(lease, "holder-a", 10_000)).toBe(true);
        await store.releaseLease(lease, "holder-b");
        expect(await store.acquireLease(lease, "holder-b", 10_000)).toBe(false);
        await store.releaseLease(lease, "holder-a");
        expect(await store.acquireLease(lease, "holder-b", 10_000)).toBe(true);
        expect(await store.acquireLease(lease, "holder-a", 10_000)).toBe(false);
      });

      it("lets another holder acquire once ttlMs has run out", async () => {
        const lease = randomId("lease");
        expect(await store.acquireLease(lease, "holder-a", 50)).toBe(true);
        await sleep(150);
        expect(await store.acquireLease(lease, "holder-b", 10_000)).toBe(true);
        expect(await store.acquireLease(lease, "holder-a", 10_000)).toBe(false);
      });

      it("renewing extends the lease by ttlMs from the renewal", async () => {
        const lease = randomId("lease");
        expect(await store.acquireLease(lease, "holder-a", 150)).toBe(true);
        await sleep(100);
        expect(await store.acquireLease(lease, "holder-a", 10_000)).toBe(true);
        await sleep(100);
        expect(await store.acquireLease(lease, "holder-b", 10_000)).toBe(false);
      });

      it("gives a contended lease to exactly one of 20 concurrent holders", async () => {
        const lease = randomId("lease");
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => settle(() => store.acquireLease(lease, `holder-${i}`, 10_000))),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
      });
    });

    describe("sweep (optional)", async () => {
      const probe = await factory();
      const hasSweep = typeof probe.sweep === "function";
      await options.cleanup?.(probe);
      await probe.close?.();

      it.skipIf(!hasSweep)(
        hasSweep
          ? "removes expired authorizations and leases, keeps live ones, and counts what went"
          : "skipped: this store has no sweep method (it is optional)",
        async () => {
          const now = new Date();
          const expired = authorizationRecord({ expiresAt: new Date(now.getTime() - 60_000) });
          const live = authorizationRecord();
          await store.createAuthorization(expired);
          await store.createAuthorization(live);
          const expiredLease = randomId("lease");
          const liveLease = randomId("lease");
          await store.acquireLease(expiredLease, "holder-a", 1);
          await store.acquireLease(liveLease, "holder-a", 60_000);
          await sleep(30);

          // Other suites sharing the database may have expired rows too, hence "at least".
          expect(await store.sweep!(new Date())).toBeGreaterThanOrEqual(2);
          expect(await store.getAuthorization(expired.id)).toBeNull();
          expect(await store.getAuthorization(live.id)).toEqual(live);
          expect(await store.acquireLease(liveLease, "holder-b", 60_000)).toBe(false);
          expect(await store.acquireLease(expiredLease, "holder-b", 60_000)).toBe(true);
        },
      );
    });
  });
}

/** Resolves to the method's value; a synchronous throw becomes a rejection. */
function settle<T>(fn: () => Awaitable<T>): Promise<T> {
  return Promise.resolve().then(fn);
}

function randomId(prefix: string): string {
  return `${prefix}_${crypto.randomUUID()}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function sortById<T extends { id: string }>(records: T[]): T[] {
  return [...records].sort((a, b) => (a.id < b.id ? -1 : 1));
}

function apiKey(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: randomId("key"),
    hash: randomId("hash"),
    kind: "agent",
    workspaceId: randomId("ws"),
    agentId: randomId("agent"),
    hint: "pak_…test",
    createdAt: new Date("2024-05-06T07:08:09.123Z"),
    revokedAt: null,
    ...overrides,
  };
}

function connectionRecord(overrides: Partial<ConnectionRecord> = {}): ConnectionRecord {
  const createdAt = overrides.createdAt ?? new Date("2024-02-03T04:05:06.789Z");
  return {
    id: randomId("conn"),
    workspaceId: randomId("ws"),
    agentId: randomId("agent"),
    toolkit: "github",
    label: "personal",
    remoteUser: "octocat",
    status: "active",
    statusReason: null,
    credentials: "v1.encrypted-credential",
    scopes: ["repo"],
    params: {},
    credentialsExpireAt: null,
    createdAt,
    updatedAt: createdAt,
    version: 1,
    ...overrides,
  };
}

function authorizationRecord(overrides: Partial<AuthorizationRecord> = {}): AuthorizationRecord {
  return {
    id: randomId("auth"),
    stateHash: randomId("state"),
    workspaceId: randomId("ws"),
    agentId: randomId("agent"),
    toolkit: "github",
    label: null,
    returnUrl: null,
    secrets: "v1.encrypted-verifier",
    status: "pending",
    connectionId: null,
    error: null,
    createdAt: new Date("2024-07-08T09:10:11.121Z"),
    expiresAt: new Date(Date.now() + 3_600_000),
    consumedAt: null,
    ...overrides,
  };
}
