/** One operation as a tool: its slug, name, description and annotations around its input. */
import { operationInput } from "./inputs.js";
import type { Document } from "./load.js";
import type { Operation } from "./operations.js";
import type { SchemaBudget } from "./schemas.js";
import { ToolSchemas } from "./schemas.js";
import { cut, snakeCase, trimText, unique } from "./text.js";
import type { ImportedTool } from "./types.js";

const NAME_MAX = 100;
const DESCRIPTION_MAX = 1024;

export interface ToolContext {
  document: Document;
  budget: SchemaBudget;
  toolkitSlug: string;
  /** Tool slugs given so far. */
  slugs: Set<string>;
  warn: (message: string) => void;
}

/** The tool of an operation, or undefined (with a warning) when it cannot be one. */
export function toolOf({ method, path, operation, parameters }: Operation, context: ToolContext): ImportedTool | undefined {
  const where = `${method} ${path}`;
  if (/[?#]/.test(path) || path.split("/").some((segment) => segment === "." || segment === "..") || !path.startsWith("/")) {
    context.warn(`${where} is left out: its path must start with / and hold no query, fragment, . or .. segment.`);
    return undefined;
  }
  const schemas = new ToolSchemas(context.document, context.budget, context.warn);
  const input = operationInput(path, parameters, operation.requestBody, schemas);
  if ("skip" in input) {
    context.warn(`${where} is left out: ${input.skip}`);
    return undefined;
  }
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
    path: input.path,
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
