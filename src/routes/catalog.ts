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
import { type AuthScheme, modeId } from "../credentials/auth-schemes.js";
import { fieldsOf, publicFields } from "../credentials/fields.js";
import { knownToolCount, toolkitFor } from "../remote-mcp/view.js";
import type { ConnectionInput, Tool, Toolkit } from "../toolkits/define.js";
import { inputType, isFilled, isOptional } from "../toolkits/inputs.js";
import { allTools, type ToolSummary, toolCount, toolsBySlug } from "../toolkits/lazy.js";
import { requireToolkit } from "../toolkits/registry.js";
import { searchToolkits, searchTools } from "../toolkits/search.js";
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
    async handle({ query, principal, request }, ctx) {
      // `query` is the tool search's word; ignored here, it would list every toolkit.
      if (new URL(request.url).searchParams.has("query")) {
        throw new ToolsError(
          "invalid_request",
          "GET /search takes keywords=..., not query=... (query is for GET /toolkit/{toolkit}/search).",
        );
      }
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
          toolCount: knownToolCount(ctx, principal, t, toolCount(t)),
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
    async handle({ params, query, principal, request }, ctx) {
      const found = await requireToolkit(ctx.registry, params.toolkit, ctx.basePath);
      const toolkit = await toolkitFor(ctx, principal, found, query.connection_id, request.signal);
      const tools = await toolsFor(ctx, principal, toolkit, query.connection_id, searchTools(toolkit, undefined));
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
        inputs: toolkit.inputs.map((input) => publicInput(toolkit, input)),
        categories: toolkit.categories,
        ...(toolkit.docsUrl ? { docsUrl: toolkit.docsUrl } : {}),
        baseUrls: toolkit.baseUrls,
        tools: (
          await toolsBySlug(
            toolkit,
            page.map((t) => t.slug),
          )
        ).map(publicTool),
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
    async handle({ params, query, principal, request }, ctx) {
      const registered = await requireToolkit(ctx.registry, params.toolkit, ctx.basePath);
      const toolkit = await toolkitFor(ctx, principal, registered, query.connection_id, request.signal);
      const found = searchTools(toolkit, query.query);
      const tools = await toolsFor(ctx, principal, toolkit, query.connection_id, found);
      const fingerprint = `tools:${toolkit.slug}:${query.query ?? ""}:${query.connection_id ?? ""}`;
      const { page, nextCursor } = await ctx.cursors.paginate(tools, { limit: query.limit, cursor: query.cursor, fingerprint });
      return json({
        tools: (
          await toolsBySlug(
            toolkit,
            page.map((t) => t.slug),
          )
        ).map(publicTool),
        nextCursor,
      });
    },
  }),
];

/**
 * What a caller may know of a way to connect: its mode id, type, label and the fields a person
 * types, and where a key goes; never a client id or secret.
 */
function publicAuth(auth: AuthScheme) {
  const about = {
    mode: modeId(auth),
    type: auth.type,
    label: auth.label ?? fallbackLabel(auth),
    ...(auth.helpUrl ? { helpUrl: auth.helpUrl } : {}),
    fields: publicFields(auth),
  };
  if (auth.type === "oauth2") return { ...about, scopes: auth.scopes, configured: !auth.unconfigured };
  // A mode whose deployer value is missing (Trello's app key) says so.
  const configured = (auth as { unconfigured?: string }).unconfigured ? { configured: false } : {};
  if (auth.type === "apiKey") return { ...about, ...(auth.in && auth.name ? { in: auth.in, name: auth.name } : {}), ...configured };
  return { ...about, ...configured };
}

/** A label for a way that has none: "OAuth 2", or its fields' labels ("API key", "Username and password"). */
function fallbackLabel(auth: AuthScheme): string {
  if (auth.type === "oauth2") return "OAuth 2";
  const labels = fieldsOf(auth).map((f) => f.label);
  if (labels.length === 0) return "No credential";
  const joined = labels.length > 1 ? `${labels.slice(0, -1).join(", ")} and ${labels.at(-1)!.toLowerCase()}` : labels[0]!;
  return joined;
}

/** An input as callers see it: its kind, whether it may be left out, and whether the provider fills it. */
function publicInput(toolkit: Toolkit, input: ConnectionInput) {
  const filled = input.from !== undefined || isFilled(input, toolkit.authModes);
  return { ...input, type: inputType(input), optional: filled || isOptional(input), filled };
}

/**
 * Whether the deployer has given what the toolkit's main ways to connect need: its OAuth client,
 * and whatever its first mode needs (Trello's app key). A further way the deployer may add (a
 * GitHub App beside GitHub's OAuth) shows as `configured: false` on its mode only.
 */
function isConfigured(toolkit: Toolkit): boolean {
  return toolkit.authModes.every((mode, i) => (i > 0 && mode.type !== "oauth2") || !(mode as { unconfigured?: string }).unconfigured);
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
 * `tools` (the toolkit's, as found), or with `connection_id` only those the connection can run:
 * tools whose required scopes the connection was granted (which loads the toolkit's tools to read
 * their scopes). A connection without recorded scopes (API key, bearer, basic) can run every tool
 * of its toolkit.
 */
async function toolsFor(
  ctx: HandlerContext,
  principal: Principal,
  toolkit: Toolkit,
  connectionId: string | undefined,
  tools: ToolSummary[],
): Promise<ToolSummary[]> {
  if (!connectionId) return tools;
  const connection = await findVisibleConnection(ctx, principal, connectionId);
  if (!connection || connection.toolkit !== toolkit.slug) {
    throw new ToolsError(
      "not_found",
      `No connection "${connectionId}" to toolkit "${toolkit.slug}" for this caller. ` +
        `List connections with GET ${ctx.basePath}/connections.`,
    );
  }
  if (connection.scopes.length === 0) return tools;
  const granted = new Set(connection.scopes);
  const runnable = new Set(
    (await allTools(toolkit)).filter((tool) => (tool.scopes ?? []).every((scope) => granted.has(scope))).map((tool) => tool.slug),
  );
  return tools.filter((tool) => runnable.has(tool.slug));
}
