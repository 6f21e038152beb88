import { z } from "zod";
import { AuthBodySchema } from "../api/auth.js";
import { idParam } from "../api/common.js";
import { connectedToolkits, listConnections } from "../connections/list.js";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { describeIssues } from "../core/http.js";
import type { AgentPrincipal } from "../core/principal.js";
import { findRemoteTool, knownToolCount, toolkitFor } from "../remote-mcp/view.js";
import { connectToolkit } from "../routes/auth.js";
import { iconUrl } from "../routes/icons.js";
import { toolCount, toolsBySlug } from "../toolkits/lazy.js";
import { remoteToolkitOf, requireToolkit } from "../toolkits/registry.js";
import { searchToolkits, searchTools } from "../toolkits/search.js";
import { callTool } from "./call.js";
import { connectionNeeded, type McpCallResult } from "./results.js";
import { type McpTool, stagingHint, takesFiles } from "./tools.js";

/** What a meta-tool's handler gets: the handler's context, the agent, and the call's signal. */
interface MetaCall {
  ctx: HandlerContext;
  agent: AgentPrincipal;
  signal: AbortSignal;
}

interface MetaTool<S extends z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: S;
  readOnly: boolean;
  /** Set on a tool that changes things but never destroys any (MCP assumes it may). */
  additive?: boolean;
  /** The REST route this tool stands for, as the `limits` hook is told. */
  route: string;
  run(args: z.output<S>, call: MetaCall): Promise<McpCallResult | Record<string, unknown>>;
}

const defineMeta = <S extends z.ZodType>(tool: MetaTool<S>) => tool as unknown as MetaTool<z.ZodType>;
const limit = (max: number, fallback = 20) =>
  z
    .number()
    .int()
    .min(1)
    .max(max)
    .default(fallback)
    .meta({ description: `Results per page, 1 to ${max}.` });
const cursor = z.string().max(512).optional().meta({ description: "nextCursor of the previous page, to get the next one." });

/**
 * The tools of the MCP server without `?toolkits=`: a model searches toolkits and their tools,
 * reads a tool's schema, lists and makes connections, and executes any tool, with six tools
 * whatever the number of toolkits. Each does what its REST route does, with the same code.
 */
export const META_TOOLS: MetaTool<z.ZodType>[] = [
  defineMeta({
    name: "search_toolkits",
    title: "Search toolkits",
    description:
      "Finds toolkits (integrations with apps such as GitHub or Gmail) by keywords, most relevant first, " +
      "and says whether this agent has connected each. Without keywords, lists them all.",
    input: z.object({
      keywords: z.string().max(200).optional().meta({ description: "Words to look for, e.g. 'email'." }),
      limit: limit(200),
      cursor,
    }),
    readOnly: true,
    route: "GET /search",
    async run({ keywords, limit, cursor }, { ctx, agent }) {
      const found = searchToolkits(await ctx.registry.list(), keywords);
      const { page, nextCursor } = await ctx.cursors.paginate(found, { limit, cursor, fingerprint: `search:${keywords ?? ""}` });
      const connected = await connectedToolkits(
        ctx,
        agent,
        page.map((t) => t.slug),
      );
      return {
        toolkits: page.map((t) => ({
          slug: t.slug,
          name: t.name,
          description: t.description,
          icon: iconUrl(t.icon, ctx),
          authScheme: t.auth.type,
          toolCount: knownToolCount(ctx, agent, t, toolCount(t)),
          connected: t.auth.type === "none" || connected.has(t.slug),
        })),
        nextCursor,
      };
    },
  }),
  defineMeta({
    name: "search_tools",
    title: "Search a toolkit's tools",
    description:
      "Finds the tools of one toolkit by a query, most relevant first (all of them without a query). Read a tool's arguments with get_tool.",
    input: z.object({
      toolkit: idParam.meta({ description: "The toolkit's slug, from search_toolkits." }),
      query: z.string().max(200).optional().meta({ description: "Words to look for, e.g. 'create issue'." }),
      limit: limit(200),
      cursor,
    }),
    readOnly: true,
    route: "GET /toolkit/:toolkit/search",
    async run({ toolkit: slug, query, limit, cursor }, { ctx, agent, signal }) {
      const toolkit = await toolkitFor(ctx, agent, await requireToolkit(ctx.registry, slug, ctx.basePath), undefined, signal);
      const tools = searchTools(toolkit, query);
      const fingerprint = `tools:${toolkit.slug}:${query ?? ""}:`;
      const { page, nextCursor } = await ctx.cursors.paginate(tools, { limit, cursor, fingerprint });
      return {
        tools: (
          await toolsBySlug(
            toolkit,
            page.map((t) => t.slug),
          )
        ).map((t) => ({
          slug: t.slug,
          name: t.name,
          description: t.description,
          ...(t.annotations ? { annotations: t.annotations } : {}),
        })),
        nextCursor,
      };
    },
  }),
  defineMeta({
    name: "get_tool",
    title: "Read a tool's arguments",
    description: "Gives a tool's description and the JSON Schema of its arguments, to call it with execute_tool.",
    input: z.object({ tool: idParam.meta({ description: "The tool's slug, from search_tools." }) }),
    readOnly: true,
    route: "GET /toolkit/:toolkit",
    async run({ tool: slug }, { ctx, agent, signal }) {
      const found = (await findRemoteTool(ctx, agent, slug, undefined, signal)) ?? (await ctx.registry.getTool(slug));
      if (!found) throw new ToolsError("not_found", `No tool "${slug}". Find tools with search_tools.`);
      const { toolkit, tool } = found;
      return {
        slug: tool.slug,
        name: tool.name,
        toolkit: toolkit.slug,
        description: `${tool.description}${takesFiles(tool.inputParameters) ? ` ${stagingHint(ctx)}` : ""}`,
        inputParameters: tool.inputParameters,
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      };
    },
  }),
  defineMeta({
    name: "list_connections",
    title: "List connections",
    description:
      "Lists this agent's connections (accounts connected to toolkits), oldest first, with their status, optionally for one toolkit; " +
      "nextCursor, when present, gives the next page.",
    input: z.object({
      toolkit: idParam.optional().meta({ description: "Only this toolkit's connections." }),
      limit: limit(200, 50),
      cursor,
    }),
    readOnly: true,
    route: "GET /connections",
    run: ({ toolkit, limit, cursor }, { ctx, agent }) => listConnections(ctx, agent, { toolkit, limit, cursor }),
  }),
  defineMeta({
    name: "connect_toolkit",
    title: "Connect a toolkit",
    description:
      "Connects a toolkit for this agent. Without credentials it answers an authorizationUrl: give it to the user, who opens it " +
      "and signs in (OAuth) or types the key on the page, so you never see it; then list_connections shows the connection. " +
      "Pass credentials only when the user gave them to you for this purpose.",
    input: AuthBodySchema.pick({ toolkit: true, label: true, mode: true, config: true, credentials: true }),
    readOnly: false,
    additive: true,
    route: "POST /auth",
    async run(body, { ctx, agent }) {
      const connected = await connectToolkit(ctx, agent, body);
      if ("connection" in connected) return connected;
      const text =
        `Ask the user to open this URL in a browser and connect there: sign in and approve, or type the key on the page (it works once, until ${connected.expiresAt}): ` +
        `${connected.authorizationUrl}\nThen check with list_connections.`;
      return { content: [{ type: "text", text }], structuredContent: connected };
    },
  }),
  defineMeta({
    name: "execute_tool",
    title: "Execute a tool",
    description:
      "Runs a tool with its arguments (see get_tool), through this agent's connection to its toolkit. " +
      "When the toolkit is not connected, the answer says how the user connects it.",
    input: z.object({
      tool: idParam.meta({ description: "The tool's slug." }),
      arguments: z.record(z.string(), z.unknown()).default({}).meta({ description: "The tool's arguments, as its schema says." }),
      connection_id: idParam.optional().meta({ description: "Which connection to use, when the agent has several to the toolkit." }),
    }),
    readOnly: false,
    route: "POST /execute",
    async run({ tool, arguments: args, connection_id }, { ctx, agent, signal }) {
      const remote = await findRemoteTool(ctx, agent, tool, connection_id, signal).catch((error: unknown) =>
        remoteRefusal(ctx, agent, tool, error),
      );
      if (remote && "content" in remote) return remote;
      if (remote) return callTool(ctx, agent, remote, { arguments: args, connection_id: remote.connectionId }, signal);
      const found = await ctx.registry.getTool(tool);
      if (!found) throw new ToolsError("not_found", `No tool "${tool}". Find tools with search_tools.`);
      return callTool(ctx, agent, found, { arguments: args, connection_id }, signal);
    },
  }),
];

/**
 * A remote tool's call refused before it ran: without a connection, the answer that says how the
 * user connects the toolkit (as for any toolkit); any other refusal as it is.
 */
async function remoteRefusal(ctx: HandlerContext, agent: AgentPrincipal, slug: string, error: unknown): Promise<McpCallResult> {
  const toolkit = error instanceof ToolsError && error.code === "connection_required" ? await remoteToolkitOf(ctx.registry, slug) : null;
  if (!toolkit) throw error;
  return connectionNeeded(ctx, agent, toolkit, error as ToolsError);
}

const byName = new Map(META_TOOLS.map((tool) => [tool.name, tool]));

/** The meta-tools as `tools/list` shows them. */
export function metaToolList(): McpTool[] {
  return META_TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input, { io: "input" }) as McpTool["inputSchema"],
    annotations: {
      readOnlyHint: tool.readOnly,
      ...(tool.additive ? { destructiveHint: false } : {}),
      openWorldHint: tool.name === "execute_tool",
    },
  }));
}

/** The REST route a meta-tool stands for, or null for a name that is none. */
export function metaRoute(name: string): string | null {
  return byName.get(name)?.route ?? null;
}

/**
 * Runs the meta-tool `name`, or returns null when there is none. Arguments that do not fit its
 * schema, and every refusal of what it does, are tool errors (`isError`) a model can act on.
 */
export async function runMetaTool(name: string, args: unknown, call: MetaCall): Promise<McpCallResult | null> {
  const tool = byName.get(name);
  if (!tool) return null;
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) throw new ToolsError("invalid_request", describeIssues(parsed.error.issues, "arguments"));
  const result = await tool.run(parsed.data, call);
  if (Array.isArray(result.content)) return result as McpCallResult;
  return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
}
