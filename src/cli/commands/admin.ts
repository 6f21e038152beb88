/**
 * `keys create` and `migrate`: admin commands on the data a local `serve` uses, with the same
 * storage options. The storage modules are loaded only when one of them runs.
 */
import type { Command } from "commander";
import type { Storage, StorageFlags } from "../settings.js";
import { usageError, withExamples } from "../command.js";
import { CliError } from "../errors.js";
import { STORAGE_HELP } from "../usage.js";

/** The storage options, as commander parses them. */
export interface StorageOptionValues {
  dataDir?: string;
  databaseUrl?: string;
  redisUrl?: string;
}

/** Adds --data-dir, --database-url and --redis-url (the same for serve, keys create and migrate). */
export function addStorageOptions(command: Command): Command {
  return command
    .option("--data-dir <dir>", "keep data in DIR (default ./.tools-proxy; env TOOLS_PROXY_DATA_DIR)")
    .option("--database-url <url>", "postgres://... or mysql://... instead of the SQLite file (env TOOLS_PROXY_DATABASE_URL)")
    .option("--redis-url <url>", "redis://...: OAuth refresh leases and --rate-limit counts in Redis, shared by instances (env TOOLS_PROXY_REDIS_URL)");
}

/** The parsed storage options as settings.ts takes them. */
export function storageFlags(values: StorageOptionValues): StorageFlags {
  return { dataDir: values.dataDir, databaseUrl: values.databaseUrl, redisUrl: values.redisUrl };
}

/** Opens the storage for an admin command (no secret needed), runs it, and closes it; failures exit 1 with a sentence. */
async function withStorage(values: StorageOptionValues, run: (storage: Storage) => Promise<void>): Promise<void> {
  const { openStorage, SettingsError, storageFailure } = await import("../settings.js");
  let storage: Storage;
  try {
    storage = openStorage(storageFlags(values), process.env, { forServe: false });
  } catch (error) {
    if (error instanceof SettingsError) throw new CliError(error.message);
    throw error;
  }
  try {
    await run(storage);
  } catch (error) {
    throw new CliError(storageFailure(error));
  } finally {
    await storage.close();
  }
}

/** Adds `keys create` and `migrate`. */
export function registerAdmin(program: Command): void {
  const keys = program
    .command("keys")
    .description("Manage API keys in the data of a local server")
    .argument("[command]")
    .usage("<command> [options]")
    .action((sub?: string) => {
      throw usageError(keys, sub ? `unknown command "keys ${sub}"; the only one is "keys create".` : 'missing "create" after "keys".');
    });
  const create = keys
    .command("create")
    .summary("Create an API key for an agent (or a workspace service key) and print it once")
    .description(
      'Create an API key in the same data as "tools-proxy serve" (run it with the same storage options) and print it once on stdout; only its hash is stored. A running server accepts it at once.',
    )
    .option("--workspace <id>", "the workspace of the key")
    .option("--agent <id>", "the agent the key acts as (an agent key, pak_...)")
    .option("--service", "a workspace service key (psk_...) instead: it names the agent per request with the x-agent-id header");
  addStorageOptions(create)
    .addHelpText("after", `\n${STORAGE_HELP}`)
    .action(async (opts: StorageOptionValues & { workspace?: string; agent?: string; service?: boolean }) => {
      if (!opts.workspace) throw usageError(create, "--workspace is required.");
      if (opts.service ? opts.agent !== undefined : !opts.agent) throw usageError(create, "give either --agent A (an agent key) or --service (a service key).");
      const { createKey } = await import("../keys.js");
      await withStorage(opts, async (storage) => {
        await storage.migrate();
        const { key } = await createKey(storage.store, opts.workspace!, opts.service ? null : opts.agent!);
        const who = opts.service ? `service key for workspace "${opts.workspace}"` : `agent key for workspace "${opts.workspace}", agent "${opts.agent}"`;
        process.stderr.write(`tools-proxy: ${who} (printed once; only its hash is stored):\n`);
        process.stdout.write(`${key}\n`);
      });
    });
  withExamples(create, "tools-proxy keys create --workspace local --agent agent", "tools-proxy keys create --workspace acme --service --data-dir /var/lib/tools-proxy");
  withExamples(keys, "tools-proxy keys create --workspace local --agent agent");

  const migrate = program
    .command("migrate")
    .summary("Create or upgrade the database tables (serve also does it at start)")
    .description('Create or upgrade the database tables. "serve" does it at every start, so this is only needed to prepare a database before starting instances, e.g. as a release step. Safe to run at any time and from several places at once.');
  addStorageOptions(migrate)
    .addHelpText("after", `\n${STORAGE_HELP}`)
    .action(async (opts: StorageOptionValues) => {
      const { runMigrate } = await import("../migrate.js");
      await withStorage(opts, async (storage) => {
        process.stdout.write(`tools-proxy: ${await runMigrate(storage)}\n`);
      });
    });
  withExamples(migrate, "tools-proxy migrate --data-dir ./.tools-proxy", "TOOLS_PROXY_DATABASE_URL=postgres://app@db.internal/app tools-proxy migrate");
}
