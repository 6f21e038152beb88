import { outputText } from "./outcome.js";
import type { JsonSchema } from "./schema.js";
import type { AgentToolset } from "./toolset.js";

/** An Anthropic Messages API tool, as `anthropic.messages.create({ tools })` takes it. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema & { type: "object" };
}

/** A block of an assistant message's `content`; the `tool_use` ones are run, the others skipped. */
export interface AnthropicContentBlock {
  type: string;
  id?: string;
  name?: string;
  input?: unknown;
}

/** The answer to a `tool_use` block, to send in the next user message's `content`. */
export interface AnthropicToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  /** Set when the call failed; `content` then holds a ToolFailure as JSON. */
  is_error?: true;
}

/** The toolset as Anthropic tools (the schema as it is: Anthropic takes JSON Schema with an object root). */
export function anthropicTools(toolset: AgentToolset): AnthropicTool[] {
  return toolset.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { ...tool.inputSchema, type: "object" },
  }));
}

/**
 * Runs the `tool_use` blocks of an assistant message's `content` (all at once) and resolves with
 * one `tool_result` block per call, in order; a failed call has `is_error: true`. Nothing rejects
 * unless `signal` aborts.
 */
export async function runAnthropicToolUses(
  toolset: AgentToolset,
  content: readonly AnthropicContentBlock[],
  options: { signal?: AbortSignal } = {},
): Promise<AnthropicToolResult[]> {
  const uses = content.filter((block) => block.type === "tool_use" && block.id && block.name);
  return Promise.all(
    uses.map(async (use) => {
      const outcome = await toolset.run(use.name!, use.input ?? {}, options);
      const text = outputText(outcome.output);
      return outcome.ok
        ? { type: "tool_result" as const, tool_use_id: use.id!, content: text }
        : { type: "tool_result" as const, tool_use_id: use.id!, content: text, is_error: true as const };
    }),
  );
}
