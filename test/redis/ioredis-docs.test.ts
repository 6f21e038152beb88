/**
 * The ioredis wrapper that docs/storage/redis.md shows, run as the page has it against a real
 * Redis: the block is read from the page, its `tools-proxy/redis` import pointed at the sources,
 * and the store it makes must pass the RateLimitStore conformance suite. Keys carry a prefix of
 * this run's own, deleted at the end. test/docs/blocks.test.ts type-checks the same block.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RateLimitStore } from "../../src/limits/types.js";
import { rateLimitStoreConformance } from "../../src/testing/rate-limit-store.js";
import { codeBlocks, ROOT } from "../docs/markdown.js";
import { SUBPATH_SOURCES } from "../docs/subpaths.js";
import { redisUnavailableReason, SHARED_REDIS_URL } from "../support/redis.js";

const PAGE = "docs/storage/redis.md";
const block = codeBlocks(PAGE).find((b) => b.lang === "ts" && b.code.includes('from "ioredis"'));

it(`${PAGE} shows an ioredis wrapper in a ts block`, () => {
  expect(block, `a ts block of ${PAGE} imports ioredis`).toBeDefined();
});

const why = await redisUnavailableReason();
if (why) console.warn(`ioredis docs test skipped: ${why}`);

describe.skipIf(!!why || !block)(`${PAGE}: the ioredis wrapper${why ? ` (skipped: ${why})` : ""}`, () => {
  const prefix = `tp-test:ioredis-docs:${crypto.randomUUID()}:`;
  let dir = "";
  let io: Redis;
  let store: RateLimitStore;

  beforeAll(async () => {
    // Inside the repository (in the ignored .vitest/), so that `ioredis` resolves from node_modules.
    mkdirSync(join(ROOT, ".vitest"), { recursive: true });
    dir = mkdtempSync(join(ROOT, ".vitest", "ioredis-docs-"));
    const source = relative(dir, join(ROOT, SUBPATH_SOURCES["tools-proxy/redis"]!)).replace(/\.ts$/, ".js");
    const code = block!.code.replace('from "tools-proxy/redis"', `from "${source}"`);
    expect(code, "the block imports tools-proxy/redis").not.toBe(block!.code);
    const file = join(dir, "block.ts");
    writeFileSync(file, `${code}\nexport { io, store };\n`);
    const saved = process.env.REDIS_URL;
    process.env.REDIS_URL = SHARED_REDIS_URL;
    try {
      ({ io, store } = (await import(file)) as { io: Redis; store: RateLimitStore });
    } finally {
      if (saved === undefined) delete process.env.REDIS_URL;
      else process.env.REDIS_URL = saved;
    }
  });

  afterAll(async () => {
    if (io) {
      let cursor = "0";
      do {
        const [next, keys] = await io.scan(cursor, "MATCH", `*${prefix}*`, "COUNT", 1000);
        if (keys.length) await io.del(...keys);
        cursor = next;
      } while (cursor !== "0");
      await io.quit();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // The suite's keys are random already; the prefix keeps this run's keys apart and findable.
  rateLimitStoreConformance("redisRateLimitStore over ioredis, as the docs wrap it", () => ({
    hit: (key, rule) => store.hit(`${prefix}${key}`, rule),
  }));

  it("writes its keys under the store's prefix, through ioredis", async () => {
    await store.hit(`${prefix}prefix-check`, { limit: 4, windowMs: 60_000 });
    expect(await io.pttl(`tools-proxy:ratelimit:${prefix}prefix-check`), "the key exists, with a TTL").toBeGreaterThan(0);
  });
});
