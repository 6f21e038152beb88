/**
 * `tools-proxy/openapi`: an OpenAPI 3.0, 3.1 or Swagger 2.0 document (JSON or YAML) as a JSON
 * toolkit, one tool per operation. The mapping is in docs/guide/openapi-import.md in the repository.
 */
import { OpenApiImportError } from "./errors.js";
import { DEFAULT_LIMITS, type ImportLimits } from "./limits.js";
import { loadDocument } from "./load.js";
import { keeps, type OperationFilter, operationsOf } from "./operations.js";
import { SchemaBudget, ToolSchemas } from "./schemas.js";
import { authOf, credentialPlaces, type Requirement, requirementsOf } from "./security.js";
import { baseUrlOf, operationBaseUrl } from "./servers.js";
import { cut, escapeEnvReferences, isRecord, trimText } from "./text.js";
import { toolOf } from "./tool.js";
import type { ImportedTool, ImportedToolkit } from "./types.js";

export { OpenApiImportError } from "./errors.js";
export { DEFAULT_LIMITS, type ImportLimits } from "./limits.js";
export type { OperationFilter } from "./operations.js";
export type * from "./types.js";

/** Options of `importOpenApi`. */
export interface ImportOptions extends OperationFilter {
  /** The toolkit's slug (lowercase letters, digits, `_`, `-`); it prefixes every tool's slug. Default: from the title. */
  slug?: string;
  /** The toolkit's name. Default: the document's title. */
  name?: string;
  /** The API's address: replaces the document's server URL, or resolves a relative one. */
  baseUrl?: string;
  /** At most this many tools, the first operations in the document's order. */
  maxTools?: number;
  /**
   * Toolkit slugs already taken (a collection's): without `slug`, a title whose slug is taken
   * gets the first free of `<slug>_2`, `<slug>_3`...
   */
  takenSlugs?: ReadonlySet<string>;
  /** Bounds on the cost of the import (see `ImportLimits`); each defaults to `DEFAULT_LIMITS`. */
  limits?: Partial<ImportLimits>;
}

/** What an import made: the toolkit, and what it left out or changed, one sentence each. */
export interface OpenApiImport {
  toolkit: ImportedToolkit;
  warnings: string[];
}

const TOOLKIT_SLUG = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * Turns an OpenAPI document into a JSON toolkit (the format `serve --toolkits` and
 * `defineJsonToolkit` load): one tool per operation, its input schema merging parameters and
 * body, `$ref`s kept as `$defs` references; servers, server variables and security schemes
 * become the base URL, connection inputs and auth. The document is validated first; an invalid
 * one, a limit reached, or a relative server URL without `baseUrl` rejects with an
 * `OpenApiImportError` (`pointer` names where an invalid document is wrong). What could not be
 * mapped (an operation, a scheme, a server variable) is left out with a warning.
 */
export async function importOpenApi(document: string | object, options: ImportOptions = {}): Promise<OpenApiImport> {
  assertOptions(options);
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const spec = await loadDocument(document, limits);
  const warnings: string[] = [];
  const warn = (message: string) => warnings.push(message);
  const info = isRecord(spec.info) ? spec.info : {};
  const title = typeof info.title === "string" && info.title.trim() ? info.title.trim() : "API";
  const slug = options.slug ?? freeSlug(toolkitSlug(title), options.takenSlugs);
  const server = baseUrlOf(spec, options.baseUrl, warn);

  const references = new ToolSchemas(spec, new SchemaBudget(limits), warn);
  const operations = operationsOf(spec.paths, (value) => references.target(value));
  const kept = operations.filter((operation) => keeps(options, operation));
  const deprecated = operations.filter((o) => o.operation.deprecated === true && !options.includeDeprecated).length;
  if (deprecated > 0)
    warn(`${deprecated} deprecated operation${deprecated > 1 ? "s are" : " is"} left out (includeDeprecated imports them).`);
  if (options.maxTools !== undefined && kept.length > options.maxTools) {
    warn(`${kept.length - options.maxTools} of ${kept.length} operations are left out by maxTools (${options.maxTools}).`);
    kept.length = options.maxTools;
  }

  const context = {
    document: spec,
    budget: new SchemaBudget(limits),
    copies: new Map(),
    toolkitSlug: slug,
    slugs: new Set<string>(),
    credentials: credentialPlaces(spec),
    warn,
  };
  const documentSecurity = requirementsOf(spec.security) ?? [];
  const tools: Array<{ tool: ImportedTool; security: Requirement[] }> = [];
  const baseUrls = [server.baseUrl];
  for (const operation of kept) {
    const tool = toolOf(operation, context);
    if (!tool) continue;
    const own = operation.servers && operationBaseUrl(operation.servers, `${operation.method} ${operation.path}`, warn);
    if (own && own !== server.baseUrl) {
      tool.baseUrl = own;
      if (!baseUrls.includes(own)) baseUrls.push(own);
    }
    tools.push({ tool, security: requirementsOf(operation.operation.security) ?? documentSecurity });
  }
  if (tools.length === 0) {
    throw new OpenApiImportError(
      "no_tools",
      operations.length === 0
        ? "The document describes no operation (its paths are empty), so there is no tool to make."
        : `None of the document's ${operations.length} operations became a tool: ${warnings.at(-1) ?? "the filters left none"}`,
    );
  }

  const { auth, oauthScheme } = authOf(spec, [...documentSecurity, ...tools.flatMap((t) => t.security)], slug, server.baseUrl, warn);
  for (const { tool, security } of tools) {
    const scopes = oauthScheme === undefined ? undefined : security.find((requirement) => oauthScheme in requirement)?.[oauthScheme];
    if (scopes && scopes.length > 0) tool.scopes = scopes;
  }
  const docsUrl = isRecord(spec.externalDocs) ? httpUrl(spec.externalDocs.url) : undefined;
  const icon = isRecord(info["x-logo"]) ? httpUrl(info["x-logo"].url) : undefined;
  const about = [info.summary, info.description].find((text): text is string => typeof text === "string" && text.trim() !== "");
  const toolkit: ImportedToolkit = escapeEnvReferences({
    slug,
    name: options.name ?? trimText(title, 100),
    description: trimText(about ?? title, 500),
    ...(icon ? { icon } : {}),
    ...(docsUrl ? { docsUrl } : {}),
    baseUrl: baseUrls.length > 1 ? baseUrls : server.baseUrl,
    auth: [],
    ...(server.inputs.length > 0 ? { inputs: server.inputs } : {}),
    tools: tools.map(({ tool }) => tool),
  });
  // The OAuth client's `${NAME}` references are the one place where the toolkit means them.
  toolkit.auth = auth;
  return { toolkit, warnings: [...new Set(warnings)] };
}

function assertOptions(options: ImportOptions): void {
  if (options.slug !== undefined && !TOOLKIT_SLUG.test(options.slug)) {
    throw new OpenApiImportError(
      "invalid_option",
      `slug "${options.slug}" is invalid: use lowercase letters, digits, "_" or "-" (at most 64).`,
    );
  }
  if (options.maxTools !== undefined && !(Number.isInteger(options.maxTools) && options.maxTools > 0)) {
    throw new OpenApiImportError("invalid_option", `maxTools must be a whole number of at least 1, not ${options.maxTools}.`);
  }
}

/** Filler words a slug does without: "GitHub's official OpenAPI spec" → `github`. */
const FILLER = new Set([
  "a",
  "an",
  "the",
  "of",
  "for",
  "and",
  "api",
  "apis",
  "openapi",
  "swagger",
  "rest",
  "official",
  "spec",
  "specification",
  "s",
]);

/**
 * A toolkit slug from a title: the first three words that say something of its main part (before
 * a `:`, `(`, `|` or a dash or `+` between spaces), lowercase, joined by `_`.
 */
function toolkitSlug(title: string): string {
  const words = title
    .split(/\s[-+–—]\s|[:(|]/)[0]!
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word && !FILLER.has(word) && !/^v\d+$/.test(word));
  return cut(words.slice(0, 3).join("_"), 24) || "api";
}

function freeSlug(slug: string, taken: ReadonlySet<string> | undefined): string {
  let candidate = slug;
  for (let n = 2; taken?.has(candidate); n++) candidate = `${cut(slug, 24 - String(n).length - 1)}_${n}`;
  return candidate;
}

function httpUrl(value: unknown): string | undefined {
  return typeof value === "string" && /^https?:\/\/[^\s]+$/.test(value) && URL.canParse(value) ? value : undefined;
}
