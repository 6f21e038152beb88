import { findVisibleConnection, resolveConnection } from "../connections/resolve.js";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import type { AgentPrincipal, Principal } from "../core/principal.js";
import { redact } from "../core/redact.js";
import { accessConnection } from "../execution/access.js";
import type { FoundTool } from "../execution/execute-tool.js";
import type { ConnectionRecord } from "../store/types.js";
import type { Toolkit } from "../toolkits/define.js";
import { remoteToolkitOf } from "../toolkits/registry.js";
import { sessionPool } from "./pool.js";
import { remoteFailure, remoteResultData } from "./results.js";
import type { RemoteToolList } from "./session.js";
import type { RemoteTool } from "./tools.js";

type RemoteToolkit = Toolkit & { remote: NonNullable<Toolkit["remote"]> };

/**
 * The toolkit as `principal` sees it: for a remote MCP toolkit, the same toolkit whose `tools` are
 * those its server lists for the caller's connection (`connectionId`, else the agent's only active
 * connection; none, several, or a caller acting for no agent: no tools); any other toolkit as it
 * is. The object is kept with the listing it was made from, so what is cached per toolkit
 * object (the search index) is made once per listing.
 */
export async function toolkitFor(
  ctx: HandlerContext,
  principal: Principal,
  toolkit: Toolkit,
  connectionId?: string,
  signal?: AbortSignal,
): Promise<Toolkit> {
  if (!isRemote(toolkit)) return toolkit;
  const connection = await connectionFor(ctx, principal, toolkit, connectionId);
  if (connection === undefined) return toolkit;
  return viewOf(toolkit, await listFor(ctx, toolkit, connection, signal));
}

/**
 * How many tools `principal` is known to have in `toolkit`, without asking any server: a remote
 * toolkit's count from the lists kept for the caller's connections (0 when none is), else the
 * toolkit's own count (`fallback`).
 */
export function knownToolCount(ctx: HandlerContext, principal: Principal, toolkit: Toolkit, fallback: number): number {
  if (!toolkit.remote) return fallback;
  return Math.max(
    0,
    ...sessionPool(ctx)
      .knownLists(toolkit, principal)
      .map((list) => list.tools.length),
  );
}

/**
 * The tool `slug` of a remote MCP toolkit (`<toolkit>.<name>`) for an agent's call, ready for
 * `executeTool`, and the connection it runs on (which the call then uses without resolving it
 * again); null when the slug has no remote toolkit's prefix.
 * The connection is resolved as a call resolves it (404, or 409 with how to connect), its tool
 * list read (kept or listed), and a slug not in it is a 404.
 */
export async function findRemoteTool(
  ctx: HandlerContext,
  agent: AgentPrincipal,
  slug: string,
  connectionId: string | undefined,
  signal?: AbortSignal,
): Promise<(FoundTool & { connectionId: string | undefined }) | null> {
  const toolkit = await remoteToolkitOf(ctx.registry, slug);
  if (!toolkit || !isRemote(toolkit)) return null;
  const connection = await resolveConnection(ctx, agent, toolkit, connectionId);
  const list = await listFor(ctx, toolkit, connection, signal);
  const tool = list.bySlug.get(slug);
  if (!tool) {
    const query = connection ? `?connection_id=${connection.id}` : "";
    throw new ToolsError(
      "not_found",
      `No tool "${slug}" among the tools ${toolkit.name}'s MCP server lists for this connection. ` +
        `Find them with GET ${ctx.basePath}/toolkit/${toolkit.slug}/search${query}.`,
    );
  }
  return { toolkit, tool, run: remoteRunner(ctx, toolkit, tool), connection, connectionId: connection?.id };
}

/** The work of one call of a remote tool: through its connection's session, with the call's credential and signal. */
function remoteRunner(ctx: HandlerContext, toolkit: RemoteToolkit, tool: RemoteTool): FoundTool["run"] {
  return async (args, scope) => {
    const session = sessionPool(ctx).session(ctx, toolkit, scope.connection, scope.access);
    try {
      return remoteResultData(tool, await session.call(tool, args, scope));
    } catch (error) {
      // The server may no longer have the tool: list again next time.
      if ((error as { code?: unknown }).code === INVALID_PARAMS) session.dropTools();
      throw remoteFailure(error, tool);
    }
  };
}

const INVALID_PARAMS = -32602;

/** The connection whose tools the caller sees; undefined when there is none to use. */
async function connectionFor(
  ctx: HandlerContext,
  principal: Principal,
  toolkit: Toolkit,
  connectionId: string | undefined,
): Promise<ConnectionRecord | null | undefined> {
  if (connectionId) {
    const connection = await findVisibleConnection(ctx, principal, connectionId);
    if (!connection || connection.toolkit !== toolkit.slug) {
      throw new ToolsError(
        "not_found",
        `No connection "${connectionId}" to toolkit "${toolkit.slug}" for this caller. List connections with GET ${ctx.basePath}/connections.`,
      );
    }
    if (principal.agentId === null) return connection.status === "active" ? connection : undefined;
    return resolveConnection(ctx, { ...principal, agentId: principal.agentId }, toolkit, connectionId);
  }
  if (principal.agentId === null) return toolkit.auth.type === "none" ? null : undefined;
  try {
    return await resolveConnection(ctx, { ...principal, agentId: principal.agentId }, toolkit, undefined);
  } catch (error) {
    if (error instanceof ToolsError && (error.code === "connection_required" || error.code === "connection_ambiguous")) return undefined;
    throw error;
  }
}

/**
 * The tools the connection's session lists (kept or listed now). A listing that fails is a 503
 * that says why, with the connection's secrets redacted; a credential that cannot be used is the
 * 409 that says to reconnect.
 */
async function listFor(
  ctx: HandlerContext,
  toolkit: RemoteToolkit,
  connection: ConnectionRecord | null,
  signal: AbortSignal | undefined,
): Promise<RemoteToolList> {
  // A list kept for the connection needs no credential opened: the call that follows opens its own.
  const known = sessionPool(ctx).existing(toolkit, connection)?.knownTools();
  if (known) return known;
  const access = await accessConnection(ctx, toolkit, connection);
  const session = sessionPool(ctx).session(ctx, toolkit, connection, access);
  try {
    return await session.tools(signal);
  } catch (error) {
    const failure = remoteFailure(error, undefined);
    if (failure instanceof ToolsError && (failure.code === "connection_required" || failure.code === "unavailable")) throw failure;
    ctx.logger.log("warn", "remote MCP tool list failed", { toolkit: toolkit.slug, error }, access.secrets());
    if ((failure as { upstreamStatus?: unknown }).upstreamStatus === 401) {
      throw new ToolsError(
        "connection_required",
        `${toolkit.name}'s MCP server refused the credential of connection "${connection?.id ?? ""}". ` +
          `Delete the connection and connect again with POST ${ctx.basePath}/auth {"toolkit":"${toolkit.slug}"}.`,
      );
    }
    const why = failure instanceof Error ? redact(failure.message, access.secrets()) : "";
    throw new ToolsError("unavailable", `The tools of ${toolkit.name} could not be listed from its MCP server. ${why} Retry later.`, {
      retryAfter: 5,
    });
  }
}

const views = new WeakMap<RemoteToolList, { toolkit: Toolkit; view: Toolkit }>();

/** The toolkit with the listing's tools, one object per toolkit and listing. */
function viewOf(toolkit: Toolkit, list: RemoteToolList): Toolkit {
  const kept = views.get(list);
  if (kept?.toolkit === toolkit) return kept.view;
  const view: Toolkit = { ...toolkit, tools: list.tools };
  views.set(list, { toolkit, view });
  return view;
}

function isRemote(toolkit: Toolkit): toolkit is RemoteToolkit {
  return toolkit.remote !== undefined;
}
