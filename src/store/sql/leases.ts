import type { Kysely } from "kysely";
import type { SqlDialect } from "./dialect.js";
import type { StoreDatabase, TableNames } from "./schema.js";

/**
 * Leases as rows: `(name, holder, expires_at)`, `expires_at` in milliseconds on the caller's clock.
 *
 * Acquiring is a compare-and-set in at most two statements, each atomic on its own:
 * 1. take over the row if this holder has it or it has expired (`UPDATE … WHERE holder = me OR
 *    expires_at <= now`): PostgreSQL and InnoDB re-check the condition on the locked row, and
 *    SQLite writes one at a time, so of two contenders only one matches;
 * 2. else insert it, doing nothing when the name exists: of two inserters only one gets a row.
 * A holder that crashes keeps its row until `expires_at`, after which step 1 lets another take it.
 */
export function leaseOperations(db: Kysely<StoreDatabase>, dialect: SqlDialect, t: TableNames) {
  return {
    async acquire(name: string, holder: string, ttlMs: number, now: Date): Promise<boolean> {
      checkLease(name, holder, ttlMs);
      const expiresAt = now.getTime() + ttlMs;
      const updated = await db
        .updateTable(t.leases)
        .set({ holder, expires_at: expiresAt })
        .where("name", "=", name)
        .where((eb) => eb.or([eb("holder", "=", holder), eb("expires_at", "<=", now.getTime())]))
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) return true;

      let insert = db.insertInto(t.leases).values({ name, holder, expires_at: expiresAt });
      insert = dialect === "mysql" ? insert.ignore() : insert.onConflict((oc) => oc.column("name").doNothing());
      const inserted = await insert.executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async release(name: string, holder: string): Promise<void> {
      await db.deleteFrom(t.leases).where("name", "=", name).where("holder", "=", holder).execute();
    },

    /** Deletes the leases expired at `now`; returns how many. */
    async sweep(now: Date): Promise<number> {
      const result = await db.deleteFrom(t.leases).where("expires_at", "<=", now.getTime()).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

/** Lease names and holders are stored in 255 characters; an oversized one is a programming error. */
function checkLease(name: string, holder: string, ttlMs: number): void {
  if (typeof name !== "string" || name.length === 0 || name.length > 255) throw new TypeError("A lease name must be 1 to 255 characters.");
  if (typeof holder !== "string" || holder.length === 0 || holder.length > 255)
    throw new TypeError("A lease holder must be 1 to 255 characters.");
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new TypeError("A lease's ttlMs must be a positive number of milliseconds.");
  if (!Number.isInteger(ttlMs)) throw new TypeError("A lease's ttlMs must be a whole number of milliseconds.");
}
