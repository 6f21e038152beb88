/**
 * `keys create`, `keys list` and `keys revoke`: API keys in the data of a local server, with the
 * same storage options as `serve`. A running server accepts a new key at once and refuses a
 * revoked one at once when `keys revoke` has the servers' --redis-url, else within its API key
 * cache's 5 seconds.
 */
import { type Command, Option } from "commander";
import type { ApiKeyRecord } from "../../store/types.js";
import { jsonOption, usageError, withExamples } from "../command.js";
import { CliError, EXIT } from "../errors.js";
import { note, printJson, printTable } from "../output.js";
import { STORAGE_HELP } from "../usage.js";
import { addStorageOptions, type StorageOptionValues, withStorage } from "./storage.js";

const SUBCOMMANDS = '"keys create", "keys list" and "keys revoke"';

/** Adds `keys create`, `keys list` and `keys revoke`. */
export function registerKeys(program: Command): void {
  const keys = program
    .command("keys")
    .description("Manage API keys in the data of a local server: create, list, revoke")
    .argument("[command]")
    .usage("<command> [options]")
    .action((sub?: string) => {
      throw usageError(
        keys,
        sub ? `unknown command "keys ${sub}"; the commands are ${SUBCOMMANDS}.` : `missing a command after "keys": ${SUBCOMMANDS}.`,
      );
    });

  const create = keys
    .command("create")
    .summary("Create an API key for an agent (or a workspace service key) and print it once")
    .description(
      'Create an API key in the same data as "tools-proxy serve" (run it with the same storage options) ' +
        'and print it once on stdout, alone, for scripts; its id (for "keys revoke") goes to stderr. ' +
        "Only its hash is stored. A running server accepts it at once.",
    )
    .option("--workspace <id>", "the workspace of the key")
    .option("--agent <id>", "the agent the key acts as (an agent key, pak_...)")
    .option("--service", "a workspace service key (psk_...) instead: it names the agent per request with the x-agent-id header")
    .addOption(new Option("--json", "print the key with its id, kind, workspace and agent as one JSON object"));
  addStorageOptions(create)
    .addHelpText("after", `\n${STORAGE_HELP}`)
    .action(async (opts: StorageOptionValues & { workspace?: string; agent?: string; service?: boolean; json?: boolean }) => {
      if (!opts.workspace) throw usageError(create, "--workspace is required.");
      if (opts.service ? opts.agent !== undefined : !opts.agent)
        throw usageError(create, "give either --agent A (an agent key) or --service (a service key).");
      const { createKey } = await import("../keys.js");
      await withStorage(create, opts, async (storage) => {
        await storage.migrate();
        const { key, record } = await createKey(storage.store, opts.workspace!, opts.service ? null : opts.agent!);
        const who = opts.service
          ? `service key ${record.id} for workspace "${record.workspaceId}"`
          : `agent key ${record.id} for workspace "${record.workspaceId}", agent "${record.agentId}"`;
        process.stderr.write(
          `tools-proxy: ${who} (printed once; only its hash is stored; revoke it with "tools-proxy keys revoke ${record.id}"):\n`,
        );
        if (opts.json) printJson({ key, ...describeKey(record) });
        else process.stdout.write(`${key}\n`);
      });
    });
  withExamples(
    create,
    "tools-proxy keys create --workspace local --agent agent",
    "tools-proxy keys create --workspace acme --service --data-dir /var/lib/tools-proxy",
  );

  const list = keys
    .command("list")
    .summary("List API keys: id, kind, workspace, agent, hint, created, revoked")
    .description(
      'List the API keys in the same data as "tools-proxy serve" (run it with the same storage options), ' +
        "oldest first: never a key, only its hint (the first four and last four characters).",
    )
    .option("--workspace <id>", "only this workspace's keys (default: every workspace)")
    .addOption(jsonOption());
  addStorageOptions(list)
    .addHelpText("after", `\n${STORAGE_HELP}`)
    .action(async (opts: StorageOptionValues & { workspace?: string; json?: boolean }) => {
      const { listKeys } = await import("../keys.js");
      await withStorage(list, opts, async (storage) => {
        await storage.migrate();
        const found = await listKeys(storage.sql!, opts.workspace);
        if (opts.json) return printJson({ keys: found.map(describeKey) });
        printTable(
          ["ID", "KIND", "WORKSPACE", "AGENT", "HINT", "CREATED", "REVOKED"],
          found.map((k) => [
            k.id,
            k.kind,
            k.workspaceId,
            k.agentId ?? "-",
            k.hint,
            k.createdAt.toISOString(),
            k.revokedAt?.toISOString() ?? "-",
          ]),
          opts.workspace
            ? `No keys in workspace "${opts.workspace}".`
            : "No keys. Make one with: tools-proxy keys create --workspace W --agent A",
        );
      });
    });
  withExamples(list, "tools-proxy keys list", "tools-proxy keys list --workspace local --json");

  const revoke = keys
    .command("revoke")
    .argument("<id...>", 'the keys\' ids (key_..., from "keys list" or "keys create")')
    .summary("Revoke API keys by id: running servers refuse them at once with --redis-url, else within 5 s (401)")
    .description(
      'Revoke API keys by their ids (from "tools-proxy keys list"), in the same data as "tools-proxy serve" ' +
        "(run it with the same storage options). With the servers' --redis-url, every running server refuses a revoked key at once (401); " +
        "without it, within 5 seconds (its API key cache keeps a valid key that long). " +
        "Revoking a key twice is not an error, and tells the servers again.",
    );
  addStorageOptions(revoke)
    .addHelpText("after", `\n${STORAGE_HELP}`)
    .action(async (ids: string[], opts: StorageOptionValues) => {
      const { revokeKey } = await import("../keys.js");
      const { redisApiKeyRevocations } = await import("../../redis/revocations.js");
      await withStorage(
        revoke,
        opts,
        async (storage) => {
          await storage.migrate();
          let unreached: Error | undefined;
          const revocations = storage.redis
            ? redisApiKeyRevocations(storage.redis, { onError: (error) => (unreached ??= error) })
            : undefined;
          for (const id of ids) {
            const result = await revokeKey(storage.sql!, id, revocations);
            if (!result)
              throw new CliError(
                `there is no API key "${id}" in this data; list them with "tools-proxy keys list" (with the same storage options).`,
                EXIT.notFound,
              );
            const agent = result.key.agentId ? `, agent "${result.key.agentId}"` : "";
            const what = `${result.key.kind} key ${id} (workspace "${result.key.workspaceId}"${agent})`;
            note(
              result.outcome === "revoked"
                ? `Revoked ${what}.`
                : `The ${what} was already revoked, at ${result.key.revokedAt!.toISOString()}.`,
            );
          }
          if (unreached)
            note(
              `Redis could not be reached (${describeRedisError(unreached)}): running servers refuse the key within 5 seconds rather than at once. ` +
                "Run the same command again once Redis is back to tell them at once.",
            );
        },
        { redis: true },
      );
    });
  withExamples(
    revoke,
    "tools-proxy keys revoke key_3kVq0bqXU0bm5V2fRr4l1A",
    "tools-proxy keys revoke key_3kVq0bqXU0bm5V2fRr4l1A --data-dir /var/lib/tools-proxy",
  );
  withExamples(
    keys,
    "tools-proxy keys create --workspace local --agent agent",
    "tools-proxy keys list",
    "tools-proxy keys revoke key_3kVq0bqXU0bm5V2fRr4l1A",
  );
}

/** Why Redis failed, in a few words and never with its URL (which may hold a password). */
function describeRedisError(error: Error): string {
  const code = (error.cause as { code?: unknown } | undefined)?.code ?? (error as { code?: unknown }).code;
  return typeof code === "string" ? code : error.message.replace(/\/\/[^@/\s]*@/g, "//***@");
}

/** A key as `keys list --json` and `keys create --json` show it: everything but its hash. */
function describeKey(record: ApiKeyRecord) {
  return {
    id: record.id,
    kind: record.kind,
    workspace: record.workspaceId,
    agent: record.agentId,
    hint: record.hint,
    createdAt: record.createdAt.toISOString(),
    revokedAt: record.revokedAt?.toISOString() ?? null,
  };
}
