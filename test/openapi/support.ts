/** Helpers of the OpenAPI import tests: import a document and load what came out as the server would. */
import Ajv2020 from "ajv/dist/2020.js";
import { expect } from "vitest";
import { type ImportOptions, importOpenApi, type OpenApiImport } from "../../src/openapi/index.js";
import { defineJsonToolkit } from "../../src/toolkits/json.js";

const ajv = new Ajv2020({ strict: false, logger: false });

/** Imports `document`, checks every schema compiles and the toolkit loads, and returns the import. */
export async function imported(document: string | object, options: ImportOptions = {}): Promise<OpenApiImport> {
  const result = await importOpenApi(document, options);
  for (const tool of result.toolkit.tools) expect(() => ajv.compile(tool.inputParameters), tool.slug).not.toThrow();
  const env = {
    [`${result.toolkit.slug.toUpperCase().replace(/-/g, "_")}_CLIENT_ID`]: "id",
    [`${result.toolkit.slug.toUpperCase().replace(/-/g, "_")}_CLIENT_SECRET`]: "secret",
  };
  defineJsonToolkit(result.toolkit, { env });
  return result;
}

/** The tool with this slug. */
export function tool(result: OpenApiImport, slug: string) {
  const found = result.toolkit.tools.find((t) => t.slug === slug);
  if (!found) throw new Error(`no tool ${slug} among ${result.toolkit.tools.map((t) => t.slug).join(", ")}`);
  return found;
}

/** The error an import rejects with. */
export async function importError(document: string | object, options: ImportOptions = {}) {
  try {
    await importOpenApi(document, options);
  } catch (error) {
    return error as Error & { code?: string; pointer?: string };
  }
  throw new Error("the import succeeded");
}

const ok = { "200": { description: "ok" } };

/** An OpenAPI 3.0 document with these paths (and components). */
export function v30(paths: object, extra: object = {}) {
  return { openapi: "3.0.3", info: { title: "Acme Shop", version: "1" }, servers: [{ url: "https://api.acme.test/v1" }], paths, ...extra };
}

/** An OpenAPI 3.1 document with these paths (and components). */
export function v31(paths: object, extra: object = {}) {
  return { openapi: "3.1.0", info: { title: "Acme Shop", version: "1" }, servers: [{ url: "https://api.acme.test/v1" }], paths, ...extra };
}

/** An operation answering 200. */
export function op(fields: object = {}) {
  return { responses: ok, ...fields };
}
