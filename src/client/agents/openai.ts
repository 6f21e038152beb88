import { outputText } from "./outcome.js";
import type { JsonSchema } from "./schema.js";
import type { AgentTool, AgentToolset } from "./toolset.js";

/** Options of the OpenAI formats. */
export interface OpenAIToolOptions {
  /**
   * Strict mode (`strict: true`): the model's arguments always match the schema. Default: true.
   * A tool whose schema has no strict form (see `toStrictSchema`) is sent with `strict: false`.
   */
  strict?: boolean;
}

/** A Chat Completions function tool, as `openai.chat.completions.create({ tools })` takes it. */
export interface OpenAIChatTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema; strict: boolean };
}

/** A Responses API function tool, as `openai.responses.create({ tools })` takes it. */
export interface OpenAIResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: JsonSchema;
  strict: boolean;
}

/** A tool call of a Chat Completions message (`message.tool_calls[i]`); other kinds than `function` are skipped. */
export interface OpenAIChatToolCall {
  id: string;
  type: string;
  function?: { name: string; arguments: string };
}

/** The tool message that answers a tool call, to append to `messages`. */
export interface OpenAIChatToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

/** An item of a response's `output`; the `function_call` ones are run, the others skipped. */
export interface OpenAIResponseItem {
  type: string;
  call_id?: string | null;
  name?: string | null;
  /** A JSON string for a `function_call`. */
  arguments?: unknown;
}

/** The answer to a `function_call` item, to send as `input` of the next request. */
export interface OpenAIFunctionCallOutput {
  type: "function_call_output";
  call_id: string;
  output: string;
}

function parametersOf(tool: AgentTool, strict: boolean): { parameters: JsonSchema; strict: boolean } {
  return strict && tool.strictInputSchema
    ? { parameters: tool.strictInputSchema, strict: true }
    : { parameters: tool.inputSchema, strict: false };
}

/** The toolset as Chat Completions function tools. */
export function openaiChatTools(toolset: AgentToolset, options: OpenAIToolOptions = {}): OpenAIChatTool[] {
  return toolset.tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, ...parametersOf(tool, options.strict ?? true) },
  }));
}

/** The toolset as Responses API function tools. */
export function openaiResponsesTools(toolset: AgentToolset, options: OpenAIToolOptions = {}): OpenAIResponsesTool[] {
  return toolset.tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    ...parametersOf(tool, options.strict ?? true),
  }));
}

/**
 * Runs a Chat Completions message's `tool_calls` (all at once) and resolves with one tool message
 * per call, in order. A failed call answers with a ToolFailure as JSON; nothing rejects unless
 * `signal` aborts.
 */
export async function runOpenAIChatToolCalls(
  toolset: AgentToolset,
  toolCalls: readonly OpenAIChatToolCall[] | null | undefined,
  options: { signal?: AbortSignal } = {},
): Promise<OpenAIChatToolMessage[]> {
  const calls = (toolCalls ?? []).filter((call) => call.type === "function" && call.function);
  return Promise.all(
    calls.map(async (call) => {
      const outcome = await toolset.run(call.function!.name, call.function!.arguments, options);
      return { role: "tool" as const, tool_call_id: call.id, content: outputText(outcome.output) };
    }),
  );
}

/**
 * Runs the `function_call` items of a response's `output` (all at once) and resolves with one
 * `function_call_output` item per call, in order. Nothing rejects unless `signal` aborts.
 */
export async function runOpenAIFunctionCalls(
  toolset: AgentToolset,
  output: readonly OpenAIResponseItem[],
  options: { signal?: AbortSignal } = {},
): Promise<OpenAIFunctionCallOutput[]> {
  const calls = output.filter((item) => item.type === "function_call" && item.call_id && item.name);
  return Promise.all(
    calls.map(async (call) => {
      const outcome = await toolset.run(call.name!, call.arguments ?? "{}", options);
      return { type: "function_call_output" as const, call_id: call.call_id!, output: outputText(outcome.output) };
    }),
  );
}
