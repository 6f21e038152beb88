import { describe, expect, it } from "vitest";
import { z } from "zod";
import { apiKey, none } from "../../src/credentials/auth-schemes.js";
import { toolkitRegistryConformance } from "../../src/testing/toolkit-registry.js";
import { defineTool, defineToolkit, STAGED_FILE_FORMAT, stagedFile, type ToolkitDefinition } from "../../src/toolkits/define.js";
import { createToolkitRegistry } from "../../src/toolkits/registry.js";

const listNotes = defineTool({
  slug: "NOTES_LIST",
  name: "List notes",
  description: "Lists notes, newest first.",
  input: z.object({ limit: z.number().int().min(1).max(100).optional() }),
  annotations: { readOnly: true },
  run: async (args, ctx) => (await ctx.fetch(`/notes?limit=${args.limit ?? 20}`)).json(),
});

const createNote = defineTool({
  slug: "NOTES_CREATE",
  name: "Create note",
  description: "Creates a note.",
  input: z.object({ title: z.string().describe("Title of the note"), body: z.string().default(""), attachment: stagedFile().optional() }),
  run: () => ({ ok: true }),
});

const notes = defineToolkit({
  slug: "notes",
  name: "Notes",
  description: "A notes API.",
  baseUrl: "https://api.notes.test/v1",
  auth: apiKey({ in: "header", name: "x-api-key" }),
  tools: [listNotes, createNote],
});

const weather = defineToolkit({
  slug: "weather",
  name: "Weather",
  description: "Forecasts.",
  baseUrl: ["https://{region}.weather.test", "https://static.weather.test/maps"],
  auth: none(),
  tools: [
    defineTool({
      slug: "weather.forecast",
      name: "Forecast",
      description: "Forecast for a city.",
      input: z.object({ city: z.string() }),
      run: () => ({}),
    }),
  ],
});

const tool = (slug: string) => ({ slug, name: slug, description: slug, input: z.object({}), run: () => null });
const toolkit = (overrides: Partial<ToolkitDefinition>): ToolkitDefinition => ({
  slug: "kit",
  name: "Kit",
  description: "A toolkit.",
  auth: none(),
  tools: [],
  ...overrides,
});

toolkitRegistryConformance("createToolkitRegistry", () => createToolkitRegistry([notes, weather]));

describe("createToolkitRegistry", () => {
  it("throws when two toolkits share a slug, naming it", () => {
    expect(() => createToolkitRegistry([notes, { ...weather, slug: "notes", tools: [] }])).toThrow(/"notes"/);
  });

  it("throws when two toolkits define the same tool slug, naming it and both toolkits", () => {
    const copy = toolkit({ slug: "copy", tools: [tool("NOTES_LIST")] });
    expect(() => createToolkitRegistry([notes, copy])).toThrow(/"NOTES_LIST".*"notes".*"copy"/);
  });

  it("accepts plain definitions, validating them like defineToolkit", () => {
    const registry = createToolkitRegistry([toolkit({ tools: [tool("KIT_PING")] })]);
    expect(registry.getTool("KIT_PING")).toMatchObject({ toolkit: { slug: "kit", icon: "", baseUrls: [] } });
    expect(() => createToolkitRegistry([toolkit({ slug: "Bad Slug" })])).toThrow(/"Bad Slug"/);
  });

  it("answers list() with a copy: changing it does not reorder the registry", () => {
    const registry = createToolkitRegistry([notes, weather]);
    (registry.list() as unknown[]).reverse();
    expect((registry.list() as Array<{ slug: string }>).map((t) => t.slug)).toEqual(["notes", "weather"]);
  });
});

describe("defineTool", () => {
  it.each(["", "-LEADING_DASH", "has space", "a/b", "A".repeat(129), "ÜMLAUT"])("rejects the slug %j", (slug) => {
    expect(() => defineTool(tool(slug))).toThrow(/Tool slug/);
  });

  it.each(["GITHUB_CREATE_ISSUE", "weather.forecast", "a-b_c.d", "A".repeat(128)])("accepts the slug %j", (slug) => {
    expect(defineTool(tool(slug)).slug).toBe(slug);
  });

  it.each([
    ["a string", z.string()],
    ["an array", z.array(z.object({ a: z.string() }))],
    ["a union of objects", z.union([z.object({ a: z.string() }), z.object({ b: z.string() })])],
  ])("rejects %s as input schema: the input must be an object", (_, input) => {
    expect(() => defineTool({ ...tool("T"), input })).toThrow(/object schema/);
  });

  it("generates inputParameters as JSON Schema draft 2020-12 from the zod schema", () => {
    expect(createNote.inputParameters).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        title: { type: "string", description: "Title of the note" },
        body: { type: "string", default: "" },
        attachment: { type: "string" },
      },
    });
    // Input view: fields with a default or marked optional are not required of the caller.
    expect(createNote.inputParameters.required).toEqual(["title"]);
    expect(listNotes.inputParameters).toMatchObject({ properties: { limit: { type: "integer", minimum: 1, maximum: 100 } } });
  });

  it("marks a stagedFile() argument in the JSON Schema", () => {
    const properties = createNote.inputParameters.properties as Record<string, Record<string, unknown>>;
    expect(properties.attachment).toMatchObject({ type: "string", format: STAGED_FILE_FORMAT, "x-tools-proxy-file": true });
    expect(STAGED_FILE_FORMAT).toBe("tools-proxy-staging-key");
  });

  it("stagedFile() accepts staging keys only", () => {
    expect(stagedFile().safeParse(`stg_${"a".repeat(22)}`).success).toBe(true);
    expect(stagedFile().safeParse("../../etc/passwd").success).toBe(false);
    expect(stagedFile().safeParse("stg_short").success).toBe(false);
  });

  it("returns an already defined tool unchanged", () => {
    expect(defineTool(listNotes)).toBe(listNotes);
  });
});

describe("defineToolkit", () => {
  it.each(["", "GitHub", "-kit", "has space", "kit.v2", "a".repeat(65)])("rejects the slug %j", (slug) => {
    expect(() => defineToolkit(toolkit({ slug }))).toThrow(/Toolkit slug/);
  });

  it.each(["github", "a", "my_kit-2", "a".repeat(64)])("accepts the slug %j", (slug) => {
    expect(defineToolkit(toolkit({ slug })).slug).toBe(slug);
  });

  it.each([
    ["credentials", "https://user:secret@api.kit.test", /credentials/],
    ["a username", "https://user@api.kit.test", /credentials/],
    ["a query", "https://api.kit.test/v1?key=abc", /query/],
    ["a fragment", "https://api.kit.test/v1#top", /fragment/],
    ["a non-HTTP scheme", "ftp://files.kit.test", /http or https/],
    ["a relative path", "/v1", /absolute URL/],
  ])("rejects a base URL with %s", (_, baseUrl, message) => {
    expect(() => defineToolkit(toolkit({ baseUrl }))).toThrow(message);
    expect(() => defineToolkit(toolkit({ baseUrl: ["https://ok.kit.test", baseUrl] }))).toThrow(/Toolkit "kit"/);
  });

  it("accepts placeholders in base URLs and normalises them to a list", () => {
    expect(weather.baseUrls).toEqual(["https://{region}.weather.test", "https://static.weather.test/maps"]);
    expect(notes.baseUrls).toEqual(["https://api.notes.test/v1"]);
  });

  it("rejects a tool defined twice in one toolkit, and invalid tools", () => {
    expect(() => defineToolkit(toolkit({ tools: [tool("PING"), tool("PING")] }))).toThrow(/"PING" twice/);
    expect(() => defineToolkit(toolkit({ tools: [tool("bad slug")] }))).toThrow(/"bad slug"/);
  });
});
