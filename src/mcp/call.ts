import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import type { AgentPrincipal } from "../core/principal.js";
import { type ExecuteRequest, executeTool } from "../execution/execute-tool.js";
import type { Tool, Toolkit } from "../toolkits/define.js";
import { connectionNeeded, fromExecution, fromRefusal, type McpCallResult } from "./results.js";

/**
 * Executes a tool for an MCP `tools/call`, by the path of `POST /execute`. What the REST route
 * answers with an error status is a tool error here: arguments that do not fit the schema (as
 * the 2025-11-25 spec asks), a foreign staged file, and a missing connection, whose answer
 * carries the URL that connects it.
 */
export async function callTool(
  ctx: HandlerContext,
  agent: AgentPrincipal,
  found: { toolkit: Toolkit; tool: Tool },
  request: ExecuteRequest,
  signal: AbortSignal,
): Promise<McpCallResult> {
  try {
    return fromExecution(await executeTool(ctx, agent, found, request, signal));
  } catch (error) {
    if (!(error instanceof ToolsError)) throw error;
    if (error.code === "connection_required") return connectionNeeded(ctx, agent, found.toolkit, error);
    return fromRefusal(error);
  }
}
