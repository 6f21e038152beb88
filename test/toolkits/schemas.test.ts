/**
 * A tool's input schema, from whatever the app has: zod 4, zod 3.25's `zod/v4`, zod 3 (with its
 * JSON Schema given), any Standard Schema, or a JSON Schema alone. Each validates the arguments
 * before `run` through a real handler; a schema that cannot be used is a TypeError at definition,
 * never a crash at the first call.
 */

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as zod3 } from "zod3";
import { z as zod3v4 } from "zod3/v4";
import { createToolsHandler, defineTool, defineToolkit, issueApiKey, memoryStore, none, type StandardSchemaV1 } from "../../src/index.js";

const OWNER_SCHEMA = { type: "object", properties: { owner: { type: "string" }, count: { type: "integer" } }, required: ["owner"] };

async function execute(tool: ReturnType<typeof defineTool>, args: unknown) {
  const store = memoryStore();
  const { key } = await issueApiKey(store, { workspaceId: "ws", agentId: "agent" });
  const tools = createToolsHandler({
    store,
    toolkits: [defineToolkit({ slug: "t", name: "T", description: "T.", auth: none(), tools: [tool] })],
  });
  const response = await tools(
    new Request("http://x.test/proxy/tools/execute", {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ tool: tool.slug, arguments: args }),
    }),
  );
  return { status: response.status, body: (await response.json()) as { data?: unknown; error?: string; code?: string } };
}

const echo = <S extends StandardSchemaV1>(slug: string, input: S | undefined, inputParameters?: Record<string, unknown>) =>
  defineTool({
    slug,
    name: slug,
    description: "Echoes its arguments.",
    ...(input ? { input } : {}),
    ...(inputParameters ? { inputParameters } : {}),
    run: (args) => ({ got: args }),
  });

describe("tool input schemas", () => {
  it("zod 4: the JSON Schema is made from it, and it validates", async () => {
    const tool = echo("ZOD4", z.object({ owner: z.string(), count: z.number().int().default(1) }));
    expect(tool.inputParameters).toMatchObject({ type: "object", required: ["owner"], properties: { owner: { type: "string" } } });
    expect(await execute(tool, { owner: "octo" })).toEqual({
      status: 200,
      body: expect.objectContaining({ data: { got: { owner: "octo", count: 1 } } }),
    });
    expect(await execute(tool, { owner: 1 })).toEqual({
      status: 400,
      body: { code: "invalid_request", error: expect.stringMatching(/^Invalid arguments\. arguments\.owner: /) },
    });
  });

  it("zod 3.25's zod/v4 (another copy of zod 4): the same", async () => {
    const tool = echo("ZOD3V4", zod3v4.object({ owner: zod3v4.string() }));
    expect(tool.inputParameters).toMatchObject({ type: "object", required: ["owner"] });
    expect((await execute(tool, { owner: "octo" })).body.data).toEqual({ got: { owner: "octo" } });
    expect((await execute(tool, {})).status).toBe(400);
  });

  it("zod 3: a clear TypeError at definition, saying what to do, not a crash at the first call", () => {
    expect(() => echo("ZOD3", zod3.object({ owner: zod3.string() }))).toThrow(
      /Tool "ZOD3": its input is a zod 3 schema.*zod\/v4.*inputParameters/,
    );
  });

  it("zod 3 (or any Standard Schema) with inputParameters beside it validates through the Standard Schema interface", async () => {
    const tool = echo("ZOD3_JSON", zod3.object({ owner: zod3.string(), count: zod3.number().default(2) }), OWNER_SCHEMA);
    expect(tool.inputParameters).toBe(OWNER_SCHEMA);
    expect((await execute(tool, { owner: "octo" })).body.data).toEqual({ got: { owner: "octo", count: 2 } });
    expect((await execute(tool, { owner: 5 })).body).toEqual({
      code: "invalid_request",
      error: expect.stringMatching(/arguments\.owner: Expected string/),
    });
  });

  it("a JSON Schema alone validates the arguments", async () => {
    const tool = echo("JSON_ONLY", undefined, OWNER_SCHEMA);
    expect((await execute(tool, { owner: "octo", count: 3 })).body.data).toEqual({ got: { owner: "octo", count: 3 } });
    expect((await execute(tool, { count: 3 })).status).toBe(400);
  });

  it("refuses what cannot be a tool's input, saying what to do", () => {
    expect(() => echo("NOT_A_SCHEMA", { parse: () => ({}) } as unknown as StandardSchemaV1, OWNER_SCHEMA)).toThrow(
      /`input` must be a schema/,
    );
    const valibotLike: StandardSchemaV1 = { "~standard": { version: 1, vendor: "other", validate: (value) => ({ value }) } };
    expect(() => echo("NO_JSON_SCHEMA", valibotLike)).toThrow(/give `inputParameters`/);
    expect(() => echo("NOT_OBJECT", z.string())).toThrow(/input must be an object schema/);
    expect(() => echo("NOT_OBJECT_JSON", undefined, { type: "string" })).toThrow(/input must be an object schema/);
  });
});
