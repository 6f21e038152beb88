import { z } from "zod";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { echo, readJson } from "../core/http.js";
import { requireAgent } from "../core/principal.js";
import { enforceLimits } from "../limits/enforce.js";
import { defineRoute, type Route } from "../routes/route.js";
import { errors } from "../routes/schemas.js";
import type { Toolkit } from "../toolkits/define.js";
import { refuseForeignOrigin } from "./origin.js";

const McpQuerySchema = z.object({
  toolkits: z
    .string()
    .max(2000)
    .optional()
    .meta({ description: "Comma-separated toolkit slugs: serve their tools themselves instead of the meta-tools." }),
});

/**
 * `POST {basePath}/mcp`: a Model Context Protocol server (Streamable HTTP, stateless, JSON
 * answers), for the same API keys as the REST routes. It acts for an agent, so a service key
 * needs `x-agent-id`. The `limits` hook is asked once per JSON-RPC message, with the REST route
 * the message stands for (`POST /execute` for a tool call), so a tool call through MCP is priced
 * and limited as an execute. GET and DELETE, which a stateless server does not serve, are `405`.
 * Not in the OpenAPI document: its body is JSON-RPC, described by the MCP specification.
 */
export const mcpRoutes: Route[] = [
  defineRoute({
    method: "POST",
    path: "/mcp",
    openApi: false,
    summary: "The MCP server (JSON-RPC over Streamable HTTP).",
    query: McpQuerySchema,
    ownLimits: true,
    responses: { 200: { description: "A JSON-RPC answer." }, ...errors(400, 401, 402, 429) },
    async handle({ request, query, principal }, ctx) {
      const refused = refuseForeignOrigin(request, ctx);
      if (refused) return refused;
      const agent = requireAgent(principal);
      const toolkits = query.toolkits === undefined ? null : await selectedToolkits(ctx, query.toolkits);
      const body = await readJson(request, z.unknown());
      if (ctx.limits) {
        for (const message of Array.isArray(body) ? body : [body]) {
          await enforceLimits(ctx.limits, { principal, route: await limitRoute(message, toolkits !== null), method: request.method });
        }
      }
      const { serveMcp } = await import("./server.js");
      return serveMcp(ctx, { request, body, agent, toolkits });
    },
  }),
];

/** The toolkits of `?toolkits=a,b`, each once, in order; an unknown slug is a 400 naming it. */
async function selectedToolkits(ctx: HandlerContext, list: string): Promise<Toolkit[]> {
  const slugs = [...new Set(list.split(",").map((slug) => slug.trim()))];
  if (slugs.some((slug) => slug === ""))
    throw new ToolsError(
      "invalid_request",
      "The query parameter toolkits must list toolkit slugs separated by commas, e.g. ?toolkits=github,slack.",
    );
  const toolkits: Toolkit[] = [];
  for (const slug of slugs) {
    const toolkit = await ctx.registry.get(slug);
    if (!toolkit) {
      throw new ToolsError(
        "invalid_request",
        `No toolkit ${echo(slug)} (from ?toolkits=). Find toolkit slugs with GET ${ctx.basePath}/search, or connect without ?toolkits= to get the search tools.`,
      );
    }
    toolkits.push(toolkit);
  }
  return toolkits;
}

/** The route a JSON-RPC message stands for, as the `limits` hook is told: a tool call is what it does, anything else `POST /mcp`. */
async function limitRoute(message: unknown, toolkitMode: boolean): Promise<string> {
  const call = message as { method?: unknown; params?: { name?: unknown } } | null;
  if (typeof call !== "object" || call === null || call.method !== "tools/call") return "POST /mcp";
  if (toolkitMode) return "POST /execute";
  const { metaRoute } = await import("./meta-tools.js");
  return (typeof call.params?.name === "string" && metaRoute(call.params.name)) || "POST /mcp";
}
