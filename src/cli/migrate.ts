import type { Storage } from "./settings.js";

/**
 * `tools-proxy migrate`: creates or upgrades the database tables of the configured storage and
 * says what it did. `serve` does the same at every start; this command lets a deployment run it
 * once, before starting its instances (e.g. as a release step).
 */
export async function runMigrate(storage: Storage): Promise<string> {
  const applied = await storage.migrate();
  return applied.length
    ? `applied ${applied.length} migration${applied.length === 1 ? "" : "s"}: ${applied.join(", ")}`
    : "the database is up to date";
}
