import { ConnectionListSchema, ConnectionsQuerySchema } from "../api/auth.js";
import { listConnections } from "../connections/list.js";
import { findVisibleConnection } from "../connections/resolve.js";
import { ToolsError } from "../core/errors.js";
import { json } from "../core/http.js";
import { requireAgent } from "../core/principal.js";
import { revokeAtProvider } from "../oauth/revoke.js";
import { sessionPool } from "../remote-mcp/pool.js";
import { defineRoute } from "./route.js";
import { errors } from "./schemas.js";

export const connectionRoutes = [
  defineRoute({
    method: "GET",
    path: "/connections",
    summary: "The caller's connections, a page at a time (a service key without x-agent-id: the workspace's).",
    query: ConnectionsQuerySchema,
    responses: {
      200: { description: "A page of connections, oldest first, and nextCursor when more follow.", schema: ConnectionListSchema },
      ...errors(400, 401),
    },
    handle: async ({ query, principal }, ctx) => json(await listConnections(ctx, principal, query)),
  }),
  defineRoute({
    method: "DELETE",
    path: "/connections/:id",
    summary: "Delete a connection: revoke its token at the provider where possible, then delete it here.",
    responses: { 204: { description: "Deleted." }, ...errors(400, 401, 404) },
    async handle({ params, principal }, ctx) {
      const agent = requireAgent(principal);
      const connection = await findVisibleConnection(ctx, agent, params.id);
      if (!connection)
        throw new ToolsError("not_found", `No connection "${params.id}" for this agent. List yours with GET ${ctx.basePath}/connections.`);
      await revokeAtProvider(ctx, await ctx.registry.get(connection.toolkit), connection);
      await ctx.store.deleteConnection(connection.id);
      sessionPool(ctx).closeConnection(connection.id);
      ctx.emit("connection.deleted", { principal, connectionId: connection.id, toolkit: connection.toolkit });
      return new Response(null, { status: 204 });
    },
  }),
];
