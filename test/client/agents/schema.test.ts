/**
 * OpenAI's strict form of a tool's schema: every property required, objects closed, optional
 * fields nullable, keywords strict mode refuses moved to the description; null when no strict
 * form keeps the meaning. Each strict schema is checked by the `openai` package's own
 * `toStrictJsonSchema`, which throws on what strict mode refuses. And the nulls the model sends
 * for optional fields are dropped again before the call.
 */
import { toStrictJsonSchema } from "openai/lib/transform";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { dropAbsentNulls, toStrictSchema } from "../../../src/client/agents/index.js";

/** A tool's inputParameters as the server makes them from zod (input mode, draft 2020-12). */
const fromZod = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;

/** The strict form, checked by the openai package (which throws on anything strict mode refuses). */
function strict(schema: Record<string, unknown>) {
  const result = toStrictSchema(schema);
  expect(result).not.toBeNull();
  expect(() => toStrictJsonSchema(structuredClone(result!) as never)).not.toThrow();
  return result!;
}

describe("toStrictSchema", () => {
  it("requires every property, closes objects and makes optional ones nullable", () => {
    const schema = fromZod(
      z.object({
        city: z.string().min(1),
        days: z.number().int().max(7).default(3),
        units: z.enum(["c", "f"]).optional(),
        tags: z.array(z.string()).optional(),
        at: z.object({ lat: z.number(), lon: z.number().optional() }).optional(),
        note: z.string().nullable().optional(),
      }),
    );
    expect(strict(schema)).toEqual({
      type: "object",
      properties: {
        city: { type: "string", minLength: 1 },
        days: { default: 3, type: ["integer", "null"], maximum: 7, minimum: -9007199254740991 },
        units: { type: ["string", "null"], enum: ["c", "f", null] },
        tags: { type: ["array", "null"], items: { type: "string" } },
        at: {
          type: ["object", "null"],
          properties: { lat: { type: "number" }, lon: { type: ["number", "null"] } },
          required: ["lat", "lon"],
          additionalProperties: false,
        },
        note: { type: ["string", "null"] },
      },
      required: ["city", "days", "units", "tags", "at", "note"],
      additionalProperties: false,
    });
  });

  it("keeps unions and references, turning oneOf into anyOf", () => {
    const item = z.object({ id: z.string() }).meta({ id: "Item" });
    const schema = fromZod(
      z.object({ target: z.union([z.string(), z.object({ id: z.string() })]).optional(), first: item, rest: z.array(item).optional() }),
    );
    const result = strict(schema);
    expect(result.properties).toMatchObject({
      target: {
        anyOf: [
          { type: "string" },
          { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false },
          { type: "null" },
        ],
      },
      first: { $ref: "#/$defs/Item" },
      rest: { type: ["array", "null"], items: { $ref: "#/$defs/Item" } },
    });
    expect(result.$defs).toEqual({
      Item: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false },
    });
    const oneOf = strict({ type: "object", properties: { v: { oneOf: [{ type: "string" }, { type: "integer" }] } }, required: ["v"] });
    expect(oneOf.properties).toEqual({ v: { anyOf: [{ type: "string" }, { type: "integer" }] } });
  });

  it("moves keywords strict mode refuses into the description", () => {
    const result = strict({
      type: "object",
      properties: { ids: { type: "array", items: { type: "string" }, uniqueItems: true, description: "The ids." } },
      required: ["ids"],
    });
    expect(result.properties).toEqual({ ids: { type: "array", items: { type: "string" }, description: "The ids. (uniqueItems: true)" } });
  });

  it("is null where no strict schema has the same meaning", () => {
    expect(toStrictSchema(fromZod(z.object({ headers: z.record(z.string(), z.string()) })))).toBeNull();
    expect(toStrictSchema({ type: "object", properties: { any: {} } })).toBeNull();
    expect(toStrictSchema({ type: "object", properties: { free: { type: "object" } } })).toBeNull();
    expect(toStrictSchema({ type: "object", properties: {}, additionalProperties: true })).toBeNull();
    expect(toStrictSchema({ type: "object", properties: { a: { type: "string" } }, allOf: [{ required: ["a"] }] })).toBeNull();
    expect(toStrictSchema({ type: "object", properties: { a: { type: "array", prefixItems: [{ type: "string" }] } } })).toBeNull();
    expect(toStrictSchema({ anyOf: [{ type: "object", properties: {} }, { type: "string" }] })).toBeNull();
  });

  it("does not change the schema it is given", () => {
    const schema = fromZod(z.object({ a: z.string().optional() }));
    const copy = structuredClone(schema);
    toStrictSchema(schema);
    expect(schema).toEqual(copy);
  });
});

describe("dropAbsentNulls", () => {
  const schema = fromZod(
    z.object({
      a: z.string().optional(),
      b: z.string().nullable().optional(),
      c: z.string().nullable(),
      nested: z.object({ x: z.number().optional() }).optional(),
      list: z.array(z.object({ y: z.string().optional() })).optional(),
    }),
  );

  it("drops the nulls of optional fields that do not take null, at every depth", () => {
    expect(dropAbsentNulls(schema, { a: null, b: null, c: null, nested: { x: null }, list: [{ y: null }, { y: "k" }] })).toEqual({
      b: null,
      c: null,
      nested: {},
      list: [{}, { y: "k" }],
    });
    expect(dropAbsentNulls(schema, { a: "v", nested: null })).toEqual({ a: "v" });
  });

  it("follows references", () => {
    const item = z.object({ y: z.string().optional() }).meta({ id: "Item" });
    const withRef = fromZod(z.object({ first: item, more: z.array(item) }));
    expect(dropAbsentNulls(withRef, { first: { y: null }, more: [{ y: null }] })).toEqual({ first: {}, more: [{}] });
  });
});
