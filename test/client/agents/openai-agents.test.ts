/**
 * The OpenAI Agents SDK adapter (`tools-proxy/client/openai-agents`) in an agent run against a
 * real server: an `Agent` with the tools and a stub `Model` (the SDK's own interface, no
 * network) that asks for three tools in its first turn; the `Runner` runs them through
 * POST /execute; the model's second request carries the results (the data, a failure, a
 * connect link) and it answers.
 */
import { Agent, type AgentInputItem, type Model, type ModelRequest, type ModelResponse, Runner, Usage } from "@openai/agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTools } from "../../../src/client/agents/index.js";
import { openaiAgentsTools } from "../../../src/client/agents/openai-agents.js";
import { type AgentServer, executeRequests, startAgentServer } from "./server.js";

let s: AgentServer;
beforeAll(async () => {
  s = await startAgentServer();
});
afterAll(() => s.close());

/** A model that asks for the three tools, then answers; it records every request. */
class ScriptedModel implements Model {
  requests: ModelRequest[] = [];
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    if (this.requests.length === 1) {
      const calls = [
        { callId: "call_1", name: "WEATHER_FORECAST", arguments: JSON.stringify({ city: "Oslo", days: 2, units: null }) },
        { callId: "call_2", name: "WEATHER_ALERTS", arguments: JSON.stringify({ region: "north" }) },
        { callId: "call_3", name: "MAIL_SEND", arguments: JSON.stringify({ to: "ada@example.com" }) },
      ];
      return { usage: new Usage(), output: calls.map((c) => ({ type: "function_call", id: `fc_${c.callId}`, status: "completed", ...c })) };
    }
    return {
      usage: new Usage(),
      output: [
        {
          type: "message",
          id: "msg_1",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "It will be 20 degrees." }],
        },
      ],
    };
  }
  // biome-ignore lint/correctness/useYield: the run never streams
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not streamed");
  }
}

describe("OpenAI Agents SDK", () => {
  it("a run: the model's function calls go through the server, their results back to the model", async () => {
    const toolset = await loadTools(s.client, { toolkits: ["weather", "mail"] });
    const model = new ScriptedModel();
    const agent = new Agent({ name: "Assistant", instructions: "Help.", model, tools: openaiAgentsTools(toolset) });
    const before = executeRequests(s);
    const result = await new Runner({ tracingDisabled: true }).run(agent, "Weather in Oslo, alerts, and mail Ada.");

    expect(result.finalOutput).toBe("It will be 20 degrees.");
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]!.tools.map((t) => ("name" in t ? [t.name, "strict" in t ? t.strict : undefined] : null))).toEqual([
      ["WEATHER_FORECAST", true],
      ["WEATHER_ALERTS", true],
      ["MAIL_SEND", true],
    ]);
    expect(executeRequests(s) - before).toBe(3);
    expect(s.received).toContainEqual({ tool: "WEATHER_FORECAST", args: { city: "Oslo", days: 2 } });

    const input = model.requests[1]!.input as AgentInputItem[];
    const results = new Map(input.flatMap((item) => (item.type === "function_call_result" ? [[item.callId, item.output] as const] : [])));
    const text = (id: string) => {
      const output = results.get(id);
      return typeof output === "string" ? output : (output as { text: string }).text;
    };
    expect(JSON.parse(text("call_1"))).toEqual({ city: "Oslo", units: "celsius", highs: [20, 21] });
    expect(JSON.parse(text("call_2"))).toMatchObject({ successful: false, code: "upstream_error", retryable: true });
    expect(JSON.parse(text("call_3")).connectUrl).toMatch(/^https:\/\/auth\.mail\.invalid\/authorize\?/);
  });

  it("gives a tool whose schema has no strict form with strict: false", async () => {
    const toolset = await loadTools(s.client, { toolkits: ["weather"] });
    const open = openaiAgentsTools({ ...toolset, tools: toolset.tools.map((t) => ({ ...t, strictInputSchema: null })) });
    expect(open.map((t) => t.strict)).toEqual([false, false]);
    expect(openaiAgentsTools(toolset).map((t) => t.strict)).toEqual([true, true]);
    expect(openaiAgentsTools(toolset, { strict: false }).map((t) => [t.strict, t.parameters])).toEqual(
      toolset.tools.map((t) => [false, t.inputSchema]),
    );
  });
});
