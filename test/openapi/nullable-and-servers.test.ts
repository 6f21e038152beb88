import { describe, expect, it } from "vitest";
import { importOpenApi } from "../../src/openapi/index.js";
import { defineJsonToolkit } from "../../src/toolkits/json.js";

/*
 * Two things GitHub's spec relies on that an OpenAPI 3.0 import must keep (test/openapi/github.test.ts
 * runs them end to end): `nullable: true` on schemas the 3.1 upgrade leaves alone, and operations
 * with their own `servers`.
 */

const document = {
  openapi: "3.0.3",
  info: { title: "Tracker", version: "1" },
  servers: [{ url: "https://api.tracker.test" }],
  paths: {
    "/issues/{id}": {
      patch: {
        operationId: "updateIssue",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
        requestBody: {
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: {
                  milestone: { oneOf: [{ type: "string" }, { type: "integer" }], nullable: true, description: "null removes it" },
                  state_reason: { type: "string", enum: ["completed", "not_planned"], nullable: true },
                  owner: { allOf: [{ $ref: "#/components/schemas/User" }], nullable: true },
                  title: { type: "string" },
                },
              },
            },
          },
        },
        responses: { "200": { description: "ok" } },
      },
    },
    "/issues/{id}/attachments": {
      post: {
        operationId: "attach",
        servers: [{ url: "https://{region}.uploads.tracker.test/v1", variables: { region: { default: "eu", enum: ["eu", "us"] } } }],
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
        requestBody: { content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } },
        responses: { "201": { description: "ok" } },
      },
    },
    "/exports": {
      servers: [{ url: "/exports-api" }],
      get: { operationId: "listExports", responses: { "200": { description: "ok" } } },
    },
  },
  components: { schemas: { User: { type: "object", properties: { login: { type: "string" } } } } },
};

describe("OpenAPI 3.0 nullable, kept through the import", () => {
  it("a nullable schema without type, a nullable enum and a nullable $ref all accept null, and nothing else changes", async () => {
    const { toolkit } = await importOpenApi(document);
    const update = defineJsonToolkit(toolkit).tools.find((t) => t.slug.endsWith("update_issue"))!;
    const validate = async (args: unknown) => (await update.input["~standard"].validate(args)).issues === undefined;
    expect(await validate({ id: 1, milestone: null, state_reason: null, owner: null })).toBe(true);
    expect(await validate({ id: 1, milestone: 3, state_reason: "completed", owner: { login: "octocat" } })).toBe(true);
    expect(await validate({ id: 1, title: null })).toBe(false);
    expect(await validate({ id: 1, state_reason: "later" })).toBe(false);
    expect(await validate({ id: 1, milestone: true })).toBe(false);
    const properties = update.inputParameters.properties as Record<string, Record<string, unknown>>;
    expect(properties.milestone).toEqual({
      description: "null removes it",
      anyOf: [{ oneOf: [{ type: "string" }, { type: "integer" }] }, { type: "null" }],
    });
  });
});

describe("an operation's own servers", () => {
  it("become the tool's baseUrl and one of the toolkit's; a relative one leaves the tool on the toolkit's, with a warning", async () => {
    const { toolkit, warnings } = await importOpenApi(document);
    expect(toolkit.baseUrl).toEqual(["https://api.tracker.test", "https://eu.uploads.tracker.test/v1"]);
    const bySlug = Object.fromEntries(toolkit.tools.map((t) => [t.slug.replace(/^tracker_/, ""), t]));
    expect(bySlug.attach!.baseUrl).toBe("https://eu.uploads.tracker.test/v1");
    expect(bySlug.update_issue!.baseUrl).toBeUndefined();
    expect(bySlug.list_exports!.baseUrl).toBeUndefined();
    expect(warnings).toContain(
      `GET /exports lists its own server "/exports-api", which is not an absolute http(s) URL with defaults; the tool uses the toolkit's base URL.`,
    );
    expect(defineJsonToolkit(toolkit).baseUrls).toEqual(["https://api.tracker.test", "https://eu.uploads.tracker.test/v1"]);
  });
});
