import {
  SearchQuerySchema,
  SearchResultSchema,
  ToolkitDetailsSchema,
  ToolkitQuerySchema,
  ToolSearchQuerySchema,
  ToolSearchResultSchema,
} from "../api/catalog.js";
import { connectedToolkits } from "../connections/list.js";
import { findVisibleConnection } from "../connections/resolve.js";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { json } from "../core/http.js";
import type { Principal } from "../core/principal.js";
import type { AuthScheme } from "../credentials/auth-schemes.js";
import type { Tool, Toolkit } from "../toolkits/define.js";
import { requireToolkit } from "../toolkits/registry.js";
import { rank, searchToolkits } from "../toolkits/search.js";
import { iconUrl } from "./icons.js";
import { defineRoute } from "./route.js";
import { errors } from "./schemas.js";

export const catalogRoutes = [
  defineRoute({
    method: "GET",
    path: "/search",
    summary: "Find toolkits by keyword, most relevant first.",
    query: SearchQuerySchema,
    responses: {
      200: { description: "Matching toolkits.", schema: SearchResultSchema },
      ...errors(400, 401),
    },
    async handle({ query, principal }, ctx) {
      const toolkits = searchToolkits(await ctx.registry.list(), query.keywords);
      const { page, nextCursor } = await ctx.cursors.paginate(toolkits, {
        limit: query.limit,
        cursor: query.cursor,
        fingerprint: `search:${query.keywords ?? ""}`,
      });
      const connected = await connectedToolkits(
        ctx,
        principal,
        page.map((t) => t.slug),
      );
      return json({
        toolkits: page.map((t) => ({
          slug: t.slug,
          name: t.name,
          description: t.description,
          icon: iconUrl(t.icon, ctx),
          authScheme: t.auth.type,
          authSchemes: t.authModes.map((mode) => mode.type),
          toolCount: t.tools.length,
          connected: connected.has(t.slug),
          configured: isConfigured(t),
        })),
        nextCursor,
      });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/toolkit/:toolkit",
    summary: "A toolkit's metadata and its tools with their input schemas.",
    query: ToolkitQuerySchema,
    responses: { 200: { description: "The toolkit.", schema: ToolkitDetailsSchema }, ...errors(400, 401, 404) },
    async handle({ params, query, principal }, ctx) {
      const toolkit = await requireToolkit(ctx.registry, params.toolkit, ctx.basePath);
      const tools = await toolsFor(ctx, principal, toolkit, query.connection_id);
      const { page, nextCursor } = await ctx.cursors.paginate(tools, {
        limit: query.limit,
        cursor: query.cursor,
        fingerprint: `toolkit:${toolkit.slug}:${query.connection_id ?? ""}`,
      });
      return json({
        slug: toolkit.slug,
        name: toolkit.name,
        description: toolkit.description,
        icon: iconUrl(toolkit.icon, ctx),
        authScheme: toolkit.auth.type,
        auth: publicAuth(toolkit.auth),
        authModes: toolkit.authModes.map(publicAuth),
        inputs: toolkit.inputs.map((input) => ({ ...input, type: input.type ?? "label", optional: input.default !== undefined })),
        categories: toolkit.categories,
        ...(toolkit.docsUrl ? { docsUrl: toolkit.docsUrl } : {}),
        baseUrls: toolkit.baseUrls,
        tools: page.map(publicTool),
        nextCursor,
      });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/toolkit/:toolkit/search",
    summary: "Search the tools of one toolkit, most relevant first.",
    query: ToolSearchQuerySchema,
    responses: {
      200: { description: "Matching tools.", schema: ToolSearchResultSchema },
      ...errors(400, 401, 404),
    },
    async handle({ params, query, principal }, ctx) {
      const toolkit = await requireToolkit(ctx.registry, params.toolkit, ctx.basePath);
      const tools = rank(await toolsFor(ctx, principal, toolkit, query.connection_id), query.query, (t) => t);
      const fingerprint = `tools:${toolkit.slug}:${query.query ?? ""}:${query.connection_id ?? ""}`;
      const { page, nextCursor } = await ctx.cursors.paginate(tools, { limit: query.limit, cursor: query.cursor, fingerprint });
      return json({ tools: page.map(publicTool), nextCursor });
    },
  }),
];

/** What a caller may know of a toolkit's auth scheme: its type and where a key goes, never a client id or secret. */
function publicAuth(auth: AuthScheme) {
  const about = { ...(auth.label ? { label: auth.label } : {}), ...(auth.helpUrl ? { helpUrl: auth.helpUrl } : {}) };
  if (auth.type === "apiKey") {
    const place = auth.in && auth.name ? { in: auth.in, name: auth.name } : {};
    return { type: auth.type, ...place, ...(auth.unconfigured ? { configured: false } : {}), ...about };
  }
  if (auth.type === "oauth2") return { type: auth.type, scopes: auth.scopes, configured: !auth.unconfigured, ...about };
  return { type: auth.type, ...about };
}

/** Whether every mode of the toolkit has what its deployer gives (an OAuth client, a value such as Trello's key). */
function isConfigured(toolkit: Toolkit): boolean {
  return toolkit.authModes.every((mode) => mode.type === "none" || !mode.unconfigured);
}

/** The tool as agents see it. */
export function publicTool(tool: Tool) {
  return {
    slug: tool.slug,
    name: tool.name,
    description: tool.description,
    inputParameters: tool.inputParameters,
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    ...(tool.scopes?.length ? { scopes: tool.scopes } : {}),
  };
}

/**
 * The toolkit's tools, or with `connection_id` only those the connection can run: tools whose
 * required scopes the connection was granted. A connection without recorded scopes (API key,
 * bearer, basic) can run every tool of its toolkit.
 */
async function toolsFor(ctx: HandlerContext, principal: Principal, toolkit: Toolkit, connectionId: string | undefined): Promise<Tool[]> {
  if (!connectionId) return toolkit.tools;
  const connection = await findVisibleConnection(ctx, principal, connectionId);
  if (!connection || connection.toolkit !== toolkit.slug) {
    throw new ToolsError(
      "not_found",
      `No connection "${connectionId}" to toolkit "${toolkit.slug}" for this caller. ` +
        `List connections with GET ${ctx.basePath}/connections.`,
    );
  }
  if (connection.scopes.length === 0) return toolkit.tools;
  const granted = new Set(connection.scopes);
  return toolkit.tools.filter((tool) => (tool.scopes ?? []).every((scope) => granted.has(scope)));
}
