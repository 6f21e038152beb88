// tools-proxy/client/agents as the docs show it, compiled with the strictest settings against the package,
// with the openai package's types. (The AI SDK's, LangChain's and the Agents SDK's own declarations
// do not compile under exactOptionalPropertyTypes without skipLibCheck, so their subpaths are not here.)
import type { ChatCompletionTool, ChatCompletionToolMessageParam } from "openai/resources/chat/completions";
import type { FunctionTool, ResponseInputItem } from "openai/resources/responses/responses";
import { createToolsClient } from "tools-proxy/client";
import {
  anthropicTools,
  loadTools,
  openaiChatTools,
  openaiResponsesTools,
  runAnthropicToolUses,
  runOpenAIChatToolCalls,
  runOpenAIFunctionCalls,
} from "tools-proxy/client/agents";

const client = createToolsClient({ baseUrl: "http://127.0.0.1:8787/proxy/tools", apiKey: "pak_..." });
const toolset = await loadTools(client, { toolkits: ["demo"], tools: { github: ["GITHUB_CREATE_ISSUE"] }, search: "send an email" });

const chatTools: ChatCompletionTool[] = openaiChatTools(toolset);
const responsesTools: FunctionTool[] = openaiResponsesTools(toolset, { strict: false });
const toolMessages: ChatCompletionToolMessageParam[] = await runOpenAIChatToolCalls(toolset, []);
const outputs: ResponseInputItem[] = await runOpenAIFunctionCalls(toolset, []);
const results = await runAnthropicToolUses(toolset, [{ type: "tool_use", id: "toolu_1", name: "DEMO_LIST_NOTES", input: {} }]);

console.log(chatTools, responsesTools, toolMessages, outputs, results, anthropicTools(toolset));
