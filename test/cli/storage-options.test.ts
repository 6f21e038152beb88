/**
 * The storage options of `serve`, `keys` and `migrate`: what each refuses (exit 2 for a wrong
 * flag, 1 for a wrong environment variable; a sentence, no password echoed), and `migrate` /
 * `keys create` against a real server database.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sqlStore } from "../../src/store/sql/store.js";
import { createPostgresDatabase } from "../support/pg-database.js";
import { missingBuild, runBin, runBinAsync } from "../support/serve-process.js";
import { TARGETS, unavailableReason } from "../support/sql-servers.js";

const pgReason = missingBuild ?? (await unavailableReason(TARGETS.postgres));
const SECRET = "storage-options-secret-0123456789abcdef";

describe.skipIf(missingBuild)(missingBuild ? `storage options (skipped: ${missingBuild})` : "storage options", () => {
  const dir = mkdtempSync(join(tmpdir(), "tools-proxy-opts-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a wrong storage flag is a usage error (exit 2) naming the flags; a wrong environment variable exits 1 naming it", async () => {
    const cases: Array<[string[], Record<string, string>, number, RegExp]> = [
      [
        ["serve", "--memory", "--data-dir", dir],
        {},
        2,
        /^tools-proxy: --memory and --data-dir contradict each other: .*Leave out one of them\.\nRun "tools-proxy serve --help" for usage\.\n$/,
      ],
      [
        ["serve", "--memory", "--database-url", "postgres://u:hunter2@127.0.0.1:1/db"],
        {},
        2,
        /--memory and --database-url contradict each other/,
      ],
      [["serve", "--memory", "--redis-url", "redis://127.0.0.1:6379"], {}, 2, /--memory and --redis-url contradict each other/],
      [
        ["serve", "--memory"],
        { TOOLS_PROXY_DATABASE_URL: "postgres://u:hunter2@127.0.0.1:1/db" },
        1,
        /--memory keeps everything in memory, but TOOLS_PROXY_DATABASE_URL is set: unset it, or leave out --memory\./,
      ],
      [["serve", "--database-url", "postgres://u@127.0.0.1:1/db"], {}, 1, /--database-url needs TOOLS_PROXY_SECRET/],
      [
        ["migrate", "--database-url", "ftp://host/db"],
        {},
        2,
        /--database-url must start with postgres:\/\/.*\nRun "tools-proxy migrate --help"/,
      ],
      [["migrate"], { TOOLS_PROXY_DATABASE_URL: "ftp://host/db" }, 1, /TOOLS_PROXY_DATABASE_URL must start with postgres:\/\//],
      [
        ["keys", "list", "--database-url", "ftp://host/db"],
        {},
        2,
        /--database-url must start with postgres:\/\/.*\nRun "tools-proxy keys list --help"/,
      ],
      [["serve", "--redis-url", "http://host"], {}, 2, /--redis-url must start with redis:\/\//],
      [
        ["serve", "--data-dir", dir, "--redis-url", "redis://:hunter2-secret@127.0.0.1:6379/not-a-db"],
        {},
        2,
        /--redis-url: the Redis URL may end with a database number only/,
      ],
      [
        ["serve", "--data-dir", dir],
        { TOOLS_PROXY_REDIS_URL: "redis://:hunter2-secret@127.0.0.1:6379/not-a-db" },
        1,
        /TOOLS_PROXY_REDIS_URL: the Redis URL may end with a database number only/,
      ],
      [["serve", "--data-dir", dir], { TOOLS_PROXY_SECRET: "short" }, 1, /at least 32 bytes/],
    ];
    // Each case is a process of its own that stops at its check: run them side by side.
    const results = await Promise.all(cases.map(([args, env]) => runBinAsync(args, env)));
    for (const [index, [args, , status, message]] of cases.entries()) {
      const result = results[index]!;
      expect(result.status, args.join(" ")).toBe(status);
      expect(result.stderr, args.join(" ")).toMatch(message);
      expect(result.stderr + result.stdout).not.toContain("hunter2");
    }
    expect((await runBinAsync(["serve", "--refresh-lease-ms", "5"])).status).toBe(2);
  }, 90_000); // a dozen processes

  it("a database that cannot be reached fails serve, migrate and keys create at once, without the password", () => {
    const url = "postgres://app:hunter2-secret@127.0.0.1:1/app";
    for (const args of [["serve", "--port", "0"], ["migrate"], ["keys", "create", "--workspace", "w", "--agent", "a"]]) {
      const result = runBin([...args, "--database-url", url], { TOOLS_PROXY_SECRET: SECRET });
      expect(result.status, args.join(" ")).toBe(1);
      expect(result.stderr).toMatch(/the database could not be used: .*Check the storage options/);
      expect(result.stderr + result.stdout).not.toContain("hunter2");
    }
  });

  it("migrate on a fresh data dir creates the SQLite database; a second run has nothing to do", () => {
    const dataDir = join(dir, "fresh");
    expect(runBin(["migrate", "--data-dir", dataDir]).stdout).toBe("tools-proxy: applied 2 migrations: 0001_tables, 0002_listing_order\n");
    expect(runBin(["migrate", "--data-dir", dataDir]).stdout).toBe("tools-proxy: the database is up to date\n");
  });

  it.skipIf(pgReason)(
    pgReason
      ? `migrate and keys create on PostgreSQL (skipped: ${pgReason})`
      : "migrate and keys create on PostgreSQL (URL from the environment)",
    async () => {
      const database = await createPostgresDatabase("opts");
      try {
        const env = { TOOLS_PROXY_DATABASE_URL: database.url };
        expect(runBin(["migrate"], env).stdout).toContain("applied 2 migrations");
        const created = runBin(["keys", "create", "--workspace", "acme", "--service"], env);
        expect(created.status, created.stderr).toBe(0);
        expect(created.stdout).toMatch(/^psk_/);
        const store = sqlStore({ url: database.url });
        try {
          expect(await store.listApiKeys("acme")).toEqual([expect.objectContaining({ kind: "service", agentId: null, revokedAt: null })]);
        } finally {
          await store.close();
        }
      } finally {
        await database.drop();
      }
    },
  );
});
