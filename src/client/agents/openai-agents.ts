/**
 * `tools-proxy/client/openai-agents`: the Tools API's tools for the OpenAI Agents SDK
 * (`@openai/agents`).
 *
 * ```ts
 * import { loadTools } from "tools-proxy/client/agents";
 * import { openaiAgentsTools } from "tools-proxy/client/openai-agents";
 * const agent = new Agent({ name: "Assistant", tools: openaiAgentsTools(await loadTools(client, { toolkits: ["github"] })) });
 * ```
 */
import { type FunctionTool, type ToolInputParameters, tool } from "@openai/agents";
import { outputText } from "./outcome.js";
import type { AgentToolset } from "./toolset.js";

type StrictJson = Extract<ToolInputParameters, { additionalProperties: false }>;
type OpenJson = Extract<ToolInputParameters, { additionalProperties: true }>;
/** A function tool of the Agents SDK, as `openaiAgentsTools` makes them. */
export type AgentsFunctionTool = FunctionTool<unknown, ToolInputParameters, string>;

/** Options of `openaiAgentsTools`. */
export interface OpenAIAgentsToolOptions {
  /**
   * Strict mode, the Agents SDK's default. A tool whose schema has no strict form (see
   * `toStrictSchema`) is given with `strict: false`. Default: true.
   */
  strict?: boolean;
}

/**
 * The toolset as Agents SDK function tools: `tool({ name, description, parameters, strict,
 * execute })` with the JSON Schema as `parameters`. `execute` runs the tool through
 * `POST /execute` and returns its data as text, or a ToolFailure as JSON: a failed call does not
 * throw, so the run goes on and the model reads what happened.
 */
export function openaiAgentsTools(toolset: AgentToolset, options: OpenAIAgentsToolOptions = {}): AgentsFunctionTool[] {
  return toolset.tools.map((agentTool) => {
    const strict = (options.strict ?? true) && agentTool.strictInputSchema !== null;
    const execute = async (input: unknown, _context: unknown, details?: { signal?: AbortSignal }) =>
      outputText((await toolset.run(agentTool.name, input, { signal: details?.signal })).output);
    // The SDK types a JSON Schema's strictness through `additionalProperties`; the schema is sent as it is.
    const { name, description } = agentTool;
    return strict
      ? tool({ name, description, parameters: agentTool.strictInputSchema as unknown as StrictJson, strict: true, execute })
      : tool({ name, description, parameters: agentTool.inputSchema as unknown as OpenJson, strict: false, execute });
  }) as AgentsFunctionTool[];
}
