/**
 * The MCP server itself, on the official SDK: loaded by the `/mcp` route on its first request, so
 * a handler that never serves MCP never loads the SDK. Stateless: one server and one transport per
 * HTTP request, answering JSON.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import type { AgentPrincipal } from "../core/principal.js";
import { findRemoteTool, toolkitFor } from "../remote-mcp/view.js";
import type { Tool, Toolkit } from "../toolkits/define.js";
import { allTools, defaultFirst } from "../toolkits/lazy.js";
import { callTool } from "./call.js";
import { metaToolList, runMetaTool } from "./meta-tools.js";
import { mcpToolNames } from "./names.js";
import { fromRefusal, type McpCallResult } from "./results.js";
import { type McpTool, mcpTool } from "./tools.js";

/** Tools per `tools/list` page. */
export const MCP_PAGE_SIZE = 100;

/** One MCP request: the HTTP request, its JSON body (already read), the agent, and the toolkits of `?toolkits=` (null without). */
export interface McpCall {
  request: Request;
  body: unknown;
  agent: AgentPrincipal;
  toolkits: Toolkit[] | null;
}

/** Answers one HTTP request of the MCP Streamable HTTP transport. */
export async function serveMcp(ctx: HandlerContext, call: McpCall): Promise<Response> {
  const tools = call.toolkits ? await toolkitTools(ctx, await agentToolkits(ctx, call)) : null;
  const server = new Server(
    { name: "tools-proxy", title: "tools-proxy", version: "1.0.0" },
    { capabilities: { tools: { listChanged: false } }, instructions: instructions(call.toolkits) },
  );
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const all = tools ? tools.list : metaToolList();
    const fingerprint = `mcp:${call.toolkits?.map((t) => t.slug).join(",") ?? ""}`;
    try {
      const { page, nextCursor } = await ctx.cursors.paginate(all, { limit: MCP_PAGE_SIZE, cursor: request.params?.cursor, fingerprint });
      return { tools: page, ...(nextCursor ? { nextCursor } : {}) };
    } catch (error) {
      if (error instanceof ToolsError) throw new McpError(ErrorCode.InvalidParams, error.message);
      throw error;
    }
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    try {
      const result = await runTool(ctx, call, tools, name, args);
      if (!result) {
        const find = tools
          ? "List them with tools/list."
          : "The tools are search_toolkits, search_tools, get_tool, list_connections, connect_toolkit and execute_tool.";
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${JSON.stringify(name.slice(0, 100))}. ${find}`);
      }
      return result;
    } catch (error) {
      if (error instanceof McpError) throw error;
      if (error instanceof ToolsError) return fromRefusal(error);
      ctx.logger.log("error", "MCP tool call failed", { tool: name, error });
      throw new McpError(
        ErrorCode.InternalError,
        "The server failed to handle this tool call. Retry later, and contact the operator if it persists.",
      );
    }
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(call.request, { parsedBody: call.body });
  } finally {
    await server.close();
  }
}

/** Runs the tool `name`: a meta-tool without `?toolkits=`, else one of the toolkits' tools; null when there is none. */
async function runTool(
  ctx: HandlerContext,
  call: McpCall,
  tools: ToolkitTools | null,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<McpCallResult | null> {
  if (!tools) return runMetaTool(name, args, { ctx, agent: call.agent, signal: call.request.signal });
  const found = tools.byName.get(name);
  if (!found) return null;
  if (found.toolkit.remote) return callRemoteTool(ctx, call, found.tool.slug, args);
  return callTool(ctx, call.agent, found, { arguments: args ?? {} }, call.request.signal);
}

/** Calls a remote MCP toolkit's tool through the agent's connection, found again as `POST /execute` finds it. */
async function callRemoteTool(ctx: HandlerContext, call: McpCall, slug: string, args: Record<string, unknown> | undefined) {
  const remote = await findRemoteTool(ctx, call.agent, slug, undefined, call.request.signal);
  if (!remote) return null;
  return callTool(ctx, call.agent, remote, { arguments: args ?? {}, connection_id: remote.connectionId }, call.request.signal);
}

/**
 * The toolkits of `?toolkits=` as the agent sees them: a remote MCP toolkit with the tools its
 * server lists for the agent's connection (none without one, or when the server cannot list them now).
 */
function agentToolkits(ctx: HandlerContext, call: McpCall): Promise<Toolkit[]> {
  return Promise.all(
    (call.toolkits ?? []).map((toolkit) =>
      toolkitFor(ctx, call.agent, toolkit, undefined, call.request.signal).catch((error: unknown) => {
        ctx.logger.log("warn", "remote MCP tools left out of the MCP listing", { toolkit: toolkit.slug, error });
        return toolkit;
      }),
    ),
  );
}

interface ToolkitTools {
  list: McpTool[];
  byName: Map<string, { toolkit: Toolkit; tool: Tool }>;
}

/**
 * The tools of `toolkits` as MCP tools (lazy ones loaded), in order, each toolkit's default set
 * first (see `defaultFirst`), each under its MCP name (see `mcpToolNames`). Built once per
 * handler and list of toolkits, and kept while the registry hands out the same toolkit objects: a
 * `tools/call` then finds its tool without describing a thousand others.
 */
async function toolkitTools(ctx: HandlerContext, toolkits: Toolkit[]): Promise<ToolkitTools> {
  let cache = built.get(ctx);
  if (!cache) {
    cache = new Map();
    built.set(ctx, cache);
  }
  const key = toolkits.map((t) => t.slug).join(",");
  const hit = cache.get(key);
  if (hit && hit.toolkits.length === toolkits.length && hit.toolkits.every((t, i) => t === toolkits[i])) return hit.tools;
  const loaded = await Promise.all(toolkits.map(async (toolkit) => defaultFirst(await allTools(toolkit))));
  const pairs = toolkits.flatMap((toolkit, i) => loaded[i]!.map((tool) => ({ toolkit, tool })));
  const { nameOf } = mcpToolNames(pairs.map((p) => p.tool.slug));
  const byName = new Map<string, { toolkit: Toolkit; tool: Tool }>();
  const list = pairs.map(({ toolkit, tool }) => {
    const name = nameOf.get(tool.slug)!;
    byName.set(name, { toolkit, tool });
    return mcpTool(ctx, toolkit, tool, name);
  });
  const tools = { list, byName };
  // A few lists per handler: drop the oldest past that (a Map keeps insertion order).
  if (cache.size >= MAX_CACHED_LISTS) cache.delete(cache.keys().next().value!);
  cache.set(key, { toolkits: [...toolkits], tools });
  return tools;
}

const MAX_CACHED_LISTS = 64;
const built = new WeakMap<HandlerContext, Map<string, { toolkits: Toolkit[]; tools: ToolkitTools }>>();

function instructions(toolkits: Toolkit[] | null): string {
  if (toolkits) {
    return (
      `Tools of ${toolkits.map((t) => t.name).join(", ")}, run through this agent's connections. ` +
      "A tool whose toolkit is not connected answers with a URL the user opens to connect it."
    );
  }
  return (
    "Tools of many apps (toolkits). Find a toolkit with search_toolkits, its tools with search_tools, " +
    "read a tool's arguments with get_tool, and run it with execute_tool. A toolkit that is not connected " +
    "is connected with connect_toolkit: give the user the URL it answers."
  );
}
