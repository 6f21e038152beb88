/**
 * One provider's generated tools, from its documents: imported with `importOpenApi`, placed under
 * the provider's base URLs, named and described for a model, with their input schemas trimmed.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type ImportedTool, importOpenApi } from "../../src/openapi/index.js";
import { rebase } from "./rebase.js";
import { trimSchema } from "./schemas.js";
import { humanise, slugPrefix, summarise, toolDescription, upperSnake } from "./text.js";

/** One document of the mapping table (sources.json). */
export interface DocumentSource {
  package: string;
  path: string;
  /** The URL the document's paths are relative to, as the catalog provider names it (replaces its servers). */
  server?: string;
  includePaths?: string[];
  excludePaths?: string[];
  includeTags?: string[];
  excludeTags?: string[];
}

/** A provider's entry of the mapping table. */
export interface ProviderSource {
  documents: DocumentSource[];
  /** operationIds of the default set. */
  default?: string[];
  /** operationIds a curated tool already does, with that tool's slug: left out. */
  covered?: Record<string, string>;
}

/** A tool as the generated module stores it (see src/catalog/generated/types.ts), and its summary flags. */
export interface BuiltTool {
  slug: string;
  name: string;
  description: string;
  method: ImportedTool["method"];
  path: string;
  base?: number;
  inputParameters: Record<string, unknown>;
  request: ImportedTool["request"];
  /** How the mapping names its operation: the operationId, else `METHOD /path` as the document writes it. */
  key?: string;
}

const require = createRequire(import.meta.url);
const DESCRIPTION_MAX = 240;
const NAME_MAX = 80;
const PROPERTY_MAX = 160;

/** The package's version and the document's, and the document itself. */
export function readDocument(source: DocumentSource): { document: Record<string, any>; version: string; info: string } {
  const packageJson = require(`${source.package}/package.json`) as { version: string };
  const file = require.resolve(`${source.package}/${source.path}`);
  const document = JSON.parse(readFileSync(file, "utf8"));
  return { document, version: packageJson.version, info: String(document.info?.version ?? "") };
}

/** `METHOD path` → operationId, for the document's operations. */
function operationIds(document: Record<string, any>): Map<string, string> {
  const ids = new Map<string, string>();
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths ?? {})) {
    for (const [method, operation] of Object.entries<any>(item ?? {})) {
      const key = `${method.toUpperCase()} ${path.replace(/[?#].*$/, "")}`;
      // The first operation of a path written twice (Box's `/files/{file_id}#get_shared_link`) names it.
      if (typeof operation?.operationId === "string" && !ids.has(key)) ids.set(key, operation.operationId);
    }
  }
  return ids;
}

/** The summary and description of an operation, found again by method and path. */
function operationText(document: Record<string, any>, method: string, path: string): { summary: string; details: string } {
  const item = document.paths?.[path] ?? {};
  const operation = item[method.toLowerCase()] ?? {};
  return { summary: String(operation.summary ?? "").trim(), details: String(operation.description ?? "").trim() };
}

export interface ImportReport {
  tools: BuiltTool[];
  /** The keys of every operation of the document (see `BuiltTool.key`). */
  keys: Set<string>;
  /** Operations left out, one line each (not under the provider's base URLs, covered by a curated tool). */
  left: string[];
  warnings: number;
}

/** The tools of one document for `provider` with base URLs `baseUrls`, and the keys of its operations. */
export async function importDocument(
  provider: string,
  source: DocumentSource,
  baseUrls: readonly string[],
  covered: Record<string, string>,
  credentials: ReadonlySet<string> = new Set(),
): Promise<ImportReport> {
  const { document } = readDocument(source);
  const fixedServer = source.server && !source.server.includes("{") ? source.server : undefined;
  const { toolkit, warnings } = await importOpenApi(document, {
    slug: "generated",
    ...(fixedServer ? { baseUrl: fixedServer } : {}),
    includePaths: source.includePaths,
    excludePaths: source.excludePaths,
    includeTags: source.includeTags,
    excludeTags: source.excludeTags,
  });
  const ids = operationIds(document);
  const left: string[] = [];
  const tools: BuiltTool[] = [];
  const documentServer = [toolkit.baseUrl].flat()[0]!;
  for (const tool of toolkit.tools) {
    const where = `${tool.method} ${tool.path}`;
    const operationId = ids.get(where);
    // The mapping names an operation by its operationId, or by method and path where it has none.
    const key = operationId ?? where;
    if (covered[key]) {
      left.push(`${where} (${key}): the curated ${covered[key]} does it`);
      continue;
    }
    const server = tool.baseUrl ?? source.server ?? documentServer;
    const placed = rebase(server, tool.path, baseUrls);
    if (!placed) {
      left.push(`${where}: ${server} is not under ${baseUrls.join(" or ")}`);
      continue;
    }
    const built = placeTool(withoutCredentials(tool, credentials), placed, provider, operationId, document);
    if (typeof built !== "string") built.key = key;
    if (typeof built === "string") left.push(`${where}: ${built}`);
    else tools.push(built);
  }
  const keys = new Set(toolkit.tools.map((tool) => ids.get(`${tool.method} ${tool.path}`) ?? `${tool.method} ${tool.path}`));
  return { tools, keys, left, warnings: warnings.length };
}

/** The tool at its new path, without the path parameters the base URL now fills, named and described. */
function placeTool(
  tool: ImportedTool,
  placed: { base: number; path: string },
  provider: string,
  operationId: string | undefined,
  document: Record<string, any>,
): BuiltTool | string {
  const kept = new Set([...placed.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!));
  const parameters = (tool.request.parameters ?? []).filter((parameter) => parameter.in !== "path" || kept.has(parameter.name));
  const missing = [...kept].filter((name) => !parameters.some((parameter) => parameter.in === "path" && parameter.name === name));
  if (missing.length > 0) return `{${missing.join("}, {")}} in its path has no parameter`;
  const dropped = (tool.request.parameters ?? []).filter((parameter) => !parameters.includes(parameter)).map((p) => p.arg ?? p.name);
  const input = trimSchema(withoutProperties(tool.inputParameters, dropped), PROPERTY_MAX) as Record<string, unknown>;
  const text = operationText(document, tool.method, tool.path);
  const lastWord = placed.path
    .split("/")
    .filter((segment) => segment && !segment.includes("{"))
    .at(-1);
  const summary = (text.summary || humanise(operationId ?? lastWord ?? `${tool.method} ${placed.path}`)).replace(/\.$/, "");
  return {
    slug: `${slugPrefix(provider)}_${upperSnake(operationId ?? `${tool.method} ${placed.path.replace(/[{}]/g, "")}`)}`,
    name: summarise(summary, NAME_MAX) || tool.name,
    description: toolDescription(summary, text.details, DESCRIPTION_MAX),
    method: tool.method,
    path: placed.path,
    ...(placed.base > 0 ? { base: placed.base } : {}),
    inputParameters: input,
    request: { ...tool.request, parameters },
  };
}

/**
 * The tool without the parameters where the provider's credential goes (`header:xi-api-key`,
 * `query:key`, lowercase): a document without security schemes (ElevenLabs', Postmark's) declares
 * its key as a header parameter, which tools-proxy sets from the connection, never an argument.
 */
function withoutCredentials(tool: ImportedTool, credentials: ReadonlySet<string>): ImportedTool {
  const parameters = tool.request.parameters ?? [];
  const kept = parameters.filter((parameter) => !credentials.has(`${parameter.in}:${parameter.name.toLowerCase()}`));
  if (kept.length === parameters.length) return tool;
  const dropped = parameters.filter((parameter) => !kept.includes(parameter)).map((parameter) => parameter.arg ?? parameter.name);
  return {
    ...tool,
    inputParameters: withoutProperties(tool.inputParameters, dropped) as ImportedTool["inputParameters"],
    request: { ...tool.request, parameters: kept },
  };
}

/** Where a provider's modes put the credential: `header:authorization`, `header:x-api-key`, `query:key`. */
export function credentialPlaces(modes: ReadonlyArray<Record<string, any>>): Set<string> {
  const places = new Set<string>();
  for (const mode of modes) {
    if (mode.type === "apiKey" && typeof mode.name === "string") places.add(`${mode.in ?? "header"}:${mode.name.toLowerCase()}`);
    else if (mode.type !== "none" && !mode.placements) places.add("header:authorization");
    for (const placement of mode.placements ?? []) places.add(`${placement.in}:${String(placement.name).toLowerCase()}`);
  }
  return places;
}

function withoutProperties(schema: Record<string, unknown>, names: string[]): Record<string, unknown> {
  if (names.length === 0) return schema;
  const properties = { ...(schema.properties as Record<string, unknown>) };
  for (const name of names) delete properties[name];
  const required = Array.isArray(schema.required) ? schema.required.filter((name) => !names.includes(name)) : undefined;
  return { ...schema, properties, ...(required ? { required } : {}) };
}
