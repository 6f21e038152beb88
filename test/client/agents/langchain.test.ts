/**
 * The LangChain adapter (`tools-proxy/client/langchain`) in an agent loop against a real server:
 * LangChain's fake chat model, bound to the tools, asks for three of them; each tool is invoked
 * with its tool call, as LangChain's agents do, and runs through POST /execute; a second fake
 * model receives the tool messages (the data, a failure with `status: "error"`, a connect link).
 */
import type { BaseMessage } from "@langchain/core/messages";
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { FakeListChatModel, FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTools } from "../../../src/client/agents/index.js";
import { langchainTools } from "../../../src/client/agents/langchain.js";
import { type AgentServer, executeRequests, startAgentServer } from "./server.js";

let s: AgentServer;
beforeAll(async () => {
  s = await startAgentServer();
});
afterAll(() => s.close());

describe("LangChain", () => {
  it("a loop: the bound model's tool calls run through the server, tool messages back to the model", async () => {
    const toolset = await loadTools(s.client, { toolkits: ["weather", "mail"] });
    const tools = langchainTools(toolset, { strict: true });
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()]).toEqual(["WEATHER_FORECAST", "WEATHER_ALERTS", "MAIL_SEND"]);

    const toolCalls = [
      { id: "call_1", name: "WEATHER_FORECAST", args: { city: "Oslo", days: 2, units: null }, type: "tool_call" as const },
      { id: "call_2", name: "WEATHER_ALERTS", args: { region: "north" }, type: "tool_call" as const },
      { id: "call_3", name: "MAIL_SEND", args: { to: "ada@example.com" }, type: "tool_call" as const },
    ];
    const first = new FakeStreamingChatModel({ chunks: [new AIMessageChunk({ content: "", tool_calls: toolCalls })] }).bindTools(tools);
    const seen: BaseMessage[][] = [];
    const second = new FakeListChatModel({ responses: ["It will be 20 degrees."] });

    const before = executeRequests(s);
    const messages: BaseMessage[] = [new HumanMessage("Weather in Oslo, alerts, and mail Ada.")];
    const asked = await first.invoke(messages);
    messages.push(asked);
    expect(asked.tool_calls?.map((c) => c.name)).toEqual(["WEATHER_FORECAST", "WEATHER_ALERTS", "MAIL_SEND"]);
    for (const call of asked.tool_calls ?? []) messages.push(await byName.get(call.name)!.invoke(call));
    const answer = await second.invoke(messages, { callbacks: [{ handleChatModelStart: (_llm, input) => void seen.push(...input) }] });

    expect(answer).toBeInstanceOf(AIMessage);
    expect(answer.content).toBe("It will be 20 degrees.");
    expect(executeRequests(s) - before).toBe(3);
    expect(s.received).toContainEqual({ tool: "WEATHER_FORECAST", args: { city: "Oslo", days: 2 } });

    const results = seen[0]!.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(results.map((m) => [m.tool_call_id, m.status])).toEqual([
      ["call_1", "success"],
      ["call_2", "error"],
      ["call_3", "error"],
    ]);
    expect(JSON.parse(results[0]!.content as string)).toEqual({ city: "Oslo", units: "celsius", highs: [20, 21] });
    expect(JSON.parse(results[1]!.content as string)).toMatchObject({ successful: false, code: "upstream_error", retryable: true });
    expect(JSON.parse(results[2]!.content as string).connectUrl).toMatch(/^https:\/\/auth\.mail\.invalid\/authorize\?/);
  });

  it("gives the model the schema it was asked for, and answers a plain call with text", async () => {
    const toolset = await loadTools(s.client, { toolkits: ["weather"] });
    const [plain] = langchainTools(toolset);
    const [strict] = langchainTools(toolset, { strict: true });
    expect(plain!.schema).toMatchObject({ required: ["city"] });
    expect(strict!.schema).toMatchObject({ required: ["city", "days", "units"], additionalProperties: false });
    expect(JSON.parse(await plain!.invoke({ city: "Bergen", days: 1 }))).toEqual({ city: "Bergen", units: "celsius", highs: [20] });
  });
});
