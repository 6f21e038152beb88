/** `connections list` (the default) and `connections delete`. */
import type { Command } from "commander";
import type { ConnectionList } from "../../client/types.js";
import { agentOption, jsonOption, wholeNumber, withExamples } from "../command.js";
import { note, paint, printJson, printTable } from "../output.js";
import { interruptSignal, openClient } from "../session.js";

/** Adds `connections [list]` and `connections delete <id...>`. */
export function registerConnections(program: Command): void {
  const connections = program.command("connections").description("List or delete your connections");

  const list = connections
    .command("list", { isDefault: true })
    .description("List your connections, oldest first, a page at a time (the default: `tools-proxy connections`)")
    .option("--toolkit <toolkit>", "only this toolkit's connections")
    .option("--limit <n>", "connections per page, 1 to 200 (default 50)")
    .option("--cursor <cursor>", "the page after a previous one: its nextCursor")
    .option("--all", "every page, one request after another")
    .addOption(jsonOption())
    .addOption(agentOption())
    .action(async (opts: { toolkit?: string; limit?: string; cursor?: string; all?: boolean; json?: boolean; agent?: string }) => {
      const { client } = openClient(opts);
      const limit = wholeNumber(list, "--limit", opts.limit, 1, 200);
      const query = { toolkit: opts.toolkit, limit, cursor: opts.cursor };
      let result: ConnectionList;
      if (opts.all) {
        result = { connections: [] };
        for await (const page of client.connectionPages(query, { signal: interruptSignal() })) result.connections.push(...page.connections);
      } else {
        result = await client.listConnections(query, { signal: interruptSignal() });
      }
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
      if (result.nextCursor) note(paint(process.stderr, "dim", `More: add --all, or --cursor ${result.nextCursor}`));
    });
  withExamples(list, "tools-proxy connections", "tools-proxy connections list --toolkit demo --json", "tools-proxy connections list --all");

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
