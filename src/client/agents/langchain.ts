/**
 * `tools-proxy/client/langchain`: the Tools API's tools for LangChain (`@langchain/core`).
 *
 * ```ts
 * import { loadTools } from "tools-proxy/client/agents";
 * import { langchainTools } from "tools-proxy/client/langchain";
 * const tools = langchainTools(await loadTools(client, { toolkits: ["github"] }));
 * const model = chatModel.bindTools(tools);
 * ```
 */
import { ToolMessage } from "@langchain/core/messages";
import { DynamicStructuredTool } from "@langchain/core/tools";
import type { JsonSchema7Type } from "@langchain/core/utils/json_schema";
import { outputText } from "./outcome.js";
import type { AgentToolset } from "./toolset.js";

/** Options of `langchainTools`. */
export interface LangChainToolOptions {
  /**
   * Give each tool OpenAI's strict form of its schema where it has one, for a model bound with
   * `strict: true` (`model.bindTools(tools, { strict: true })`). Default: false.
   */
  strict?: boolean;
}

/**
 * The toolset as LangChain tools: one `DynamicStructuredTool` per tool with its JSON Schema.
 * LangChain checks the model's arguments against that schema first (a mismatch throws
 * `ToolInputParsingException`, which LangGraph's `ToolNode` turns into an error message); then
 * the tool runs through `POST /execute`. Invoked with a tool call, it answers a `ToolMessage`:
 * the tool's data as text, or for a failed call a ToolFailure as JSON with `status: "error"`.
 */
export function langchainTools(toolset: AgentToolset, options: LangChainToolOptions = {}): DynamicStructuredTool[] {
  return toolset.tools.map((agentTool) => {
    const schema = (options.strict && agentTool.strictInputSchema) || agentTool.inputSchema;
    return new DynamicStructuredTool({
      name: agentTool.name,
      description: agentTool.description,
      schema: schema as JsonSchema7Type,
      func: async (input: unknown, _runManager, config) => {
        const outcome = await toolset.run(agentTool.name, input, { signal: config?.signal });
        const content = outputText(outcome.output);
        const toolCallId = (config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id;
        if (outcome.ok || !toolCallId) return content;
        return new ToolMessage({ content, tool_call_id: toolCallId, name: agentTool.name, status: "error" });
      },
    });
  });
}
