/**
 * Bad input: an invalid document names the JSON pointer of its first problem; a huge document,
 * a deep one, an expansion bomb (YAML aliases, shared objects, $refs) fails with an error that
 * names the limit, or costs what its text costs. The checks look at the errors and the sizes,
 * never at durations.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, OpenApiImportError } from "../../src/openapi/index.js";
import { importError, imported, op, v30 } from "./support.js";

describe("an invalid document", () => {
  it("is an error naming the JSON pointer of its most precise problem", async () => {
    const error = await importError(
      v30({ "/pets/{id}": { get: op({ parameters: [{ name: "id", in: "body", required: true, schema: { type: "string" } }] }) } }),
    );
    expect(error).toBeInstanceOf(OpenApiImportError);
    expect(error.code).toBe("invalid_document");
    expect(error.pointer).toBe("/paths/~1pets~1{id}/get/parameters/0/in");
    expect(error.message).toMatch(
      /^The document is not valid OpenAPI at \/paths\/~1pets~1\{id\}\/get\/parameters\/0\/in: .+ \(\d+ more problems\)\.$/,
    );
  });

  it("points at the $ref that leads nowhere", async () => {
    const error = await importError(
      v30({ "/a": { post: op({ requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Nope" } } } } }) } }),
    );
    expect(error.pointer).toBe("/paths/~1a/post/requestBody/content/application~1json/schema/$ref");
    expect(error.message).toContain("Can't resolve reference: #/components/schemas/Nope");
  });

  it("says what it is when it is not OpenAPI, not JSON or YAML, or a version it does not read", async () => {
    expect((await importError({ name: "tools-proxy" })).message).toBe(
      'This is not an OpenAPI document: it has no "openapi" (3.x) or "swagger" (2.0) field at the top level.',
    );
    expect((await importError("{ not json")).message).toMatch(/^The document is not valid JSON: /);
    expect((await importError("openapi: [unclosed")).message).toMatch(/^The document is neither JSON nor valid YAML: /);
    expect((await importError({ openapi: "4.0.0", info: { title: "x", version: "1" }, paths: {} })).message).toBe(
      "OpenAPI version 4.0.0 is not supported; use 2.0, 3.0 or 3.1.",
    );
  });

  it("asks for a base URL when the server URL is relative, and refuses a bad option", async () => {
    const error = await importError(v30({ "/me": { get: op() } }, { servers: [{ url: "/api" }] }));
    expect(error).toMatchObject({ code: "relative_server", pointer: "/servers/0/url" });
    expect(error.message).toContain("give the API's address with --base-url");
    expect((await importError(v30({ "/me": { get: op() } }), { slug: "Not A Slug" })).code).toBe("invalid_option");
    expect((await importError(v30({ "/me": { get: op() } }), { maxTools: 0 })).code).toBe("invalid_option");
  });

  it("is an error when no operation is left to import", async () => {
    const error = await importError(v30({ "/me": { get: op({ tags: ["me"] }) } }), { includeTags: ["other"] });
    expect(error.code).toBe("no_tools");
  });

  it("does not change a document given as an object", async () => {
    const document = v30({ "/me": { get: op({ operationId: "me" }) } }, { info: { title: "No version" } });
    const before = JSON.stringify(document);
    await imported(document);
    expect(JSON.stringify(document)).toBe(before);
  });
});

describe("limits", () => {
  it("refuses a document larger than maxDocumentBytes before parsing it", async () => {
    const huge = `{"openapi":"3.0.3","x":"${"a".repeat(DEFAULT_LIMITS.maxDocumentBytes)}"}`;
    const error = await importError(huge);
    expect(error).toMatchObject({ code: "too_large" });
    expect(error.message).toContain("limits.maxDocumentBytes");
  });

  it("refuses a document nested deeper than maxDepth", async () => {
    const deep = `{"openapi":"3.0.3","x":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const error = await importError(deep);
    expect(error).toMatchObject({ code: "too_large" });
    expect(error.message).toContain("limits.maxDepth");
  });

  it("refuses a billion laughs of shared objects (2^60 values as a tree) at maxDocumentNodes", async () => {
    let laugh: unknown[] = ["lol", "lol"];
    for (let i = 0; i < 60; i++) laugh = [laugh, laugh];
    const error = await importError({ openapi: "3.0.3", info: { title: "x", version: "1" }, paths: {}, "x-laughs": laugh });
    expect(error).toMatchObject({ code: "too_large" });
    expect(error.message).toContain("limits.maxDocumentNodes");
  });

  it("refuses a billion laughs of YAML aliases", async () => {
    const lines = ['openapi: "3.0.3"', "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
    for (let i = 1; i < 10; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(", ")}]`,
      );
    const error = await importError(lines.join("\n"));
    expect(error.code).toBe("invalid_document");
    expect(error.message).toMatch(/alias/i);
  });

  it("keeps a $ref bomb as it is written: 40 schemas that each use the next twice stay 40 $defs", async () => {
    const schemas: Record<string, unknown> = { s40: { type: "string" } };
    for (let i = 0; i < 40; i++)
      schemas[`s${i}`] = {
        type: "object",
        properties: { left: { $ref: `#/components/schemas/s${i + 1}` }, right: { $ref: `#/components/schemas/s${i + 1}` } },
      };
    const document = v30(
      {
        "/bomb": {
          post: op({
            operationId: "bomb",
            requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/s0" } } } },
          }),
        },
      },
      { components: { schemas } },
    );
    const { toolkit } = await imported(document);
    const input = toolkit.tools[0]!.inputParameters;
    expect(Object.keys(input.$defs as object)).toHaveLength(40);
    expect(JSON.stringify(input).length).toBeLessThan(10_000);
  });

  it("refuses a toolkit over maxSchemaNodes: one large schema used by many operations is copied into each", async () => {
    // The default limit (4,000,000) is reached the same way, by 1,000 operations using a schema of 4,000 properties.
    const limits = { maxSchemaNodes: 100_000 };
    const properties = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`p${i}`, { type: "string" }]));
    const paths = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [
        `/op${i}`,
        {
          post: op({
            requestBody: {
              content: { "application/json": { schema: { type: "object", properties: { big: { $ref: "#/components/schemas/Big" } } } } },
            },
          }),
        },
      ]),
    );
    const error = await importError(v30(paths, { components: { schemas: { Big: { type: "object", properties } } } }), { limits });
    expect(error).toMatchObject({ code: "too_large" });
    expect(error.message).toContain("more than 100000 schema values (limits.maxSchemaNodes)");
    expect(error.message).toContain("Import fewer operations");
  });
});

describe("what the parser gets wrong", () => {
  it("accepts a property named $ref (SCIM schemas have one)", async () => {
    const scim = { type: "object", properties: { $ref: { type: "string" }, value: { type: "string" } } };
    const { toolkit } = await imported(
      v30({ "/groups": { post: op({ operationId: "addMember", requestBody: { content: { "application/json": { schema: scim } } } }) } }),
    );
    expect(Object.keys(toolkit.tools[0]!.inputParameters.properties as object)).toEqual(["$ref", "value"]);
  });
});
