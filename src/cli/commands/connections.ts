/** `connections list` (the default) and `connections delete`. */
import type { Command } from "commander";
import { agentOption, jsonOption, withExamples } from "../command.js";
import { note, printJson, printTable } from "../output.js";
import { interruptSignal, openClient } from "../session.js";

/** Adds `connections [list]` and `connections delete <id...>`. */
export function registerConnections(program: Command): void {
  const connections = program.command("connections").description("List or delete your connections");

  const list = connections
    .command("list", { isDefault: true })
    .description("List your connections, oldest first (the default: `tools-proxy connections`)")
    .option("--toolkit <toolkit>", "only this toolkit's connections")
    .addOption(jsonOption())
    .addOption(agentOption())
    .action(async (opts: { toolkit?: string; json?: boolean; agent?: string }) => {
      const { client } = openClient(opts);
      const result = await client.listConnections({ toolkit: opts.toolkit }, { signal: interruptSignal() });
      if (opts.json) return printJson(result);
      printTable(
        ["ID", "TOOLKIT", "LABEL", "STATUS", "ACCOUNT", "CREATED"],
        result.connections.map((c) => [
          c.id,
          c.toolkit,
          c.label,
          c.statusReason ? `${c.status} (${c.statusReason})` : c.status,
          c.remoteUser || "-",
          c.createdAt,
        ]),
        opts.toolkit ? `No connections to ${opts.toolkit}.` : "No connections. Make one with: tools-proxy auth <toolkit>",
      );
    });
  withExamples(list, "tools-proxy connections", "tools-proxy connections list --toolkit demo --json");

  const remove = connections
    .command("delete")
    .argument("<id...>", "the connections' ids (conn_...)")
    .description("Delete connections (the provider's token is revoked where it can be)")
    .addOption(agentOption())
    .action(async (ids: string[], opts: { agent?: string }) => {
      const { client } = openClient(opts);
      for (const id of ids) {
        await client.deleteConnection(id, { signal: interruptSignal() });
        note(`Deleted ${id}.`);
      }
    });
  withExamples(remove, "tools-proxy connections delete conn_WVt6stLq2jQOR4HuYQgTtQ");
  withExamples(connections, "tools-proxy connections", "tools-proxy connections delete conn_WVt6stLq2jQOR4HuYQgTtQ");
}
