/**
 * The storage options that `serve`, `keys` and `migrate` share, and `migrate`. The storage modules
 * are loaded only when a command that uses them runs.
 */
import type { Command } from "commander";
import { usageError, withExamples } from "../command.js";
import { CliError } from "../errors.js";
import type { Storage, StorageFlags } from "../settings.js";
import { STORAGE_HELP } from "../usage.js";

/** The storage options, as commander parses them. */
export interface StorageOptionValues {
  dataDir?: string;
  databaseUrl?: string;
  redisUrl?: string;
}

/** Adds --data-dir, --database-url and --redis-url (the same for serve, keys and migrate). */
export function addStorageOptions(command: Command): Command {
  return command
    .option("--data-dir <dir>", "keep data in DIR (default ./.tools-proxy; env TOOLS_PROXY_DATA_DIR)")
    .option("--database-url <url>", "postgres://... or mysql://... instead of the SQLite file (env TOOLS_PROXY_DATABASE_URL)")
    .option(
      "--redis-url <url>",
      "redis://...: OAuth refresh leases, --rate-limit counts and API key revocations in Redis, shared by instances (env TOOLS_PROXY_REDIS_URL)",
    );
}

/** The parsed storage options as settings.ts takes them. */
export function storageFlags(values: StorageOptionValues): StorageFlags {
  return { dataDir: values.dataDir, databaseUrl: values.databaseUrl, redisUrl: values.redisUrl };
}

/**
 * Opens the storage for an admin command (no secret needed), runs it, and closes it. A wrong flag
 * is a usage error of `command` (exit 2); a storage failure exits 1 with a sentence. A CliError
 * thrown by `run` passes as it is. Redis is connected only for a command that says `redis`.
 */
export async function withStorage(
  command: Command,
  values: StorageOptionValues,
  run: (storage: Storage) => Promise<void>,
  options: { redis?: boolean } = {},
): Promise<void> {
  const { openStorage, SettingsError, storageFailure } = await import("../settings.js");
  let storage: Storage;
  try {
    storage = await openStorage(storageFlags(values), process.env, { forServe: false, redis: options.redis ?? false });
  } catch (error) {
    if (error instanceof SettingsError) throw error.usage ? usageError(command, error.message) : new CliError(error.message);
    throw error;
  }
  try {
    await run(storage);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(storageFailure(error));
  } finally {
    await storage.close();
  }
}

/** Adds `migrate`. */
export function registerMigrate(program: Command): void {
  const migrate = program
    .command("migrate")
    .summary("Create or upgrade the database tables (serve also does it at start)")
    .description(
      'Create or upgrade the database tables. "serve" does it at every start, so this is only needed to prepare a database ' +
        "before starting instances, e.g. as a release step. Safe to run at any time and from several places at once.",
    );
  addStorageOptions(migrate)
    .addHelpText("after", `\n${STORAGE_HELP}`)
    .action(async (opts: StorageOptionValues) => {
      const { runMigrate } = await import("../migrate.js");
      await withStorage(migrate, opts, async (storage) => {
        process.stdout.write(`tools-proxy: ${await runMigrate(storage)}\n`);
      });
    });
  withExamples(
    migrate,
    "tools-proxy migrate --data-dir ./.tools-proxy",
    "TOOLS_PROXY_DATABASE_URL=postgres://app@db.internal/app tools-proxy migrate",
  );
}
