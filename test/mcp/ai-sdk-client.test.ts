/**
 * An AI SDK agent that reaches the tools through the MCP server with the AI SDK's own MCP client
 * (`@ai-sdk/mcp`), against a real `tools-proxy serve` process (`npm run build` first): the AI
 * SDK's mock language model asks for the demo toolkit's tools, the MCP client calls them on the
 * server, and the model's second step receives the results. No glue code between the two.
 */
import { createMCPClient } from "@ai-sdk/mcp";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callApi, missingBuild, type ServeProcess, startServe } from "../support/serve-process.js";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const done = {
  content: [{ type: "text" as const, text: "Done." }],
  finishReason: { unified: "stop" as const, raw: "stop" },
  usage,
  warnings: [],
};

const skip = missingBuild ? `the AI SDK's MCP client (skipped: ${missingBuild})` : "the AI SDK's MCP client";

describe.skipIf(missingBuild)(skip, () => {
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await startServe(["--memory"]);
    const connected = await callApi(serve.api, serve.key!, "/auth", { toolkit: "demo", credentials: { apiKey: "demo-key" } });
    expect(connected.status).toBe(201);
  });
  afterAll(() => serve?.stop());

  const client = (query = "") =>
    createMCPClient({ transport: { type: "http", url: `${serve.api}/mcp${query}`, headers: { authorization: `Bearer ${serve.key}` } } });

  it("with ?toolkits=demo, the model calls a demo tool by its slug and receives the note it made", async () => {
    const mcp = await client("?toolkits=demo");
    try {
      const tools = await mcp.tools();
      expect(Object.keys(tools).sort()).toEqual(["DEMO_CREATE_NOTE", "DEMO_LIST_NOTES", "DEMO_WORD_COUNT"]);
      const model = new MockLanguageModelV4({
        doGenerate: [
          {
            content: [
              {
                type: "tool-call",
                toolCallId: "call_1",
                toolName: "DEMO_CREATE_NOTE",
                input: JSON.stringify({ text: "from an MCP agent" }),
              },
            ],
            finishReason: { unified: "tool-calls", raw: "tool_calls" },
            usage,
            warnings: [],
          },
          done,
        ],
      });
      const result = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: "Make a note." });
      expect(result.text).toBe("Done.");
      expect(JSON.stringify(result.steps[0]!.toolResults[0]!.output)).toContain("from an MCP agent");
      // The model's second step saw the tool's result.
      const seen = JSON.stringify(model.doGenerateCalls[1]!.prompt.filter((message) => message.role === "tool"));
      expect(seen).toContain("from an MCP agent");
      // And the server has the note: the call went through POST /execute's path.
      const listed = await (await callApi(serve.api, serve.key!, "/execute", { tool: "DEMO_LIST_NOTES", arguments: {} })).json();
      expect(JSON.stringify(listed)).toContain("from an MCP agent");
    } finally {
      await mcp.close();
    }
  });

  // Reads the note the test above made.
  it("in the default mode, the model finds the toolkit and executes a tool through the meta-tools", async () => {
    const mcp = await client();
    try {
      const tools = await mcp.tools();
      expect(Object.keys(tools)).toEqual(expect.arrayContaining(["search_toolkits", "execute_tool"]));
      const model = new MockLanguageModelV4({
        doGenerate: [
          {
            content: [
              { type: "tool-call", toolCallId: "call_1", toolName: "search_toolkits", input: JSON.stringify({ keywords: "demo" }) },
            ],
            finishReason: { unified: "tool-calls", raw: "tool_calls" },
            usage,
            warnings: [],
          },
          {
            content: [
              {
                type: "tool-call",
                toolCallId: "call_2",
                toolName: "execute_tool",
                input: JSON.stringify({ tool: "DEMO_LIST_NOTES", arguments: {} }),
              },
            ],
            finishReason: { unified: "tool-calls", raw: "tool_calls" },
            usage,
            warnings: [],
          },
          done,
        ],
      });
      const result = await generateText({ model, tools, stopWhen: stepCountIs(4), prompt: "What notes are there?" });
      expect(result.steps).toHaveLength(3);
      expect(JSON.stringify(result.steps[0]!.toolResults[0]!.output)).toContain('\\"slug\\":\\"demo\\"');
      expect(JSON.stringify(result.steps[1]!.toolResults[0]!.output)).toContain("from an MCP agent");
    } finally {
      await mcp.close();
    }
  });
});
