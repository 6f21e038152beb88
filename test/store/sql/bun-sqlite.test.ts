/**
 * The SQL store on Bun's built-in bun:sqlite (the same code picks node:sqlite on Node): a script
 * run by the `bun` binary of the dev dependency goes through the contract's main operations.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const BUN = join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "bun");
const missing = existsSync(BUN) ? null : "the bun binary is not installed (node_modules/.bin/bun)";

describe.skipIf(missing)(missing ? `sqlStore on bun:sqlite (skipped: ${missing})` : "sqlStore on bun:sqlite", () => {
  it("migrates, round-trips records, compares-and-sets, consumes once, expires leases, persists", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tools-proxy-bun-"));
    try {
      const script = join(import.meta.dirname, "..", "..", "support", "bun-sqlite-check.ts");
      const { stdout } = await promisify(execFile)(BUN, [script, join(dir, "tools.db")], { timeout: 15_000 });
      const seen = JSON.parse(stdout);
      expect(seen).toMatchObject({
        runtime: "bun",
        migrated: ["0001_tables", "0002_listing_order"],
        keyCreatedAt: "2025-01-02T03:04:05.678Z",
        casWinner: 2,
        casLoser: null,
        consumed: 1,
        leases: [true, false],
        leaseAfterExpiry: true,
        afterReopen: "first",
      });
      expect(seen.connection).toMatchObject({
        scopes: ["a", "b"],
        params: { p: "1" },
        credentialsExpireAt: "2025-01-02T03:04:05.678Z",
        version: 2,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
