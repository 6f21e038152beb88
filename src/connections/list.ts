import type { HandlerContext } from "../context/context.js";
import { connectionScope, type Principal } from "../core/principal.js";
import { eachConnectionPage, type Page, readPage } from "../store/paging.js";
import type { ConnectionFilter, ConnectionRecord, ListPosition } from "../store/types.js";
import { publicConnection } from "./resolve.js";

/** Stores already warned about, so that a store written before paging is reported once. */
const warned = new WeakSet<object>();

/** One page of the store's connections matching `filter` (which the store cuts at `limit + 1`). */
export function connectionPage(
  ctx: Pick<HandlerContext, "store" | "sharedStore" | "logger">,
  filter: Omit<ConnectionFilter, "limit" | "after">,
  page: { limit: number; after?: ListPosition | undefined },
): Promise<Page<ConnectionRecord>> {
  return readPage(
    (bounds) => ctx.store.listConnections({ ...filter, ...bounds }),
    page,
    () => {
      // The handler's store, not this request's view of it (withSignal makes one per request).
      if (warned.has(ctx.sharedStore)) return;
      warned.add(ctx.sharedStore);
      ctx.logger.log(
        "warn",
        "the store's listConnections ignores limit and after, so every page loads the whole listing: page it by (createdAt, id) as the ToolsStore contract says (the conformance suite checks it)",
      );
    },
  );
}

/**
 * `GET /connections` and the MCP tool `list_connections`: one page of the caller's connections
 * (an agent's own, or a service key's whole workspace), oldest first, and `nextCursor` when more
 * follow. The cursor is signed and bound to the caller's workspace, agent and toolkit filter: an
 * edited one, or one of another listing, is a 400.
 */
export async function listConnections(
  ctx: Pick<HandlerContext, "store" | "sharedStore" | "logger" | "cursors">,
  principal: Principal,
  query: { toolkit?: string | undefined; limit: number; cursor?: string | undefined },
): Promise<{ connections: ReturnType<typeof publicConnection>[]; nextCursor?: string }> {
  const filter = { ...connectionScope(principal), ...(query.toolkit ? { toolkit: query.toolkit } : {}) };
  const fingerprint = `connections:${JSON.stringify([filter.workspaceId, filter.agentId ?? null, filter.toolkit ?? null])}`;
  const after = query.cursor ? await ctx.cursors.decodePosition(query.cursor, fingerprint) : undefined;
  const { items, hasMore } = await connectionPage(ctx, filter, { limit: query.limit, after });
  const last = items.at(-1);
  const nextCursor = hasMore && last ? await ctx.cursors.encodePosition(last, fingerprint) : undefined;
  return { connections: items.map(publicConnection), ...(nextCursor ? { nextCursor } : {}) };
}

/**
 * Which of `toolkits` the caller has an active connection to (`GET /search`'s `connected`). One
 * page of the caller's connections answers it for most callers; a caller with more (a service key
 * over a large workspace) is asked per toolkit of the page instead, so nothing unbounded is held.
 */
export async function connectedToolkits(
  ctx: Pick<HandlerContext, "store" | "sharedStore" | "logger">,
  principal: Principal,
  toolkits: string[],
): Promise<Set<string>> {
  const scope = connectionScope(principal);
  const active = (records: ConnectionRecord[]) => records.filter((c) => c.status === "active").map((c) => c.toolkit);
  const first = await connectionPage(ctx, scope, { limit: 200 });
  const connected = new Set(active(first.items));
  if (!first.hasMore) return connected;
  const unknown = toolkits.filter((slug) => !connected.has(slug));
  await Promise.all(
    unknown.map(async (toolkit) => {
      for await (const page of eachConnectionPage(ctx.store, { ...scope, toolkit })) {
        if (active(page).length) return connected.add(toolkit);
      }
    }),
  );
  return connected;
}
