/**
 * Agent loops in the OpenAI (Chat Completions, Responses) and Anthropic formats against a real
 * server, with a scripted "model" that answers the documented response shapes (typed with the
 * `openai` package's own types; no network). In each: the model asks for tools, the helper runs
 * them through POST /execute, and the model's next request carries the results: the data of a
 * call that worked, the failure of one that failed, and the connect link of one that needs a
 * connection.
 */
import type {
  ChatCompletion,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolMessageParam,
} from "openai/resources/chat/completions";
import type { FunctionTool, ResponseInputItem, ResponseOutputItem } from "openai/resources/responses/responses";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AnthropicContentBlock,
  anthropicTools,
  loadTools,
  openaiChatTools,
  openaiResponsesTools,
  runAnthropicToolUses,
  runOpenAIChatToolCalls,
  runOpenAIFunctionCalls,
} from "../../../src/client/agents/index.js";
import { type AgentServer, executeRequests, startAgentServer } from "./server.js";

let s: AgentServer;
beforeAll(async () => {
  s = await startAgentServer();
});
afterAll(() => s.close());

/** The tool calls every scripted model makes in its first turn: one that works (with the nulls strict mode sends), one that fails, one that needs a connection. */
const CALLS = [
  { id: "call_1", name: "WEATHER_FORECAST", args: { city: "Oslo", days: 2, units: null } },
  { id: "call_2", name: "WEATHER_ALERTS", args: { region: "north" } },
  { id: "call_3", name: "MAIL_SEND", args: { to: "ada@example.com" } },
];

/** What the results the model got must say, by call id. */
function expectResults(results: Map<string, string>) {
  expect(JSON.parse(results.get("call_1")!)).toEqual({ city: "Oslo", units: "celsius", highs: [20, 21] });
  expect(JSON.parse(results.get("call_2")!)).toMatchObject({ successful: false, code: "upstream_error", retryable: true });
  const connect = JSON.parse(results.get("call_3")!);
  expect(connect).toMatchObject({ successful: false, code: "connection_required" });
  expect(connect.connectUrl).toMatch(/^https:\/\/auth\.mail\.invalid\/authorize\?/);
  expect(connect.hint).toContain(connect.connectUrl);
}

describe("OpenAI Chat Completions", () => {
  it("a loop: tool_calls run through the server, tool messages back to the model", async () => {
    const toolset = await loadTools(s.client, { toolkits: ["weather", "mail"] });
    const tools: ChatCompletionTool[] = openaiChatTools(toolset);
    expect(tools[0]).toMatchObject({ type: "function", function: { name: "WEATHER_FORECAST", strict: true } });

    const requests: ChatCompletionMessageParam[][] = [];
    const model = {
      create(body: { messages: ChatCompletionMessageParam[]; tools: ChatCompletionTool[] }): ChatCompletion {
        requests.push(structuredClone(body.messages));
        const first = requests.length === 1;
        return {
          id: `chatcmpl-${requests.length}`,
          object: "chat.completion",
          created: 0,
          model: "scripted",
          choices: [
            {
              index: 0,
              logprobs: null,
              finish_reason: first ? "tool_calls" : "stop",
              message: first
                ? {
                    role: "assistant",
                    content: null,
                    refusal: null,
                    tool_calls: CALLS.map((c) => ({
                      id: c.id,
                      type: "function",
                      function: { name: c.name, arguments: JSON.stringify(c.args) },
                    })),
                  }
                : { role: "assistant", content: "It will be 20 degrees.", refusal: null },
            },
          ],
        };
      },
    };

    const executes = executeRequests(s);
    const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "Weather in Oslo, alerts, and mail Ada." }];
    for (let turn = 0; turn < 5; turn++) {
      const message = model.create({ messages, tools }).choices[0]!.message;
      messages.push(message);
      if (!message.tool_calls?.length) break;
      const results: ChatCompletionToolMessageParam[] = await runOpenAIChatToolCalls(toolset, message.tool_calls);
      messages.push(...results);
    }
    expect(requests).toHaveLength(2);
    expect(executeRequests(s) - executes).toBe(3);
    expect(s.received.slice(-2)).toContainEqual({ tool: "WEATHER_FORECAST", args: { city: "Oslo", days: 2 } });
    const seen = requests[1]!.filter((m): m is ChatCompletionToolMessageParam => m.role === "tool");
    expect(seen.map((m) => m.tool_call_id)).toEqual(["call_1", "call_2", "call_3"]);
    expectResults(new Map(seen.map((m) => [m.tool_call_id, m.content as string])));
    expect(messages.at(-1)).toMatchObject({ role: "assistant", content: "It will be 20 degrees." });
  });
});

describe("OpenAI Responses", () => {
  it("a loop: function_call items run through the server, function_call_output items back", async () => {
    const toolset = await loadTools(s.client, { toolkits: ["weather", "mail"] });
    const tools: FunctionTool[] = openaiResponsesTools(toolset, { strict: false });
    expect(tools[0]).toMatchObject({ type: "function", name: "WEATHER_FORECAST", strict: false, parameters: { required: ["city"] } });

    const inputs: ResponseInputItem[][] = [];
    const model = (input: ResponseInputItem[]): ResponseOutputItem[] => {
      inputs.push(structuredClone(input));
      return inputs.length === 1
        ? CALLS.map((c) => ({
            type: "function_call",
            id: `fc_${c.id}`,
            call_id: c.id,
            name: c.name,
            arguments: JSON.stringify(c.args),
            status: "completed",
          }))
        : [
            {
              type: "message",
              id: "msg_1",
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: "Done.", annotations: [] }],
            },
          ];
    };

    const input: ResponseInputItem[] = [{ role: "user", content: "Weather in Oslo, alerts, and mail Ada." }];
    for (let turn = 0; turn < 5; turn++) {
      const output = model(input);
      input.push(...(output as ResponseInputItem[]));
      const results: ResponseInputItem[] = await runOpenAIFunctionCalls(toolset, output);
      if (results.length === 0) break;
      input.push(...results);
    }
    expect(inputs).toHaveLength(2);
    const seen = inputs[1]!.filter((item): item is ResponseInputItem.FunctionCallOutput => item.type === "function_call_output");
    expectResults(new Map(seen.map((item) => [item.call_id as string, item.output as string])));
  });
});

describe("Anthropic Messages", () => {
  it("a loop: tool_use blocks run through the server, tool_result blocks back, failures marked is_error", async () => {
    const toolset = await loadTools(s.client, { toolkits: ["weather", "mail"] });
    const tools = anthropicTools(toolset);
    expect(tools[0]).toMatchObject({ name: "WEATHER_FORECAST", description: "The weather forecast of a city for the next days." });
    expect(tools[0]!.input_schema).toMatchObject({ type: "object", required: ["city"] });
    expect(tools[0]!.input_schema.$schema).toBeUndefined();

    type Message = {
      role: "user" | "assistant";
      content: string | Array<AnthropicContentBlock | { type: "tool_result"; tool_use_id: string; content: string; is_error?: boolean }>;
    };
    const requests: Message[][] = [];
    const model = (messages: Message[]): { role: "assistant"; stop_reason: string; content: AnthropicContentBlock[] } => {
      requests.push(structuredClone(messages));
      return requests.length === 1
        ? {
            role: "assistant",
            stop_reason: "tool_use",
            content: [{ type: "text" }, ...CALLS.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args }))],
          }
        : { role: "assistant", stop_reason: "end_turn", content: [{ type: "text" }] };
    };

    const messages: Message[] = [{ role: "user", content: "Weather in Oslo, alerts, and mail Ada." }];
    for (let turn = 0; turn < 5; turn++) {
      const reply = model(messages);
      messages.push({ role: "assistant", content: reply.content });
      if (reply.stop_reason !== "tool_use") break;
      messages.push({ role: "user", content: await runAnthropicToolUses(toolset, reply.content) });
    }
    expect(requests).toHaveLength(2);
    const results = requests[1]!.at(-1)!.content as Array<{ tool_use_id: string; content: string; is_error?: boolean }>;
    expect(results.map((r) => [r.tool_use_id, r.is_error ?? false])).toEqual([
      ["call_1", false],
      ["call_2", true],
      ["call_3", true],
    ]);
    expectResults(new Map(results.map((r) => [r.tool_use_id, r.content])));
  });
});
