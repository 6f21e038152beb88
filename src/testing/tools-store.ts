import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Awaitable, ToolsStore } from "../store/types.js";
import { apiKey, at, authorizationRecord, connectionRecord, patch, randomId, settle, sortById } from "./store-records.js";
import { listingPagesConformance } from "./tools-store-paging.js";

/** Options of `toolsStoreConformance`. */
export interface ToolsStoreConformanceOptions {
  /** Runs after each test, before `store.close()`, e.g. to drop a temporary database. */
  cleanup?: (store: ToolsStore) => unknown;
  /**
   * Makes this many instances per test, each by its own call of `factory`, which must give
   * instances over the same data (as two processes of an app sharing a database), and races them
   * on every clause the contract promises across processes: creates that all land, one winner of a
   * compare-and-set, one consumer of an OAuth state, one holder of a lease. Default 1 (off). A store
   * that holds its data in one process, as `memoryStore()`, cannot pass it.
   */
  instances?: number;
}

/**
 * Registers a vitest suite that checks every clause of the `ToolsStore` contract against the
 * stores `factory` returns (made for each test, closed after it). Each failing assertion says
 * which clause broke.
 *
 * Every test uses fresh random ids, workspaces and lease names, and times of its own (the
 * contract's clock is the caller's), so the suite can run against a shared persistent database
 * without wiping it, and several suites may run against it at once.
 */
export function toolsStoreConformance(
  name: string,
  factory: () => ToolsStore | Promise<ToolsStore>,
  options: ToolsStoreConformanceOptions = {},
): void {
  const count = Math.max(1, options.instances ?? 1);
  describe(`ToolsStore conformance: ${name}${count > 1 ? ` (${count} instances)` : ""}`, () => {
    let stores: ToolsStore[] = [];
    /** The first instance; every single-instance clause runs on it. */
    let store: ToolsStore;
    /** Another instance over the same data (the first one again when there is only one). */
    let other: ToolsStore;
    beforeEach(async () => {
      stores = [];
      for (let i = 0; i < count; i++) stores.push(await factory());
      store = stores[0]!;
      other = stores[stores.length - 1]!;
    });
    afterEach(async () => {
      for (const instance of stores) {
        await options.cleanup?.(instance);
        await instance.close?.();
      }
    });

    describe("API keys", () => {
      it("returns a created key by its hash, as a copy", async () => {
        const key = apiKey();
        await store.createApiKey(key);
        key.hint = "changed after create";
        const found = await other.getApiKeyByHash(key.hash);
        expect(found, "getApiKeyByHash returns the key as created, not the caller's later change").toEqual({ ...key, hint: "pak_…test" });
        expect(found?.createdAt, "createdAt comes back as a Date").toBeInstanceOf(Date);
        found!.workspaceId = "changed after get";
        expect((await store.getApiKeyByHash(key.hash))?.workspaceId, "a returned record is a copy").toBe(key.workspaceId);
      });

      it("returns null for an unknown hash", async () => {
        expect(await store.getApiKeyByHash(randomId("hash")), "not found is null").toBeNull();
      });

      it("throws on a duplicate hash or a duplicate id, keeping the first key", async () => {
        const key = apiKey();
        await store.createApiKey(key);
        await expect(
          settle(() => other.createApiKey({ ...key, id: randomId("key") })),
          "a second key with the same hash is refused",
        ).rejects.toThrow();
        await expect(
          settle(() => other.createApiKey({ ...key, hash: randomId("hash") })),
          "a second key with the same id is refused",
        ).rejects.toThrow();
        expect(await store.getApiKeyByHash(key.hash), "the first key stays as it was").toEqual(key);
      });

      it("lists the keys of one workspace only", async () => {
        const workspaceId = randomId("ws");
        const mine = [apiKey({ workspaceId }), apiKey({ workspaceId, kind: "service", agentId: null })];
        for (const key of [...mine, apiKey()]) await store.createApiKey(key);
        expect(sortById(await other.listApiKeys(workspaceId)), "listApiKeys gives this workspace's keys, all of them").toEqual(
          sortById(mine),
        );
        expect(await store.listApiKeys(randomId("ws")), "a workspace without keys lists none").toEqual([]);
      });

      it("revokes a key once: true, then false; the revoked key is still returned", async () => {
        const key = apiKey();
        await store.createApiKey(key);
        const at = new Date("2025-03-04T05:06:07.891Z");
        expect(await store.revokeApiKey(key.id, at), "the first revoke says it revoked").toBe(true);
        expect(await other.revokeApiKey(key.id, new Date()), "a second revoke says there was nothing to revoke").toBe(false);
        const found = await store.getApiKeyByHash(key.hash);
        expect(found?.revokedAt?.getTime(), "revokedAt is the `at` of the first revoke, as a Date").toBe(at.getTime());
        expect((await store.listApiKeys(key.workspaceId))[0]?.revokedAt?.getTime(), "the listing shows the revocation").toBe(at.getTime());
      });

      it("returns false when revoking an unknown key", async () => {
        expect(await store.revokeApiKey(randomId("key"), new Date()), "revoking an unknown key is false, not an error").toBe(false);
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
        const found = await other.getConnection(connection.id);
        expect(found, "getConnection returns every field as created").toEqual(connection);
        for (const date of [found?.createdAt, found?.updatedAt, found?.credentialsExpireAt])
          expect(date, "dates come back as Dates").toBeInstanceOf(Date);
        expect(found?.credentialsExpireAt?.getTime(), "dates keep their milliseconds").toBe(connection.credentialsExpireAt?.getTime());
      });

      it("round-trips nulls, empty scopes and empty params", async () => {
        const connection = connectionRecord({ scopes: [], params: {}, statusReason: null, credentialsExpireAt: null });
        await store.createConnection(connection);
        expect(await other.getConnection(connection.id), "nulls, [] and {} come back as they went in").toEqual(connection);
      });

      it("returns null for an unknown id", async () => {
        expect(await store.getConnection(randomId("conn")), "not found is null").toBeNull();
      });

      it("throws on a duplicate id, keeping the first connection", async () => {
        const connection = connectionRecord();
        await store.createConnection(connection);
        await expect(
          settle(() => other.createConnection({ ...connection, label: "second" })),
          "a second connection with the same id is refused",
        ).rejects.toThrow();
        expect(await store.getConnection(connection.id), "the first connection stays as it was").toEqual(connection);
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
        expect(await store.getConnection(original.id), "changing a record passed in or handed out changes nothing stored").toEqual(
          original,
        );

        const updated = (await store.updateConnection(original.id, patch({ label: "updated" })))!;
        updated.label = "mutated update";
        updated.scopes.push("mutated");
        expect(await store.getConnection(original.id), "the record updateConnection returns is a copy").toMatchObject({
          label: "updated",
          scopes: ["a"],
        });
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

        const ids = async (filter: Parameters<ToolsStore["listConnections"]>[0]) => (await other.listConnections(filter)).map((c) => c.id);
        expect(await ids({ workspaceId }), "a workspace's connections, oldest first").toEqual([oldest.id, middle.id, newest.id]);
        expect(await ids({ workspaceId, agentId: agentA }), "filtered by agent, oldest first").toEqual([middle.id, newest.id]);
        expect(await ids({ workspaceId, toolkit: "alpha" }), "filtered by toolkit, oldest first").toEqual([oldest.id, newest.id]);
        expect(await ids({ workspaceId, agentId: agentA, toolkit: "alpha" }), "filtered by agent and toolkit").toEqual([newest.id]);
        expect(await ids({ workspaceId, agentId: randomId("agent") }), "an agent without connections lists none").toEqual([]);
        expect(await ids({ workspaceId: randomId("ws") }), "another workspace lists none").toEqual([]);
        expect((await other.listConnections({ workspaceId }))[0], "listed records are whole").toEqual(oldest);
      });

      it("applies a patch with its updatedAt and increments version; the rest is unchanged", async () => {
        const connection = connectionRecord({ credentialsExpireAt: new Date("2030-01-01T00:00:00.001Z") });
        await store.createConnection(connection);
        const fields = {
          label: "renamed",
          status: "revoked" as const,
          statusReason: "revoked by the user",
          scopes: ["x", "y"],
          params: { tenant: "t1" },
          credentials: "v1.encrypted-new",
          credentialsExpireAt: null,
        };
        const updatedAt = new Date("2024-09-10T11:12:13.141Z");
        const updated = await other.updateConnection(connection.id, { ...fields, updatedAt });
        expect(updated, "every patched field changes; remoteUser and createdAt stay").toMatchObject({
          ...fields,
          remoteUser: connection.remoteUser,
          createdAt: connection.createdAt,
        });
        expect(updated?.version, "an update increments version").toBe(connection.version + 1);
        expect(updated?.updatedAt.getTime(), "updatedAt is the patch's, from the caller's clock").toBe(updatedAt.getTime());
        expect(await store.getConnection(connection.id), "the update is stored as returned").toEqual(updated);

        const again = await store.updateConnection(connection.id, patch({ credentialsExpireAt: new Date("2031-05-06T07:08:09.123Z") }));
        expect(again?.version, "each update increments version").toBe(connection.version + 2);
        expect(again?.credentialsExpireAt?.getTime(), "a patched date keeps its milliseconds").toBe(Date.parse("2031-05-06T07:08:09.123Z"));
        expect(again?.label, "fields left out of a patch stay").toBe("renamed");
      });

      it("ignores patch fields that are undefined", async () => {
        const connection = connectionRecord();
        await store.createConnection(connection);
        const updated = await store.updateConnection(connection.id, patch({ label: undefined, credentials: "v1.new" }));
        expect(updated, "an undefined field is not written").toMatchObject({ label: connection.label, credentials: "v1.new" });
        expect((await other.getConnection(connection.id))?.label, "the stored label stays").toBe(connection.label);
      });

      it("compare-and-set: succeeds with the current version, returns null on a stale one", async () => {
        const connection = connectionRecord({ version: 3 });
        await store.createConnection(connection);
        expect(
          await store.updateConnection(connection.id, patch({ label: "first" }), 3),
          "an update with the current version applies",
        ).toMatchObject({ label: "first", version: 4 });
        expect(
          await other.updateConnection(connection.id, patch({ label: "stale" }), 3),
          "an update with a stale version is null",
        ).toBeNull();
        expect(await store.getConnection(connection.id), "the stale update changed nothing").toMatchObject({ label: "first", version: 4 });
      });

      it("compare-and-set under concurrency: exactly one of 20 writers with the same version wins", async () => {
        const connection = connectionRecord();
        await store.createConnection(connection);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            settle(() => stores[i % stores.length]!.updateConnection(connection.id, patch({ label: `writer ${i}` }), connection.version)),
          ),
        );
        const winners = results.filter((r) => r !== null);
        expect(winners, "exactly one concurrent compare-and-set wins").toHaveLength(1);
        expect(await store.getConnection(connection.id), "the stored row is the winner's, one version up").toMatchObject({
          label: winners[0]?.label,
          version: connection.version + 1,
        });
      });

      it("returns null when updating, and false when deleting, an unknown connection", async () => {
        const id = randomId("conn");
        expect(await store.updateConnection(id, patch({ label: "x" })), "updating an unknown connection is null").toBeNull();
        expect(await store.updateConnection(id, patch({ label: "x" }), 1), "a compare-and-set on an unknown connection is null").toBeNull();
        expect(await store.deleteConnection(id), "deleting an unknown connection is false").toBe(false);
      });

      it("compares ids exactly: another case or a trailing space is another workspace, agent or toolkit", async () => {
        const connection = connectionRecord({ workspaceId: `Ws_${crypto.randomUUID()}`, agentId: "Agent", toolkit: "GitHub" });
        await store.createConnection(connection);
        const { workspaceId } = connection;
        expect(await store.listConnections({ workspaceId }), "the exact workspace finds it").toHaveLength(1);
        expect(await store.listConnections({ workspaceId: workspaceId.toLowerCase() }), "another case is another workspace").toEqual([]);
        expect(await store.listConnections({ workspaceId: `${workspaceId} ` }), "a trailing space is another workspace").toEqual([]);
        expect(await store.listConnections({ workspaceId, agentId: "agent" }), "another case is another agent").toEqual([]);
        expect(await store.listConnections({ workspaceId, toolkit: "github" }), "another case is another toolkit").toEqual([]);
        expect(await store.getConnection(connection.id.toUpperCase()), "another case is another id").toBeNull();
      });

      it("finds nothing, and throws nothing, for a lookup by a value holding a NUL character (e.g. from a request's path)", async () => {
        const connection = connectionRecord();
        await store.createConnection(connection);
        const { workspaceId } = connection;
        const nul = `${connection.id}\u0000`;
        expect(await store.getConnection(nul), "a NUL id finds nothing").toBeNull();
        expect(await store.updateConnection(nul, patch({ label: "x" })), "a NUL id updates nothing").toBeNull();
        expect(await store.deleteConnection(nul), "a NUL id deletes nothing").toBe(false);
        expect(await store.listConnections({ workspaceId: `${workspaceId}\u0000` }), "a NUL workspace lists nothing").toEqual([]);
        expect(await store.listConnections({ workspaceId, agentId: "\u0000" }), "a NUL agent lists nothing").toEqual([]);
        expect(await store.listConnections({ workspaceId, toolkit: "\u0000" }), "a NUL toolkit lists nothing").toEqual([]);
        expect(await store.getAuthorization("auth_\u0000"), "a NUL authorization id finds nothing").toBeNull();
        expect(await store.updateAuthorization("auth_\u0000", { status: "failed" }), "a NUL authorization id updates nothing").toBeNull();
        expect(await store.consumeAuthorization("\u0000", new Date()), "a NUL state hash consumes nothing").toBeNull();
        expect(await store.getApiKeyByHash("\u0000"), "a NUL hash finds nothing").toBeNull();
        expect(await store.listApiKeys("\u0000"), "a NUL workspace has no keys").toEqual([]);
        expect(await store.revokeApiKey("key_\u0000", new Date()), "a NUL key id revokes nothing").toBe(false);
        expect(await store.getConnection(connection.id), "the real connection is untouched").toEqual(connection);
      });

      it("deletes a connection once", async () => {
        const connection = connectionRecord();
        await store.createConnection(connection);
        expect(await other.deleteConnection(connection.id), "the first delete says it deleted").toBe(true);
        expect(await store.getConnection(connection.id), "a deleted connection is gone").toBeNull();
        expect(await store.listConnections({ workspaceId: connection.workspaceId }), "and no longer listed").toEqual([]);
        expect(await store.deleteConnection(connection.id), "a second delete is false").toBe(false);
      });
    });

    listingPagesConformance(() => ({ store, other }));

    describe("authorizations", () => {
      it("returns a created authorization by id, as a copy", async () => {
        const authorization = authorizationRecord({ label: "work", returnUrl: "https://app.test/done?x=1" });
        await store.createAuthorization(authorization);
        const found = await other.getAuthorization(authorization.id);
        expect(found, "getAuthorization returns every field as created").toEqual(authorization);
        expect(found?.expiresAt, "expiresAt comes back as a Date").toBeInstanceOf(Date);
        found!.status = "failed";
        expect((await store.getAuthorization(authorization.id))?.status, "a returned record is a copy").toBe("pending");
        expect(await store.getAuthorization(randomId("auth")), "not found is null").toBeNull();
      });

      it("throws on a duplicate state hash or a duplicate id", async () => {
        const authorization = authorizationRecord();
        await store.createAuthorization(authorization);
        await expect(
          settle(() => other.createAuthorization({ ...authorization, id: randomId("auth") })),
          "a second authorization with the same state hash is refused",
        ).rejects.toThrow();
        await expect(
          settle(() => other.createAuthorization({ ...authorization, stateHash: randomId("state") })),
          "a second authorization with the same id is refused",
        ).rejects.toThrow();
        expect(await store.getAuthorization(authorization.id), "the first authorization stays as it was").toEqual(authorization);
      });

      it("consumes once: sets consumedAt to now and returns the record, then null", async () => {
        const authorization = authorizationRecord();
        await store.createAuthorization(authorization);
        // A time distinct from any clock the store might read, to see that `now` is the one recorded.
        const now = new Date(Date.now() - 1234);
        const consumed = await store.consumeAuthorization(authorization.stateHash, now);
        expect(consumed, "the consumer receives the record").toMatchObject({ id: authorization.id, status: "pending" });
        expect(consumed?.consumedAt?.getTime(), "consumedAt is the caller's now").toBe(now.getTime());
        expect((await other.getAuthorization(authorization.id))?.consumedAt?.getTime(), "consumedAt is stored").toBe(now.getTime());
        expect(
          await other.consumeAuthorization(authorization.stateHash, new Date()),
          "a consumed authorization is consumed once",
        ).toBeNull();
      });

      it("consumes exactly once under concurrency: one of 20 callers receives the record", async () => {
        const authorization = authorizationRecord();
        await store.createAuthorization(authorization);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            settle(() => stores[i % stores.length]!.consumeAuthorization(authorization.stateHash, new Date())),
          ),
        );
        expect(
          results.filter((r) => r !== null),
          "exactly one concurrent consumer receives the record",
        ).toHaveLength(1);
      });

      it("does not consume an expired authorization (expiresAt at or before now)", async () => {
        const now = new Date();
        const expired = authorizationRecord({ expiresAt: new Date(now.getTime() - 1) });
        const atNow = authorizationRecord({ expiresAt: new Date(now.getTime()) });
        await store.createAuthorization(expired);
        await store.createAuthorization(atNow);
        expect(await store.consumeAuthorization(expired.stateHash, now), "an authorization expired before now is not consumed").toBeNull();
        expect(await store.consumeAuthorization(atNow.stateHash, now), "one expiring exactly at now is not consumed").toBeNull();
        expect((await store.getAuthorization(expired.id))?.consumedAt ?? null, "and it stays unconsumed").toBeNull();
      });

      it("returns null when consuming an unknown state hash", async () => {
        expect(await store.consumeAuthorization(randomId("state"), new Date()), "an unknown state hash consumes nothing").toBeNull();
      });

      it("updates status, connectionId and error; null for an unknown id", async () => {
        const authorization = authorizationRecord();
        await store.createAuthorization(authorization);
        const connectionId = randomId("conn");
        const updated = await store.updateAuthorization(authorization.id, { status: "connected", connectionId });
        expect(updated, "status and connectionId change, nothing else").toEqual({ ...authorization, status: "connected", connectionId });
        expect(await other.getAuthorization(authorization.id), "the update is stored as returned").toEqual(updated);
        const failed = await store.updateAuthorization(authorization.id, {
          status: "failed",
          error: "access_denied",
          connectionId: undefined,
        });
        expect(failed, "an undefined field is not written").toMatchObject({ status: "failed", error: "access_denied", connectionId });
        expect(
          await store.updateAuthorization(randomId("auth"), { status: "failed" }),
          "updating an unknown authorization is null",
        ).toBeNull();
      });
    });

    describe("leases (on the caller's clock)", () => {
      it("gives a lease to one holder; the holder renews it, others are refused", async () => {
        const lease = randomId("lease");
        const now = new Date();
        expect(await store.acquireLease(lease, "holder-a", 10_000, now), "a free lease is taken").toBe(true);
        expect(await other.acquireLease(lease, "holder-b", 10_000, now), "a held lease is refused to another holder").toBe(false);
        expect(await store.acquireLease(lease, "holder-a", 10_000, now), "the holder renews its own lease").toBe(true);
        expect(await other.acquireLease(randomId("lease"), "holder-b", 10_000, now), "another lease is free").toBe(true);
      });

      it("ignores a release by a non-holder; after the holder releases, another can acquire", async () => {
        const lease = randomId("lease");
        const now = new Date();
        await store.releaseLease(lease, "nobody");
        expect(await store.acquireLease(lease, "holder-a", 10_000, now), "releasing a free lease changes nothing").toBe(true);
        await other.releaseLease(lease, "holder-b");
        expect(await other.acquireLease(lease, "holder-b", 10_000, now), "a release by a non-holder frees nothing").toBe(false);
        await other.releaseLease(lease, "holder-a");
        expect(await store.acquireLease(lease, "holder-b", 10_000, now), "the holder's release frees the lease").toBe(true);
        expect(await other.acquireLease(lease, "holder-a", 10_000, now), "and it is the new holder's").toBe(false);
      });

      it("lets another holder acquire once ttlMs has run out, counted from the caller's now", async () => {
        const lease = randomId("lease");
        const start = new Date();
        expect(await store.acquireLease(lease, "holder-a", 5_000, start), "a free lease is taken").toBe(true);
        expect(await other.acquireLease(lease, "holder-b", 10_000, at(start, 4_999)), "it is held until now + ttlMs").toBe(false);
        expect(await other.acquireLease(lease, "holder-b", 10_000, at(start, 5_000)), "at now + ttlMs it has expired").toBe(true);
        expect(await store.acquireLease(lease, "holder-a", 10_000, at(start, 5_001)), "and is the new holder's").toBe(false);
      });

      it("renewing extends the lease by ttlMs from the renewal", async () => {
        const lease = randomId("lease");
        const start = new Date();
        expect(await store.acquireLease(lease, "holder-a", 1_000, start), "a free lease is taken").toBe(true);
        expect(await store.acquireLease(lease, "holder-a", 1_000, at(start, 900)), "the holder renews before expiry").toBe(true);
        expect(await other.acquireLease(lease, "holder-b", 1_000, at(start, 1_500)), "the renewal counts from its own now").toBe(false);
        expect(await other.acquireLease(lease, "holder-b", 1_000, at(start, 1_900)), "and ends ttlMs after it").toBe(true);
      });

      it("gives a contended lease to exactly one of 20 concurrent holders", async () => {
        const lease = randomId("lease");
        const now = new Date();
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => settle(() => stores[i % stores.length]!.acquireLease(lease, `holder-${i}`, 10_000, now))),
        );
        expect(results.filter(Boolean), "exactly one concurrent holder gets the lease").toHaveLength(1);
      });
    });

    describe("sweep (optional)", () => {
      it("removes what expired at now, keeps the rest, and counts exactly what went", async (context) => {
        if (typeof store.sweep !== "function") return context.skip("this store has no sweep method (it is optional)");
        // A moment of this test's own, far in the past: nothing else in a shared database expires then.
        const now = new Date(Date.UTC(1990, 0, 1) + Math.floor(Math.random() * 3e11));
        const expired = authorizationRecord({ expiresAt: at(now, -1) });
        const endsNow = authorizationRecord({ expiresAt: now });
        const live = authorizationRecord({ expiresAt: at(now, 60_000) });
        for (const a of [expired, endsNow, live]) await store.createAuthorization(a);
        const [expiredLease, liveLease] = [randomId("lease"), randomId("lease")];
        await store.acquireLease(expiredLease, "holder-a", 1_000, at(now, -1_000));
        await store.acquireLease(liveLease, "holder-a", 60_000, now);

        expect(await other.sweep!(now), "sweep counts the two expired authorizations and the expired lease").toBe(3);
        expect(await store.getAuthorization(expired.id), "an authorization expired at now is removed").toBeNull();
        expect(await store.getAuthorization(endsNow.id), "one expiring exactly at now is removed").toBeNull();
        expect(await store.getAuthorization(live.id), "a live authorization stays").toEqual(live);
        expect(await store.acquireLease(liveLease, "holder-b", 60_000, now), "a live lease stays held").toBe(false);
        expect(await other.sweep!(now), "a second sweep finds nothing more").toBe(0);
      });
    });

    describe("withSignal (optional: reads that stop with their request)", () => {
      it("a read through a view whose signal has aborted rejects with the signal's reason and returns nothing", async (context) => {
        if (typeof store.withSignal !== "function") return context.skip("this store has no withSignal method (it is optional)");
        const key = apiKey();
        const connection = connectionRecord({ workspaceId: key.workspaceId, agentId: key.agentId! });
        const authorization = authorizationRecord();
        await store.createApiKey(key);
        await store.createConnection(connection);
        await store.createAuthorization(authorization);
        const controller = new AbortController();
        const view = store.withSignal(controller.signal);
        expect(await view.getConnection(connection.id), "a view whose signal has not aborted reads as the store does").toEqual(connection);

        const reason = new Error("the client went away");
        controller.abort(reason);
        const reads: Array<[string, () => Awaitable<unknown>]> = [
          ["getApiKeyByHash", () => view.getApiKeyByHash(key.hash)],
          ["listApiKeys", () => view.listApiKeys(key.workspaceId)],
          ["getConnection", () => view.getConnection(connection.id)],
          ["listConnections", () => view.listConnections({ workspaceId: connection.workspaceId })],
          ["getAuthorization", () => view.getAuthorization(authorization.id)],
        ];
        for (const [method, call] of reads) {
          await expect(settle(call), `${method} on an aborted view rejects with the signal's reason`).rejects.toBe(reason);
        }
        expect(await store.getConnection(connection.id), "the store itself is not stopped by a view's signal").toEqual(connection);
      });

      it("a write through a view whose signal has aborted is still made, whole", async (context) => {
        if (typeof store.withSignal !== "function") return context.skip("this store has no withSignal method (it is optional)");
        const controller = new AbortController();
        const view = store.withSignal(controller.signal);
        controller.abort(new Error("the client went away"));
        const connection = connectionRecord();
        await view.createConnection(connection);
        const updated = await view.updateConnection(connection.id, patch({ label: "saved anyway" }), 1);
        expect(updated?.label, "a compare-and-set through an aborted view is made").toBe("saved anyway");
        expect((await other.getConnection(connection.id))?.version, "the write landed in the store").toBe(2);
      });
    });
    if (count > 1)
      describe(`across ${count} instances (as processes sharing the data)`, () => {
        it("20 connections created at once, spread over the instances, are all stored", async () => {
          const workspaceId = randomId("ws");
          const created = Array.from({ length: 20 }, () => connectionRecord({ workspaceId }));
          await Promise.all(created.map((c, i) => settle(() => stores[i % stores.length]!.createConnection(c))));
          for (const [i, instance] of stores.entries()) {
            expect(
              sortById(await instance.listConnections({ workspaceId })),
              `instance ${i} lists every connection created on any instance`,
            ).toEqual(sortById(created));
          }
        });

        it("20 keys and 20 authorizations created at once are all stored", async () => {
          const workspaceId = randomId("ws");
          const keys = Array.from({ length: 20 }, () => apiKey({ workspaceId }));
          const authorizations = Array.from({ length: 20 }, () => authorizationRecord());
          await Promise.all([
            ...keys.map((k, i) => settle(() => stores[i % stores.length]!.createApiKey(k))),
            ...authorizations.map((a, i) => settle(() => stores[(i + 1) % stores.length]!.createAuthorization(a))),
          ]);
          expect(sortById(await other.listApiKeys(workspaceId)), "no key created concurrently is lost").toEqual(sortById(keys));
          for (const a of authorizations)
            expect(await store.getAuthorization(a.id), "no authorization created concurrently is lost").toEqual(a);
        });

        it("the same id or hash created on two instances at once is stored once", async () => {
          const connection = connectionRecord();
          const key = apiKey();
          const results = await Promise.allSettled([
            ...stores.map((instance, i) => settle(() => instance.createConnection({ ...connection, label: `from ${i}` }))),
            ...stores.map((instance) => settle(() => instance.createApiKey({ ...key, id: randomId("key") }))),
          ]);
          const fulfilled = results.map((r) => r.status === "fulfilled");
          expect(fulfilled.slice(0, stores.length).filter(Boolean), "exactly one create of the same connection id succeeds").toHaveLength(
            1,
          );
          expect(fulfilled.slice(stores.length).filter(Boolean), "exactly one create of the same key hash succeeds").toHaveLength(1);
        });

        it("concurrent updates on every instance, each retried on a stale version, all apply", async () => {
          const connection = connectionRecord({ scopes: [] });
          await store.createConnection(connection);
          // Each writer adds its scope with compare-and-set, re-reading on a conflict, as the handler does.
          const addScope = async (instance: ToolsStore, scope: string) => {
            for (;;) {
              const current = (await instance.getConnection(connection.id))!;
              if (await instance.updateConnection(connection.id, patch({ scopes: [...current.scopes, scope] }), current.version)) return;
            }
          };
          const scopes = Array.from({ length: 10 }, (_, i) => `s${i}`);
          await Promise.all(scopes.map((scope, i) => addScope(stores[i % stores.length]!, scope)));
          const final = await other.getConnection(connection.id);
          expect(final?.scopes.sort(), "no write was lost: every scope is there").toEqual(scopes.sort());
          expect(final?.version, "one version per update").toBe(connection.version + scopes.length);
        });
      });
  });
}
