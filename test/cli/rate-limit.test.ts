/**
 * `serve --rate-limit N/PERIOD` with real `serve` processes: malformed values (flag and env) are
 * usage errors; one instance refuses the request after N with 429 and Retry-After while another
 * key goes on, and a refused request runs nothing; a Redis that is down lets requests through with
 * a warning and no password shown; two instances on one PostgreSQL and one Redis share the limit,
 * while a third without --redis-url counts on its own.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlStore } from "../../src/store/sql/store.js";
import { sha256Hex } from "../../src/util/encoding.js";
import { createPostgresDatabase, type TestDatabase } from "../support/pg-database.js";
import { connectedClient, redisUnavailableReason, SHARED_REDIS_URL } from "../support/redis.js";
import { callApi, missingBuild, runBin, type ServeProcess, startServe } from "../support/serve-process.js";
import { TARGETS, unavailableReason } from "../support/sql-servers.js";
import { cliEnv, configHome, runCli } from "./run.js";

const sharedReason = missingBuild ?? (await unavailableReason(TARGETS.postgres)) ?? (await redisUnavailableReason());
const SECRET = `rate-limit-secret-${Math.random().toString(36).slice(2)}-0123456789`;
const search = (serve: ServeProcess, key: string) => callApi(serve.api, key, "/search?limit=1");

describe.skipIf(missingBuild)(missingBuild ? `serve --rate-limit (skipped: ${missingBuild})` : "serve --rate-limit, one instance", () => {
  const dirs: string[] = [];
  const serves: ServeProcess[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "tools-proxy-rate-"));
    dirs.push(dir);
    return dir;
  };
  const start = async (args: string[], env: Record<string, string> = {}) => {
    const serve = await startServe(args, env);
    serves.push(serve);
    return serve;
  };
  afterAll(async () => {
    await Promise.all(serves.map((serve) => serve.stop()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("a malformed --rate-limit or TOOLS_PROXY_RATE_LIMIT is a usage error (exit 2) that says the form", () => {
    const form = /must be REQUESTS\/PERIOD, such as 600\/1m, 10\/s or 100\/1h/;
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [["--rate-limit", "600"], {}, form],
      [["--rate-limit", "600/1ms"], {}, form],
      [["--rate-limit", "ten/1m"], {}, form],
      [["--rate-limit", "0/1m"], {}, /--rate-limit must allow from 1 to 1000000000 requests per period; got "0\/1m"/],
      [["--rate-limit", "5/0s"], {}, /--rate-limit must have a period from 1 s to 31 d/],
      [["--rate-limit", "5/40d"], {}, /--rate-limit must have a period from 1 s to 31 d/],
      [[], { TOOLS_PROXY_RATE_LIMIT: "lots" }, /^tools-proxy: TOOLS_PROXY_RATE_LIMIT must be REQUESTS\/PERIOD/],
    ];
    for (const [args, env, message] of cases) {
      const result = runBin(["serve", "--memory", "--port", "0", ...args], env);
      expect(result.status, args.join(" ") || JSON.stringify(env)).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toContain('Run "tools-proxy serve --help" for usage.');
      expect(result.stdout).toBe("");
    }
  });

  it("after N requests of a key: 429 with Retry-After, nothing run; another key is unaffected; the CLI exits 1", async () => {
    const dir = dataDir();
    const serve = await start(["--data-dir", dir, "--rate-limit", "5/1h"]);
    expect(serve.stdout()).toContain(
      "rate limit: 5 requests per hour per API key (counted in this process); over it, 429 with Retry-After\n",
    );
    const other = runBin(["keys", "create", "--workspace", "local", "--agent", "other", "--data-dir", dir]);
    expect(other.status, other.stderr).toBe(0);
    const otherKey = other.stdout.trim();
    const key = serve.key!;

    // Request 1 connects the demo toolkit, 2 to 5 each create a note.
    expect((await callApi(serve.api, key, "/auth", { toolkit: "demo", credentials: { apiKey: "demo-key" } })).status).toBe(201);
    const create = (text: string) => callApi(serve.api, key, "/execute", { tool: "DEMO_CREATE_NOTE", arguments: { text } });
    for (let i = 2; i <= 5; i++) expect((await create(`note ${i}`)).status).toBe(200);
    const refused = await create("over the limit");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: expect.stringMatching(/Retry-After/), code: "rate_limited" });
    // GCRA: a burst of 5, then one every 720 s; the next is due 720 s after the first request.
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(700);
    expect(retryAfter).toBeLessThanOrEqual(720);

    // The refused call ran nothing: the demo API (not rate limited) holds the four notes only.
    const notes = await (await fetch(`${serve.origin}/demo-api/v1/notes`, { headers: { "x-demo-key": "demo-key" } })).json();
    expect(notes.notes.map((n: { text: string }) => n.text)).toEqual(["note 2", "note 3", "note 4", "note 5"]);

    // The other key has its own bucket: its full burst of five, then a refusal of its own.
    for (let i = 0; i < 5; i++) expect((await search(serve, otherKey)).status).toBe(200);
    expect((await search(serve, otherKey)).status).toBe(429);
    expect((await search(serve, key)).status).toBe(429);

    const cli = await runCli(["search"], cliEnv(configHome(), { SVC_WORKSPACE_API_URL: serve.origin, SVC_WORKSPACE_API_KEY: key }));
    expect(cli.status).toBe(1);
    expect(cli.stderr).toMatch(/^tools-proxy: the server answered 429 rate_limited: .+ \(retry after \d+ s\)\n$/);
  });

  it("--rate-limit off overrides TOOLS_PROXY_RATE_LIMIT; without either there is no limit", async () => {
    const serve = await start(["--memory", "--rate-limit", "off"], { TOOLS_PROXY_RATE_LIMIT: "2/1h" });
    expect(serve.stdout()).not.toContain("rate limit:");
    for (let i = 0; i < 4; i++) expect((await search(serve, serve.key!)).status).toBe(200);
    const fromEnv = await start(["--memory"], { TOOLS_PROXY_RATE_LIMIT: "2/1h" });
    expect(fromEnv.stdout()).toContain("rate limit: 2 requests per hour per API key");
    expect((await search(fromEnv, fromEnv.key!)).status).toBe(200);
    expect((await search(fromEnv, fromEnv.key!)).status).toBe(200);
    expect((await search(fromEnv, fromEnv.key!)).status).toBe(429);
  });

  it("with Redis down, requests go through and one warning is logged; the banner shows Redis's host, not its password", async () => {
    // Port 1 on loopback: nothing listens, so every count fails and the limiter fails open.
    const serve = await start(["--data-dir", dataDir(), "--rate-limit", "1/1h", "--redis-url", "redis://:hunter2-redis@127.0.0.1:1"]);
    expect(serve.stdout()).toContain(
      "rate limit: 1 request per hour per API key (counted in Redis at 127.0.0.1:1, shared by every instance using it)",
    );
    expect((await search(serve, serve.key!)).status).toBe(200);
    expect((await search(serve, serve.key!)).status).toBe(200);
    const warning = "warn: rate limit store unavailable; allowing requests unlimited until it is back";
    await waitFor(() => serve.stderr().includes(warning)); // stderr is a pipe of its own: it may trail the answers
    expect(serve.stderr().split(warning)).toHaveLength(2); // once: the warning repeats at most once a minute
    expect(serve.stdout() + serve.stderr()).not.toContain("hunter2");
  });
});

describe.skipIf(sharedReason)(
  sharedReason
    ? `serve --rate-limit across instances (skipped: ${sharedReason})`
    : "serve --rate-limit: two instances on one PostgreSQL and one Redis share the limit",
  () => {
    let database: TestDatabase;
    let dir: string;
    let a: ServeProcess;
    let b: ServeProcess;
    let alone: ServeProcess;
    let key: string;
    let otherKey: string;
    let bucket: string;

    beforeAll(async () => {
      database = await createPostgresDatabase("rate");
      dir = mkdtempSync(join(tmpdir(), "tools-proxy-rate-shared-"));
      const env = { TOOLS_PROXY_SECRET: SECRET, TOOLS_PROXY_DATABASE_URL: database.url };
      const args = ["--no-demo", "--data-dir", dir, "--rate-limit", "6/1h"];
      a = await startServe([...args, "--redis-url", SHARED_REDIS_URL], env);
      b = await startServe([...args, "--redis-url", SHARED_REDIS_URL], env);
      alone = await startServe(args, env); // the same database, but counting in its own process
      key = a.key!;
      const created = runBin(["keys", "create", "--workspace", "local", "--agent", "other"], env);
      expect(created.status, created.stderr).toBe(0);
      otherKey = created.stdout.trim();
      const store = sqlStore({ url: database.url });
      const record = await store.getApiKeyByHash(await sha256Hex(key));
      await store.close();
      bucket = `tools-proxy:ratelimit:6/3600000:${record!.id}`;
    });

    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop(), alone?.stop()]);
      if (bucket) {
        const redis = await connectedClient();
        await redis.del(bucket);
        await redis.close();
      }
      await database?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("prints where the limit is counted", () => {
      expect(a.stdout()).toContain(
        `rate limit: 6 requests per hour per API key (counted in Redis at ${new URL(SHARED_REDIS_URL).host}, shared by every instance using it)`,
      );
      expect(alone.stdout()).toContain("rate limit: 6 requests per hour per API key (counted in this process)");
    });

    it("six requests spread over both instances are allowed; the seventh is 429 on either", async () => {
      for (let i = 0; i < 6; i++) expect((await search(i % 2 ? b : a, key)).status, `request ${i + 1}`).toBe(200);
      for (const serve of [a, b]) {
        const refused = await search(serve, key);
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(500); // one every 600 s
      }
      // The count is in Redis, in the key's bucket, which expires once the bucket is full again.
      const redis = await connectedClient();
      const ttl = await redis.pTTL(bucket);
      await redis.close();
      expect(ttl).toBeGreaterThan(3_000_000);
      expect(ttl).toBeLessThanOrEqual(3_600_000 + 600_000);
    });

    it("another key is unaffected on both, and an instance without --redis-url counts on its own", async () => {
      for (let i = 0; i < 6; i++) expect((await search(i % 2 ? b : a, otherKey)).status).toBe(200);
      expect((await search(alone, key)).status).toBe(200);
      expect((await search(a, key)).status).toBe(429);
    });
  },
);

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
