/**
 * A JSON toolkit's validators are made on each tool's first call, not at load, so that loading a
 * toolkit of thousands of tools (Microsoft Graph beta: 21,807) costs memory for the tools used.
 */
import { describe, expect, it } from "vitest";
import { createToolsHandler, issueApiKey, memoryStore } from "../../src/index.js";
import { defineJsonToolkit } from "../../src/toolkits/json.js";
import { type JsonSchema, jsonSchemaValidator } from "../../src/toolkits/schemas.js";

const item = { type: "object", properties: { id: { type: "string", minLength: 2 } }, required: ["id"] };
const toolkitJson = {
  slug: "lazy",
  name: "Lazy",
  description: "Three tools",
  baseUrl: "https://api.lazy.test",
  auth: { type: "none" },
  tools: ["ONE", "TWO", "THREE"].map((name) => ({
    slug: `LAZY_${name}`,
    name,
    description: `Tool ${name}`,
    method: "GET",
    path: "/items/{id}",
    inputParameters: item,
  })),
};

describe("validators made on first use", () => {
  it("jsonSchemaValidator makes its zod validator on the first validate, once, not before", async () => {
    const read: JsonSchema[] = [];
    const validator = jsonSchemaValidator(item, (schema) => (read.push(schema), schema));
    expect(read).toEqual([]);
    expect(await validator["~standard"].validate({ id: "x" })).toMatchObject({ issues: [{ path: ["id"] }] });
    expect(await validator["~standard"].validate({ id: "xy" })).toEqual({ value: { id: "xy" } });
    expect(read).toEqual([item]);
  });

  it("a JSON toolkit's tools validate through it, and a call refuses bad arguments with the same 400 as before", async () => {
    const toolkit = defineJsonToolkit(toolkitJson, { env: {} });
    expect(toolkit.tools.map((tool) => tool.input["~standard"].vendor)).toEqual(["tools-proxy", "tools-proxy", "tools-proxy"]);
    const store = memoryStore();
    const tools = createToolsHandler({ store, toolkits: [toolkit] });
    const { key } = await issueApiKey(store, { workspaceId: "w", agentId: "a" });
    const call = (path: string, body?: unknown) =>
      tools(
        new Request(`http://tools.test/proxy/tools${path}`, {
          method: body === undefined ? "GET" : "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
    const listed = (await (await call("/toolkit/lazy")).json()) as { tools: Array<{ slug: string; inputParameters: unknown }> };
    expect(listed.tools.map((tool) => tool.slug)).toEqual(["LAZY_ONE", "LAZY_TWO", "LAZY_THREE"]);
    expect(listed.tools[0]!.inputParameters).toEqual(item);
    for (let i = 0; i < 2; i++) {
      const refused = await call("/execute", { tool: "LAZY_TWO", arguments: { id: "x" } });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({
        error: "Invalid arguments. arguments.id: Too small: expected string to have >=2 characters.",
        code: "invalid_request",
      });
    }
    await tools.close();
  });
});
