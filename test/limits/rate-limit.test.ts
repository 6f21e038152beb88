/**
 * The built-in rate limiter and credit check: the in-memory store's conformance and memory
 * bound, the hook's Retry-After and keys, store-down behaviour, and the answers a handler gives.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  combineLimits,
  credits,
  type LimitRequest,
  memoryRateLimitStore,
  type RateLimitStore,
  rateLimit,
  StoreUnavailableError,
} from "../../src/index.js";
import { rateLimitStoreConformance } from "../../src/testing/rate-limit-store.js";
import { createHarness, expectError, type Harness } from "../support/harness.js";

rateLimitStoreConformance("memoryRateLimitStore", () => memoryRateLimitStore());

const request = (keyId: string, workspaceId = "ws1"): LimitRequest => ({
  principal: { workspaceId, agentId: "agent-a", keyId, kind: "agent" },
  route: "POST /execute",
  method: "POST",
});

describe("memoryRateLimitStore", () => {
  it("forgets refilled buckets, so memory follows the active keys, not every key ever seen", () => {
    let now = Date.UTC(2030, 0, 1);
    const store = memoryRateLimitStore({ now: () => now, sweepIntervalMs: 60_000 });
    const rule = { limit: 10, windowMs: 1000 };
    for (let i = 0; i < 50_000; i++) store.hit(`key-${i}`, rule);
    expect(store.size).toBe(50_000);
    now += 30_000;
    store.hit("late", rule);
    expect(store.size).toBe(50_001); // no sweep yet: at most one a minute
    now += 31_000;
    store.hit("later", rule);
    expect(store.size).toBe(1);
  });

  it("keeps a bucket that has not refilled when it sweeps", () => {
    let now = Date.UTC(2030, 0, 1);
    const store = memoryRateLimitStore({ now: () => now, sweepIntervalMs: 1000 });
    const slow = { limit: 1, windowMs: 3_600_000 };
    expect(store.hit("slow", slow).allowed).toBe(true);
    now += 120_000;
    store.hit("other", { limit: 1, windowMs: 1000 });
    expect(store.size).toBe(2);
    expect(store.hit("slow", slow)).toMatchObject({ allowed: false, retryAfterMs: 3_480_000 });
  });

  it("refills on its clock: a burst, then one request per windowMs / limit", () => {
    let now = Date.UTC(2030, 0, 1);
    const store = memoryRateLimitStore({ now: () => now });
    const rule = { limit: 3, windowMs: 3000 };
    expect([1, 2, 3, 4].map(() => store.hit("k", rule).allowed)).toEqual([true, true, true, false]);
    now += 999;
    expect(store.hit("k", rule)).toEqual({ allowed: false, retryAfterMs: 1, remaining: 0 });
    now += 1;
    expect(store.hit("k", rule)).toEqual({ allowed: true, retryAfterMs: 0, remaining: 0 });
    now += 10_000;
    expect(store.hit("k", rule)).toEqual({ allowed: true, retryAfterMs: 0, remaining: 2 });
  });
});

describe("rateLimit", () => {
  it("refuses past the limit with Retry-After in whole seconds, rounded up, at least 1", async () => {
    let now = Date.UTC(2030, 0, 1);
    const store = memoryRateLimitStore({ now: () => now });
    const limits = rateLimit({ limit: 2, windowMs: 10_000, store });
    expect(await limits(request("k1"))).toBeUndefined();
    expect(await limits(request("k1"))).toBeUndefined();
    expect(await limits(request("k1"))).toEqual({ allow: false, reason: "rate_limited", retryAfterSeconds: 5 });
    now += 4_001;
    expect(await limits(request("k1"))).toMatchObject({ retryAfterSeconds: 1 }); // 999 ms left
    now += 998;
    expect(await limits(request("k1"))).toMatchObject({ retryAfterSeconds: 1 }); // 1 ms left: still 1, never 0
    now += 1;
    expect(await limits(request("k1"))).toBeUndefined();
  });

  it("counts per API key by default, or per what `key` returns; null leaves a request unlimited", async () => {
    const perKey = rateLimit({ limit: 1, windowMs: 60_000 });
    expect(await perKey(request("k1"))).toBeUndefined();
    expect(await perKey(request("k2"))).toBeUndefined();
    expect(await perKey(request("k1"))).toMatchObject({ allow: false });

    const perWorkspace = rateLimit({ limit: 1, windowMs: 60_000, key: ({ principal }) => principal.workspaceId });
    expect(await perWorkspace(request("k1", "ws1"))).toBeUndefined();
    expect(await perWorkspace(request("k2", "ws1"))).toMatchObject({ allow: false });
    expect(await perWorkspace(request("k3", "ws2"))).toBeUndefined();

    const onlyExecute = rateLimit({ limit: 1, windowMs: 60_000, key: (r) => (r.route === "POST /execute" ? r.principal.keyId : null) });
    const search = { ...request("k1"), route: "GET /search", method: "GET" };
    for (let i = 0; i < 5; i++) expect(await onlyExecute(search)).toBeUndefined();
    expect(await onlyExecute(request("k1"))).toBeUndefined();
    expect(await onlyExecute(request("k1"))).toMatchObject({ allow: false });
  });

  it("keeps rules apart when two limiters share a store", async () => {
    const store = memoryRateLimitStore();
    const burst = rateLimit({ limit: 2, windowMs: 1000, store });
    const hourly = rateLimit({ limit: 3, windowMs: 3_600_000, store });
    const both = combineLimits(burst, hourly);
    expect(await both(request("k"))).toBeUndefined();
    expect(await both(request("k"))).toBeUndefined();
    expect(await both(request("k"))).toMatchObject({ retryAfterSeconds: 1 }); // the burst limit
    expect(store.size).toBe(2);
  });

  it("rejects a wrong rule at once, naming the field", () => {
    expect(() => rateLimit({ limit: 0, windowMs: 1000 })).toThrow(/"limit" must be a whole number/);
    expect(() => rateLimit({ limit: 10, windowMs: 1.5 })).toThrow(/"windowMs" must be a whole number/);
  });

  describe("when the store is down", () => {
    const down: RateLimitStore = {
      hit: () => {
        throw new StoreUnavailableError("Redis is unavailable; retry shortly.", {
          cause: new Error("connect ECONNREFUSED 127.0.0.1:6390"),
        });
      },
    };

    it("allows requests by default and warns at most once a minute", async () => {
      const warnings: unknown[] = [];
      const limits = rateLimit({
        limit: 1,
        windowMs: 1000,
        store: down,
        logger: { warn: (message, fields) => warnings.push({ message, fields }) },
      });
      for (let i = 0; i < 5; i++) expect(await limits(request("k"))).toBeUndefined();
      expect(warnings).toEqual([
        {
          message: expect.stringMatching(/unavailable; allowing/),
          fields: {
            error: {
              name: "ToolsError",
              message: expect.any(String),
              code: "unavailable",
              cause: expect.objectContaining({ message: expect.stringContaining("ECONNREFUSED") }),
            },
          },
        },
      ]);
    });

    it('refuses with StoreUnavailableError (503) with onStoreError: "refuse"', async () => {
      const limits = rateLimit({ limit: 1, windowMs: 1000, store: down, onStoreError: "refuse" });
      await expect(Promise.resolve().then(() => limits(request("k")))).rejects.toBeInstanceOf(StoreUnavailableError);
    });

    it("lets any other error (a bug) through, never allowing silently", async () => {
      const broken: RateLimitStore = { hit: () => Promise.reject(new Error("WRONGTYPE Operation against a key")) };
      const limits = rateLimit({ limit: 1, windowMs: 1000, store: broken, logger: {} });
      await expect(Promise.resolve().then(() => limits(request("k")))).rejects.toThrow(/WRONGTYPE/);
    });
  });
});

describe("combineLimits and credits", () => {
  it("asks in order and stops at the first refusal", async () => {
    const asked: string[] = [];
    const hook = (name: string, refuse: boolean) => () => {
      asked.push(name);
      return refuse ? ({ allow: false, reason: "insufficient_credits" } as const) : { allow: true as const };
    };
    expect(await combineLimits(hook("a", false), hook("b", true), hook("c", true))(request("k"))).toEqual({
      allow: false,
      reason: "insufficient_credits",
    });
    expect(asked).toEqual(["a", "b"]);
    expect(await combineLimits()(request("k"))).toBeUndefined();
  });

  it("credits refuses with insufficient_credits when the check says no, with the given message", async () => {
    const balance = new Map([["ws1", 1]]);
    const check = credits(async ({ principal }) => (balance.get(principal.workspaceId) ?? 0) > 0, {
      message: "Workspace ws2 is out of credits; top up in billing.",
    });
    expect(await check(request("k", "ws1"))).toBeUndefined();
    expect(await check(request("k", "ws2"))).toEqual({
      allow: false,
      reason: "insufficient_credits",
      message: "Workspace ws2 is out of credits; top up in billing.",
    });
  });
});

describe("through the handler", () => {
  let h: Harness;
  const budget = new Map<string, number>();
  beforeAll(async () => {
    h = await createHarness({
      limits: combineLimits(
        rateLimit({ limit: 3, windowMs: 60_000 }),
        credits(({ principal }) => (budget.get(principal.agentId ?? "") ?? 0) > 0),
      ),
    });
  });
  afterAll(async () => {
    h.assertNoLeaks();
    await h.close();
  });

  it("answers 429 with Retry-After past the limit, per key, and runs nothing refused", async () => {
    const a = (await h.issueAgentKey("agent-a")).key;
    const b = (await h.issueAgentKey("agent-b")).key;
    budget.set("agent-a", 100).set("agent-b", 100);
    const add = (key: string) => h.call("POST", "/execute", { key, body: { tool: "CALC_ADD", arguments: { a: 1, b: 2 } } });
    for (let i = 0; i < 3; i++) expect((await add(a)).json).toMatchObject({ successful: true, data: { sum: 3 } });
    const executed = h.events.filter((e) => e.event === "tool.executed").length;
    const refused = await add(a);
    expectError(refused, 429, "rate_limited", /Retry-After/);
    expect(Number(refused.headers.get("retry-after"))).toBe(20); // 60 s / 3, just after the burst
    expectError(await h.call("GET", "/search", { key: a }), 429, "rate_limited");
    expect(h.events.filter((e) => e.event === "tool.executed")).toHaveLength(executed);
    expect((await add(b)).json.successful).toBe(true);
    // Public routes are not limited.
    expect((await h.call("GET", "/openapi.json")).status).toBe(200);
  });

  it("answers 402 insufficient_credits from the credit check, with no Retry-After", async () => {
    const c = (await h.issueAgentKey("agent-c")).key;
    budget.set("agent-c", 0);
    const res = await h.call("POST", "/execute", { key: c, body: { tool: "CALC_ADD", arguments: { a: 1, b: 2 } } });
    expectError(res, 402, "insufficient_credits", /credits/);
    expect(res.headers.get("retry-after")).toBeNull();
  });
});
