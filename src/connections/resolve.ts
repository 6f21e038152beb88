import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { canSee } from "../core/principal.js";
import { eachConnectionPage } from "../store/paging.js";
import type { ConnectionRecord, Principal } from "../store/types.js";
import type { Toolkit } from "../toolkits/define.js";
import { withInputDefaults } from "../toolkits/inputs.js";

/**
 * The connection with this id if the caller may see it: an agent sees its own; a service key
 * without `x-agent-id` sees every connection of its workspace. Null otherwise, so that another
 * agent's connection is indistinguishable from one that does not exist.
 */
export async function findVisibleConnection(ctx: HandlerContext, principal: Principal, id: string): Promise<ConnectionRecord | null> {
  const connection = await ctx.store.getConnection(id);
  return connection && canSee(principal, connection) ? connection : null;
}

/**
 * The connection an execute or proxy call uses. With an id: that connection, which must be the
 * agent's, of this toolkit, and active. Without: the agent's only active connection to the
 * toolkit; none is `connection_required`, several is `connection_ambiguous`. A toolkit without
 * auth needs no connection and gets null.
 */
export async function resolveConnection(
  ctx: HandlerContext,
  principal: Principal & { agentId: string },
  toolkit: Toolkit,
  connectionId: string | undefined,
): Promise<ConnectionRecord | null> {
  if (connectionId) {
    const connection = await findVisibleConnection(ctx, principal, connectionId);
    if (!connection || connection.toolkit !== toolkit.slug) {
      throw new ToolsError(
        "not_found",
        `No connection "${connectionId}" to toolkit "${toolkit.slug}" for this agent. ` +
          `List yours with GET ${ctx.basePath}/connections?toolkit=${toolkit.slug}.`,
      );
    }
    if (connection.status !== "active") {
      const reason = connection.statusReason ? ` (${connection.statusReason})` : "";
      throw new ToolsError(
        "connection_required",
        `Connection "${connection.id}" is ${connection.status}${reason}. ` +
          `Reconnect with POST ${ctx.basePath}/auth {"toolkit":"${toolkit.slug}"}.`,
      );
    }
    return withDefaults(toolkit, connection);
  }
  if (toolkit.auth.type === "none") return null;
  const active = await activeConnections(ctx, { workspaceId: principal.workspaceId, agentId: principal.agentId, toolkit: toolkit.slug });
  if (active.length === 1) return withDefaults(toolkit, active[0]!);
  if (active.length === 0) {
    throw new ToolsError(
      "connection_required",
      `No active connection to "${toolkit.slug}". Connect it first with POST ${ctx.basePath}/auth {"toolkit":"${toolkit.slug}"}.`,
    );
  }
  const list =
    active
      .slice(0, NAMED)
      .map((c) => `${c.id} ("${c.label}")`)
      .join(", ") + (active.length > NAMED ? ", and more" : "");
  throw new ToolsError(
    "connection_ambiguous",
    `Several active connections to "${toolkit.slug}": ${list}. Pass connection_id to choose one.`,
  );
}

/** The connection with its toolkit's input defaults in its config, for one call (see `withInputDefaults`). */
function withDefaults(toolkit: Toolkit, connection: ConnectionRecord): ConnectionRecord {
  const params = withInputDefaults(toolkit.inputs, connection.params);
  return params === connection.params ? connection : { ...connection, params };
}

/** How many connections an ambiguity error names; past it, the message says there are more. */
const NAMED = 10;

/** The active connections of one agent to one toolkit, read a page at a time; the first NAMED + 1 are enough. */
async function activeConnections(ctx: HandlerContext, filter: { workspaceId: string; agentId: string; toolkit: string }) {
  const active: ConnectionRecord[] = [];
  for await (const page of eachConnectionPage(ctx.store, filter)) {
    active.push(...page.filter((c) => c.status === "active"));
    if (active.length > NAMED) break;
  }
  return active;
}

/** The connection as the API shows it: never its credential. */
export function publicConnection(record: ConnectionRecord) {
  return {
    id: record.id,
    toolkit: record.toolkit,
    agentId: record.agentId,
    createdAt: record.createdAt.toISOString(),
    remoteUser: record.remoteUser,
    label: record.label,
    status: record.status,
    statusReason: record.statusReason,
    config: { ...record.params },
  };
}
