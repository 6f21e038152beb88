/**
 * `tools-proxy/client/ai-sdk`: the Tools API's tools for the Vercel AI SDK (`ai` 5 and later).
 *
 * ```ts
 * import { loadTools } from "tools-proxy/client/agents";
 * import { aiSdkTools } from "tools-proxy/client/ai-sdk";
 * const toolset = await loadTools(client, { toolkits: ["github"] });
 * const result = await generateText({ model, tools: aiSdkTools(toolset), stopWhen: stepCountIs(5), prompt });
 * ```
 */
import { jsonSchema, type Tool, tool } from "ai";
import type { AgentToolset } from "./toolset.js";

/** Options of `aiSdkTools`. */
export interface AiSdkToolOptions {
  /**
   * Send OpenAI's strict form of each schema that has one, with `strict: true` (providers without
   * strict mode ignore it). Default: false, the schemas as they are.
   */
  strict?: boolean;
}

/**
 * The toolset as an AI SDK `ToolSet`: one `tool({ description, inputSchema: jsonSchema(...),
 * execute })` per tool, keyed by its name. `execute` runs the tool through `POST /execute` and
 * returns its data, or a ToolFailure (`{ successful: false, error, code, retryable, hint }`) the
 * model reads as the result: a failed call does not throw. The AI SDK does not validate the
 * input against the schema; the server does, and a refusal comes back as a ToolFailure.
 */
export function aiSdkTools(toolset: AgentToolset, options: AiSdkToolOptions = {}): Record<string, Tool<Record<string, unknown>, unknown>> {
  const tools: Record<string, Tool<Record<string, unknown>, unknown>> = {};
  for (const agentTool of toolset.tools) {
    const strict = options.strict === true && agentTool.strictInputSchema !== null;
    const schema = strict ? agentTool.strictInputSchema! : agentTool.inputSchema;
    tools[agentTool.name] = tool<Record<string, unknown>, unknown, Record<string, never>>({
      description: agentTool.description,
      inputSchema: jsonSchema<Record<string, unknown>>(schema as Parameters<typeof jsonSchema>[0]),
      ...(strict ? { strict: true } : {}),
      execute: async (input, { abortSignal }) => (await toolset.run(agentTool.name, input, { signal: abortSignal })).output,
    });
  }
  return tools;
}
