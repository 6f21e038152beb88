/**
 * Issue 29, items 6 and 7: what the arguments validator made from a JSON Schema keeps of the
 * patterns' meaning once they run on RE2, and what it refuses when a toolkit is defined (a pattern
 * RE2 cannot express, a cycle of references), naming the toolkit, the tool and the JSON pointer.
 */
import { describe, expect, it } from "vitest";
import { defineTool, defineToolkit } from "../../src/index.js";
import { importOpenApi, OpenApiImportError } from "../../src/openapi/index.js";
import { defineJsonToolkit } from "../../src/toolkits/json.js";
import { zodValidatorOf } from "../../src/toolkits/json-schema-validator.js";

const valid = (schema: Record<string, unknown>, value: unknown) => zodValidatorOf(schema).safeParse(value).success;

function jsonToolkit(inputParameters: Record<string, unknown>) {
  return defineJsonToolkit({
    slug: "acme",
    name: "Acme",
    description: "Acme.",
    icon: "https://acme.test/icon.svg",
    baseUrl: "https://api.acme.test",
    auth: { type: "none" },
    tools: [{ slug: "ACME_PUT", name: "Put", description: "Puts.", method: "POST", path: "/items", inputParameters }],
  });
}

function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected an error");
}

describe("patterns on RE2 mean what they meant", () => {
  it("pattern: unanchored, anchored, in $defs, on a nullable type, in an anyOf", () => {
    expect(valid({ type: "object", properties: { s: { type: "string", pattern: "b+" } } }, { s: "abbc" })).toBe(true);
    expect(valid({ type: "object", properties: { s: { type: "string", pattern: "^b+$" } } }, { s: "abbc" })).toBe(false);
    const defs = { type: "object", properties: { s: { $ref: "#/$defs/Id" } }, $defs: { Id: { type: "string", pattern: "^[0-9]{3}$" } } };
    expect(valid(defs, { s: "123" })).toBe(true);
    expect(valid(defs, { s: "12a" })).toBe(false);
    const nullable = { type: "object", properties: { s: { type: ["string", "null"], pattern: "^x" } } };
    expect(valid(nullable, { s: null })).toBe(true);
    expect(valid(nullable, { s: "xy" })).toBe(true);
    expect(valid(nullable, { s: "yx" })).toBe(false);
    const anyOf = {
      type: "object",
      properties: {
        s: {
          anyOf: [
            { type: "string", pattern: "^a" },
            { type: "string", pattern: "^b" },
          ],
        },
      },
    };
    expect(valid(anyOf, { s: "bz" })).toBe(true);
    expect(valid(anyOf, { s: "cz" })).toBe(false);
  });

  it("JavaScript syntax: \\u escapes, named groups, \\d and classes", () => {
    expect(valid({ type: "string", pattern: "^caf\\u00e9$" }, "café")).toBe(true);
    expect(valid({ type: "string", pattern: "^(?<y>\\d{4})-\\d{2}$" }, "2024-05")).toBe(true);
    expect(valid({ type: "string", pattern: "^(?<y>\\d{4})-\\d{2}$" }, "2024-5")).toBe(false);
  });

  it("patternProperties, alone and beside additionalProperties: false", () => {
    const open = { type: "object", patternProperties: { "^x-": { type: "number" } } };
    expect(valid(open, { "x-a": 1, other: "kept" })).toBe(true);
    expect(valid(open, { "x-a": "one" })).toBe(false);
    const closed = { ...open, properties: { name: { type: "string" } }, additionalProperties: false };
    expect(valid(closed, { name: "n", "x-a": 1 })).toBe(true);
    expect(valid(closed, { name: "n", other: 1 })).toBe(false);
    expect(valid(closed, { "x-a": "one" })).toBe(false);
  });

  it("propertyNames and contains", () => {
    const names = { type: "object", propertyNames: { pattern: "^[a-z]+$" } };
    expect(valid(names, { abc: 1 })).toBe(true);
    expect(valid(names, { ABC: 1 })).toBe(false);
    const contains = { type: "array", contains: { type: "string", pattern: "^id-" } };
    expect(valid(contains, ["x", "id-1"])).toBe(true);
    expect(valid(contains, ["x", "y"])).toBe(false);
  });

  it("a refused value's message shows the pattern as written", () => {
    const result = zodValidatorOf({ type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } }).safeParse({ s: "b" });
    expect(result.error?.issues[0]?.message).toBe("Invalid string: must match pattern /^(a+)+$/");
  });
});

describe("what a definition cannot have", () => {
  it.each([
    ["(?=a)b", "a lookahead"],
    ["(?<!a)b", "a lookbehind"],
    ["(a)\\1", "a backreference \\(\\\\1 to \\\\9\\)"],
    ["(?<n>a)\\k<n>", "a backreference \\(\\\\k<name>\\)"],
  ])("a JSON toolkit whose pattern %s uses %s is refused, naming the toolkit, the tool and the pointer", (pattern, what) => {
    const message = thrown(() => jsonToolkit({ type: "object", properties: { id: { type: "string", pattern } } }));
    expect(message).toMatch(
      new RegExp(
        `^Invalid toolkit "acme": tools\\[0\\] \\("ACME_PUT"\\)\\.inputParameters/properties/id/pattern: the pattern .* uses ${what}`,
      ),
    );
  });

  it("a patternProperties key and a pattern in $defs are named by their pointers", () => {
    expect(thrown(() => jsonToolkit({ type: "object", patternProperties: { "^(?=x)": {} } }))).toMatch(
      /inputParameters\/patternProperties\/\^\(\?=x\): the pattern/,
    );
    expect(thrown(() => jsonToolkit({ type: "object", $defs: { A: { type: "string", pattern: "a{2000}" } } }))).toMatch(
      /inputParameters\/\$defs\/A\/pattern: the pattern "a\{2000\}" cannot be compiled by RE2/,
    );
  });

  it("a code toolkit's inputParameters, a connection input and a value rule are checked the same way", () => {
    const tool = (pattern: string) =>
      defineTool({
        slug: "X_TOOL",
        name: "X",
        description: "X.",
        inputParameters: { type: "object", properties: { s: { type: "string", pattern } } },
        run: () => null,
      });
    expect(thrown(() => tool("(?=a)"))).toMatch(
      /^Tool "X_TOOL": inputParameters\/properties\/s\/pattern: the pattern "\(\?=a\)" uses a lookahead/,
    );
    const base = { name: "X", description: "X.", baseUrl: "https://api.x.test", tools: [] };
    expect(
      thrown(() =>
        defineToolkit({ ...base, slug: "x", auth: { type: "bearer" }, inputs: [{ name: "shop", label: "Shop", pattern: "(a)\\1" }] }),
      ),
    ).toMatch(/^Toolkit "x": input "shop": the pattern "\(a\)\\\\1" uses a backreference/);
    const identify = { url: "/me", config: { region: { path: "region", pattern: "(?=eu)(.*)" } } };
    expect(thrown(() => defineToolkit({ ...base, slug: "y", auth: { type: "bearer", identify } }))).toMatch(
      /^Toolkit "y": auth "bearer" identify\[0\]\.config\.region: the pattern "\(\?=eu\)\(\.\*\)" uses a lookahead/,
    );
  });

  it("a cycle of references is refused with its pointers; a recursive schema that descends is not", () => {
    const cycle = {
      type: "object",
      properties: { a: { $ref: "#/$defs/A" } },
      $defs: { A: { $ref: "#/$defs/B" }, B: { $ref: "#/$defs/A" } },
    };
    expect(thrown(() => jsonToolkit(cycle))).toMatch(
      /tools\[0\] \("ACME_PUT"\)\.inputParameters\/\$defs\/[AB]\/\$ref: the keywords \/\$defs\/[AB]\/\$ref → \/\$defs\/[AB]\/\$ref lead back/,
    );
    const viaAllOf = { type: "object", properties: { a: { $ref: "#/$defs/A" } }, $defs: { A: { allOf: [{ $ref: "#/$defs/A" }] } } };
    expect(thrown(() => jsonToolkit(viaAllOf))).toMatch(/\$ref cycle/);
    const tree = {
      type: "object",
      properties: { t: { $ref: "#/$defs/T" } },
      $defs: { T: { type: "object", properties: { c: { $ref: "#/$defs/T" } } } },
    };
    expect(jsonToolkit(tree).tools).toHaveLength(1);
  });
});

describe("the OpenAPI import", () => {
  const document = (schemas: Record<string, unknown>, body: unknown) => ({
    openapi: "3.1.0",
    info: { title: "X", version: "1" },
    servers: [{ url: "https://api.x.test" }],
    paths: {
      "/a": {
        post: {
          operationId: "make",
          requestBody: { content: { "application/json": { schema: body } } },
          responses: { "200": { description: "ok" } },
        },
      },
    },
    components: { schemas },
  });
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

  it("leaves out a pattern RE2 cannot express, with a warning, and keeps the others", async () => {
    const result = await importOpenApi(
      document(
        { S: { type: "string", pattern: "(?=x)y" } },
        { type: "object", properties: { s: ref("S"), t: { type: "string", pattern: "^(a+)+$" } } },
      ),
    );
    expect(result.warnings).toContainEqual(
      expect.stringMatching(/^the pattern "\(\?=x\)y" uses a lookahead.*; it is left out, so arguments are not checked against it\.$/),
    );
    expect(result.toolkit.tools[0]!.inputParameters).toMatchObject({
      properties: { t: { pattern: "^(a+)+$" } },
      $defs: { S: { type: "string" } },
    });
    expect(defineJsonToolkit(result.toolkit).tools).toHaveLength(1);
  });

  it("refuses a cycle of references that describes no property or item, naming its pointer in the document", async () => {
    const error = await importOpenApi(
      document({ A: { allOf: [ref("B")] }, B: { allOf: [ref("A")] } }, { type: "object", properties: { a: ref("A") } }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenApiImportError);
    expect(error).toMatchObject({
      code: "invalid_document",
      pointer: expect.stringMatching(/^\/components\/schemas\/[AB]\/allOf\/0\/\$ref$/),
    });
    expect((error as Error).message).toMatch(
      /^The schemas of POST \/a refer to each other in a cycle that describes no property or item \(#\/components/,
    );
  });

  it("a pure $ref cycle (A → B → A) is refused with the pointer of a reference", async () => {
    const error = await importOpenApi(document({ A: ref("B"), B: ref("A") }, { type: "object", properties: { a: ref("A") } })).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "invalid_document", pointer: expect.stringMatching(/\$ref$/) });
  });
});
