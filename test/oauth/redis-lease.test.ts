/**
 * The OAuth refresh lease in Redis (`leases: redisLeaseStore(...)`): two handlers that share a
 * store without working leases of its own refresh once between them; without a shared lease they
 * would not; with Redis down a call needing a refresh answers 503 and nothing goes upstream.
 */
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LeaseStore, memoryStore, type ToolsStore } from "../../src/index.js";
import { redisLeaseStore } from "../../src/redis/index.js";
import { CALLBACK_URL, createOAuthHarness, sleep, tokenCalls } from "../support/oauth-harness.js";
import { type OidcServer, startOidcServer } from "../support/oidc-server.js";
import { hasRedisServer, privateRedis, redisUnavailableReason, SHARED_REDIS_URL } from "../support/redis.js";

const why = (await redisUnavailableReason()) ?? (hasRedisServer ? null : "no redis-server to start a private instance");
if (why) console.warn(`Redis lease tests skipped: ${why}`);

/** A memory store whose own leases either fail when used or grant every request (no exclusion). */
function storeWithLeases(mode: "forbidden" | "always-granted"): ToolsStore {
  const store = memoryStore();
  return Object.assign(store, {
    acquireLease: () => {
      if (mode === "forbidden") throw new Error("the store's own leases must not be used");
      return true;
    },
    releaseLease: () => {
      if (mode === "forbidden") throw new Error("the store's own leases must not be used");
    },
  });
}

/** Listens on `port` and closes every connection at once: a Redis that is down, whose port nobody else can take. */
async function holdPort(port: number): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<import("node:net").Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(!!why)(`OAuth refresh lease in Redis${why ? ` (skipped: ${why})` : ""}`, () => {
  let as: OidcServer;
  const prefix = `tp-test-lease:${Math.random().toString(36).slice(2, 10)}:`;
  beforeAll(async () => {
    as = await startOidcServer({ redirectUris: [CALLBACK_URL] });
  });
  afterAll(async () => {
    expect(as.apiRequests.filter((r) => !r.accessToken)).toEqual([]);
    await as.close();
  });

  /** Two handlers (two instances) over one store, each with its own lease store; a connection whose token expired. */
  async function twoInstances(store: ToolsStore, leases: (i: number) => LeaseStore | undefined) {
    const a = await createOAuthHarness({ as, store, leases: leases(0) });
    const b = await createOAuthHarness({ as, store, leases: leases(1) });
    const key = await a.issueAgentKey(`agent-${Math.random().toString(36).slice(2, 8)}`);
    // Long enough for the connect flow's own use of it on a loaded machine; then waited out.
    as.setAccessTokenTtl(3);
    const { connectionId } = await a.connect(key);
    as.setAccessTokenTtl(3600);
    const { accessToken } = await a.credentialOf(connectionId);
    // Expired for both sides: the server's clock, and the expiry this handler saved when the token
    // arrived (later than the server's by the exchange's own time, which a loaded machine stretches).
    const expiresAt = (await a.store.getConnection(connectionId))!.credentialsExpireAt!.getTime();
    while ((await as.isAccessTokenActive(accessToken)) || Date.now() < expiresAt) await sleep(50);
    const callAll = (n: number) =>
      Promise.all(Array.from({ length: n }, (_, i) => (i % 2 ? a : b).call("POST", "/execute", { key, body: { tool: "NOTES_ME" } })));
    return { a, b, key, connectionId, callAll };
  }

  it("two handlers sharing a Redis lease refresh exactly once between them", async () => {
    const redisLeases = [redisLeaseStore(SHARED_REDIS_URL, { prefix }), redisLeaseStore(SHARED_REDIS_URL, { prefix })];
    try {
      const { a, b, connectionId, callAll } = await twoInstances(storeWithLeases("forbidden"), (i) => redisLeases[i]);
      as.setTokenDelay(200);
      const mark = as.tokenRequests.length;
      const results = await callAll(30);
      expect(results.map((r) => r.json?.successful ?? r.text)).toEqual(Array(30).fill(true));
      expect(tokenCalls(as, mark)).toEqual([["refresh_token", 200]]);
      expect((await a.store.getConnection(connectionId))!.status).toBe("active");
      a.assertNoLeaks();
      b.assertNoLeaks();
    } finally {
      as.setTokenDelay(0);
      await Promise.all(redisLeases.map((l) => l.close()));
    }
  });

  it("control: without a shared lease the same two handlers refresh more than once", async () => {
    const { callAll } = await twoInstances(storeWithLeases("always-granted"), () => undefined);
    as.setTokenDelay(200);
    const mark = as.tokenRequests.length;
    try {
      await callAll(30);
      expect(tokenCalls(as, mark).filter(([grant]) => grant === "refresh_token").length).toBeGreaterThan(1);
    } finally {
      as.setTokenDelay(0);
    }
  });

  it("with Redis down, a call that needs a refresh answers 503 with Retry-After and sends nothing upstream", async () => {
    const redis = await privateRedis();
    const leases = redisLeaseStore(redis.url, { prefix, timeoutMs: 500 });
    try {
      const { a, key, connectionId } = await twoInstances(storeWithLeases("forbidden"), (i) => (i === 0 ? leases : undefined));
      await redis.stop();
      // Hold the port while Redis is down, so that no other test file's server starts on it meanwhile.
      const holder = await holdPort(redis.port);
      const tokenMark = as.tokenRequests.length;
      const apiMark = as.apiRequests.length;
      const res = await a.call("POST", "/execute", { key, body: { tool: "NOTES_ME" } });
      expect(res.status).toBe(503);
      expect(res.json).toEqual({ code: "unavailable", error: expect.stringMatching(/retry/i) });
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      const proxied = await a.call("POST", "/proxy", { key, body: { toolkit: "notes", method: "GET", url: `${as.apiBaseUrl}/me` } });
      expect(proxied.status).toBe(503);
      expect(tokenCalls(as, tokenMark)).toEqual([]);
      expect(as.apiRequests.slice(apiMark)).toEqual([]);
      expect((await a.store.getConnection(connectionId))!.status).toBe("active");

      await holder.close();
      await redis.start();
      await expect
        .poll(async () => (await a.call("POST", "/execute", { key, body: { tool: "NOTES_ME" } })).json?.successful, {
          timeout: 8000,
          interval: 200,
        })
        .toBe(true);
      expect(tokenCalls(as, tokenMark)).toEqual([["refresh_token", 200]]);
      a.assertNoLeaks();
    } finally {
      await leases.close();
      await redis.stop();
    }
  });
});
