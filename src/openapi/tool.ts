/** One operation as a tool: its slug, name, description and annotations around its input. */
import { referenceCycle } from "../toolkits/json-schema-validator.js";
import { OpenApiImportError } from "./errors.js";
import { operationInput } from "./inputs.js";
import type { Document } from "./load.js";
import type { Operation } from "./operations.js";
import type { ComponentCopies, SchemaBudget } from "./schemas.js";
import { ToolSchemas } from "./schemas.js";
import { cut, snakeCase, trimText, unique } from "./text.js";
import type { ImportedTool } from "./types.js";

const NAME_MAX = 100;
const DESCRIPTION_MAX = 1024;

export interface ToolContext {
  document: Document;
  budget: SchemaBudget;
  /** The components copied so far, shared by the tools. */
  copies: ComponentCopies;
  toolkitSlug: string;
  /** Tool slugs given so far. */
  slugs: Set<string>;
  /** Where the toolkit's auth puts a credential (`header:x-api-key`), lowercase. */
  credentials: Set<string>;
  warn: (message: string) => void;
}

/** The tool of an operation, or undefined (with a warning) when it cannot be one. */
export function toolOf(
  { method, path: written, operation, parameters: declared }: Operation,
  context: ToolContext,
): ImportedTool | undefined {
  const where = `${method} ${written}`;
  const { path, fixed } = splitPath(written);
  const parameters = [...declared, ...fixed.filter((f) => !declared.some((d) => d.in === f.in && d.name === f.name))];
  if (path.split("/").some((segment) => segment === "." || segment === "..") || !path.startsWith("/")) {
    context.warn(`${where} is left out: its path must start with / and hold no . or .. segment.`);
    return undefined;
  }
  const schemas = new ToolSchemas(context.document, context.budget, context.warn, context.copies);
  const input = operationInput(path, parameters, operation.requestBody, schemas, {
    method,
    credentials: context.credentials,
    warn: context.warn,
  });
  if ("skip" in input) {
    context.warn(`${where} is left out: ${input.skip}`);
    return undefined;
  }
  refuseReferenceCycle(input.inputParameters, schemas, where);
  const id = typeof operation.operationId === "string" && operation.operationId.trim() ? operation.operationId : undefined;
  const base = snakeCase(id ?? `${method} ${path.replace(/[{}]/g, "")}`) || method.toLowerCase();
  const slug = unique(cut(`${context.toolkitSlug}_${base}`, 64), context.slugs);
  const summary = typeof operation.summary === "string" ? operation.summary.trim() : "";
  const details = typeof operation.description === "string" ? operation.description.trim() : "";
  const description = details.startsWith(summary) ? details : [summary, details].filter(Boolean).join("\n\n");
  return {
    slug,
    name: trimText(summary || id || where, NAME_MAX),
    description: trimText(description || where, DESCRIPTION_MAX),
    method,
    path,
    inputParameters: input.inputParameters,
    annotations: {
      readOnly: method === "GET" || method === "HEAD" || method === "OPTIONS",
      destructive: method === "DELETE",
      idempotent: method !== "POST" && method !== "PATCH",
      openWorld: true,
    },
    request: input.request,
  };
}

/**
 * A path with a query or a fragment of fixed values, as the APIs.guru collection writes AWS's
 * actions (`/?Action=List&Version=1`, `/#X-Amz-Target=Service.Action`): the path without them, and
 * each `name=value` as a required parameter whose only value is `value`. A name starting with
 * `X-` in the fragment is a header, anything else a query parameter.
 */
function splitPath(written: string): { path: string; fixed: Record<string, unknown>[] } {
  const at = written.search(/[?#]/);
  if (at < 0) return { path: written, fixed: [] };
  const fixed = written
    .slice(at + 1)
    .split(/[&#?]/)
    .filter((pair) => pair.includes("="))
    .map((pair) => {
      const [name = "", value = ""] = pair.split("=", 2).map(decode);
      const location = written[at] === "#" && /^x-/i.test(name) ? "header" : "query";
      return { in: location, name, required: true, schema: { type: "string", const: value, default: value } };
    })
    .filter((parameter) => parameter.name !== "");
  return { path: written.slice(0, at) || "/", fixed };
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Refuses the import when the tool's input holds references that lead back to themselves without
 * describing a property or an item (`A: {$ref: B}`, `B: {$ref: A}`): no argument could be checked
 * against them, and the toolkit's validator refuses them too.
 */
function refuseReferenceCycle(inputParameters: Record<string, unknown>, schemas: ToolSchemas, where: string): void {
  const cycle = referenceCycle(inputParameters);
  if (!cycle) return;
  const pointers = cycle.map((pointer) => schemas.documentPointer(pointer));
  throw new OpenApiImportError(
    "invalid_document",
    `The schemas of ${where} refer to each other in a cycle that describes no property or item (${pointers.join(" → ")}), so no value could be checked against them; point one of these references at a schema.`,
    pointers[0]!.replace(/^#/, ""),
  );
}
