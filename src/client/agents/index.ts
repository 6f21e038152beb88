/**
 * `tools-proxy/client/agents`: the Tools API's tools for agent frameworks, with nothing to
 * install: a toolset (`loadTools`) and the OpenAI (Chat Completions, Responses) and Anthropic
 * formats with the helpers that run a model's tool calls. The AI SDK, LangChain and the OpenAI
 * Agents SDK have subpaths of their own (`tools-proxy/client/ai-sdk`, `/langchain`,
 * `/openai-agents`), so that this one imports nothing.
 */
export {
  type AnthropicContentBlock,
  type AnthropicTool,
  type AnthropicToolResult,
  anthropicTools,
  runAnthropicToolUses,
} from "./anthropic.js";
export { TOOL_NAME_PATTERN } from "./names.js";
export {
  type OpenAIChatTool,
  type OpenAIChatToolCall,
  type OpenAIChatToolMessage,
  type OpenAIFunctionCallOutput,
  type OpenAIResponseItem,
  type OpenAIResponsesTool,
  type OpenAIToolOptions,
  openaiChatTools,
  openaiResponsesTools,
  runOpenAIChatToolCalls,
  runOpenAIFunctionCalls,
} from "./openai.js";
export { isToolFailure, outputText, type ToolFailure, type ToolOutcome } from "./outcome.js";
export { dropAbsentNulls, type JsonSchema, toStrictSchema } from "./schema.js";
export {
  type AgentTool,
  type AgentToolset,
  createToolset,
  loadTools,
  type ToolSelection,
  type ToolsetOptions,
  type ToolsSource,
} from "./toolset.js";
