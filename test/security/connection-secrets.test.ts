/**
 * Passwords in database and Redis URLs never reach an error message or a log line: not when the
 * URL is malformed, not when the server is down. The down-server cases talk to closed ports on
 * loopback (nothing listens on port 1), so they need no database.
 */
import { describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/core/errors.js";
import { createToolsHandler, issueApiKey, memoryStore } from "../../src/index.js";
import { rateLimit } from "../../src/limits/rate-limit.js";
import { connectRedis } from "../../src/redis/connection.js";
import { redisLeaseStore } from "../../src/redis/lease-store.js";
import { redisRateLimitStore } from "../../src/redis/rate-limit-store.js";
import { sqlStore } from "../../src/store/sql/store.js";

const PASSWORD = "Hunter2PasswordXyz";

/** Everything an error shows: message, string form, stack and causes. */
function everything(error: unknown): string {
  const parts: string[] = [];
  for (let e = error, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++)
    parts.push(String(e), (e as Error).message ?? "", (e as Error).stack ?? "");
  return parts.join("\n");
}

describe("database URLs", () => {
  it("refuses a URL without a scheme without quoting it (it may be all password)", () => {
    for (const url of [`${PASSWORD}@db.internal:5432/app`, PASSWORD, `//${PASSWORD}@db/app`]) {
      let error: unknown;
      try {
        sqlStore({ url });
      } catch (caught) {
        error = caught;
      }
      expect(error, url).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/postgres:\/\//);
      expect(everything(error)).not.toContain(PASSWORD);
    }
  });

  it("(guard) a database that is down is a 503 whose answer and logs hold no password", async () => {
    const store = sqlStore({ url: `postgres://app:${PASSWORD}@127.0.0.1:1/app`, timeoutMs: 3000 });
    const lines: string[] = [];
    const log = (message: string, fields?: unknown) => lines.push(`${message} ${JSON.stringify(fields)}`);
    const tools = createToolsHandler({ store, secret: "s".repeat(32), logger: { warn: log, error: log } });
    try {
      const { key } = await issueApiKey(memoryStore(), { workspaceId: "ws", agentId: "agent" }); // well-formed, so looked up
      const response = await tools(new Request("http://x/proxy/tools/connections", { headers: { "x-api-key": key } }));
      expect(response.status).toBe(503);
      expect(await response.text()).not.toContain(PASSWORD);
      await expect(store.getConnection("conn_x")).rejects.toSatisfy(
        (error) => error instanceof StoreUnavailableError && !everything(error).includes(PASSWORD),
      );
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join("\n")).not.toContain(PASSWORD);
    } finally {
      await tools.close();
      await store.close();
    }
  });
});

describe("Redis URLs", () => {
  it("refuses a URL node-redis cannot use when the store is made, without quoting it", async () => {
    // node-redis refused these only when the first command ran: every rate-limited request was
    // a 500 (a TypeError), or the limit was silently off (a URIError counted as "Redis down").
    for (const url of [
      `redis://:${PASSWORD}@127.0.0.1:6379/abc`,
      `redis://:${PASSWORD}%zz@127.0.0.1:6379`,
      `http://:${PASSWORD}@127.0.0.1:6379`,
      `${PASSWORD}@127.0.0.1`,
    ]) {
      for (const make of [() => connectRedis(url), () => redisRateLimitStore(url), () => redisLeaseStore(url)]) {
        let error: unknown;
        try {
          await make().close();
        } catch (caught) {
          error = caught;
        }
        expect(error, url).toBeInstanceOf(TypeError);
        expect((error as Error).message).toMatch(/redis:\/\//);
        expect(everything(error)).not.toContain(PASSWORD);
      }
    }
    for (const url of [
      "redis://127.0.0.1:6379",
      `redis://:${PASSWORD}@127.0.0.1:6379/0`,
      "rediss://user:p%40ss@cache.internal",
      "redis://127.0.0.1/",
    ])
      await connectRedis(url).close();
  });

  it("(guard) Redis down: the rate limit's errors and its warning hold no password", async () => {
    const store = redisRateLimitStore(`redis://:${PASSWORD}@127.0.0.1:1`, { timeoutMs: 500 });
    try {
      let error: unknown;
      await Promise.resolve(store.hit("k", { limit: 1, windowMs: 1000 })).catch((caught: unknown) => (error = caught));
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(everything(error)).not.toContain(PASSWORD);

      const lines: string[] = [];
      const memory = memoryStore();
      const { key } = await issueApiKey(memory, { workspaceId: "ws", agentId: "agent" });
      const tools = createToolsHandler({
        store: memory,
        limits: rateLimit({
          limit: 5,
          windowMs: 1000,
          store,
          logger: { warn: (message, fields) => lines.push(`${message} ${JSON.stringify(fields)}`) },
        }),
      });
      const response = await tools(new Request("http://x/proxy/tools/connections", { headers: { "x-api-key": key } }));
      expect(response.status).toBe(200); // fails open, by default
      expect(lines.length).toBe(1);
      expect(lines.join("\n")).not.toContain(PASSWORD);
      await tools.close();
    } finally {
      await store.close();
    }
  });
});
