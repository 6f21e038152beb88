/**
 * One operation's input schema and request: path, query, header and cookie parameters and the
 * request body, merged into one object schema.
 *
 * Argument names: a parameter keeps its own name (characters agents reject become `_`); when
 * two parts of the request share a name, each one that is not a path parameter takes its place
 * as a prefix (`query_id`, `header_id`, `body_id`), and the path parameter keeps the bare name.
 * A JSON, form or multipart body that is a plain object is flattened: its properties become
 * arguments (the request's `body.fields`); any other body is one argument, `body`.
 */
import { STAGED_FILE_FORMAT } from "../toolkits/define.js";
import { isBinary, type Schema, type ToolSchemas } from "./schemas.js";
import { argumentName, isRecord, trimText, unique } from "./text.js";
import type { RequestParameter, ToolRequest } from "./types.js";

const LOCATIONS = ["path", "query", "header", "cookie"] as const;
type Location = (typeof LOCATIONS)[number];

/** Header parameters OpenAPI says to ignore: the request's own headers. */
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);

/** An HTTP header name (a token): other names cannot be sent. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The serialisation styles OpenAPI defines for each location; another is left to the default. */
const STYLES: Record<Location, string[]> = {
  path: ["simple", "label", "matrix"],
  query: ["form", "spaceDelimited", "pipeDelimited", "deepObject"],
  header: ["simple"],
  cookie: ["form"],
};

/** Media types a body may be sent as, best first; `+json` types count as JSON. */
const BODY_TYPES = [
  "application/json",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "text/plain",
  "application/octet-stream",
];

const DESCRIPTION_MAX = 1000;

export interface OperationInput {
  path: string;
  inputParameters: Record<string, unknown> & { type: "object" };
  request: ToolRequest;
}

interface Part {
  /** Where it goes: a parameter's location, a body field, or the whole body. */
  kind: Location | "field" | "body";
  /** The name on the wire (the body property for a field). */
  name: string;
  raw: string;
  schema: Schema;
  required: boolean;
  parameter?: Record<string, unknown>;
}

/** What the input of an operation depends on besides its parameters and body. */
export interface InputContext {
  method: string;
  /** `header:x-api-key`, `query:key`: where the toolkit's auth puts its credential (such parameters are the connection's). */
  credentials: Set<string>;
  warn: (message: string) => void;
}

/** The input of an operation, or the reason it cannot be a tool. */
export function operationInput(
  pathTemplate: string,
  parameters: Record<string, unknown>[],
  requestBody: unknown,
  schemas: ToolSchemas,
  context: InputContext,
): OperationInput | { skip: string } {
  const where = `${context.method} ${pathTemplate}`;
  const placeholders = [...pathTemplate.matchAll(/\{([^{}/]*)\}/g)].map((match) => match[1]!);
  const parts: Part[] = [];
  const seen = new Set<string>();
  for (const parameter of parameters) {
    const location = parameter.in as Location;
    const name = parameter.name as string;
    const key = `${location}:${location === "header" ? name.toLowerCase() : name}`;
    if (seen.has(key) || context.credentials.has(key.toLowerCase())) continue;
    if (location === "header" && (IGNORED_HEADERS.has(name.toLowerCase()) || !HEADER_NAME.test(name))) continue;
    if (location === "path" && !placeholders.includes(name)) {
      context.warn(`${where}: the path parameter "${name}" is not in the path; it is left out.`);
      continue;
    }
    seen.add(key);
    parts.push({
      kind: location,
      name,
      raw: argumentName(name),
      schema: parameterSchema(parameter, schemas),
      required: parameter.required === true,
      parameter,
    });
  }
  for (const name of placeholders) {
    if (!parts.some((part) => part.kind === "path" && part.name === name)) {
      parts.push({ kind: "path", name, raw: argumentName(name), schema: { type: "string" }, required: true });
    }
  }
  if (requestBody !== undefined && (context.method === "GET" || context.method === "HEAD")) {
    context.warn(`${where}: a ${context.method} request cannot carry a body; its request body is left out.`);
    requestBody = undefined;
  }
  const body = bodyOf(requestBody, schemas);
  if ("skip" in body) return body;
  parts.push(...body.parts);

  const counts = new Map<string, number>();
  for (const part of parts) counts.set(part.raw, (counts.get(part.raw) ?? 0) + 1);
  const taken = new Set<string>();
  const args = new Map<Part, string>();
  for (const part of [...parts].sort((a, b) => Number(b.kind === "path") - Number(a.kind === "path"))) {
    const prefix = part.kind === "field" ? "body" : part.kind;
    const clash = counts.get(part.raw)! > 1 && part.kind !== "path" && part.raw !== prefix;
    args.set(part, unique(clash ? argumentName(`${prefix}_${part.raw}`) : part.raw, taken));
  }

  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  const request: ToolRequest = { parameters: [] };
  for (const part of parts) {
    const arg = args.get(part)!;
    properties[arg] = part.schema;
    if (part.required || part.kind === "path") required.push(arg);
    if (part.kind === "field") request.body = { ...body.request!, fields: { ...request.body?.fields, [part.name]: arg } };
    else if (part.kind === "body") request.body = { ...body.request!, arg };
    else request.parameters.push(wireParameter(part, arg));
  }
  if (body.request && !request.body) request.body = { ...body.request, fields: {} };
  const defs = schemas.definitions();
  return {
    path: pathTemplate,
    inputParameters: {
      type: "object",
      properties,
      ...(required.length > 0 ? { required } : {}),
      ...(defs ? { $defs: defs } : {}),
    },
    request,
  };
}

function wireParameter(part: Part, arg: string): RequestParameter {
  const parameter = part.parameter ?? {};
  const location = part.kind as Location;
  const style = typeof parameter.style === "string" && STYLES[location].includes(parameter.style) ? parameter.style : undefined;
  return {
    in: location,
    name: part.name,
    ...(arg !== part.name ? { arg } : {}),
    ...(style ? { style } : {}),
    ...(typeof parameter.explode === "boolean" ? { explode: parameter.explode } : {}),
    ...(parameter.allowReserved === true && part.kind === "query" ? { allowReserved: true } : {}),
  };
}

function parameterSchema(parameter: Record<string, unknown>, schemas: ToolSchemas): Schema {
  const content = isRecord(parameter.content) ? Object.values(parameter.content).find(isRecord) : undefined;
  const source = parameter.schema ?? content?.schema ?? { type: "string" };
  return described(schemas.copy(source), parameter.description, parameter.deprecated === true);
}

/** A schema with the description of what holds it (a parameter, a body). */
function described(schema: Schema, description: unknown, deprecated = false): Schema {
  const base = typeof schema === "boolean" ? (schema ? {} : { not: {} }) : schema;
  return {
    ...base,
    ...(typeof description === "string" && description.trim() ? { description: trimText(description, DESCRIPTION_MAX) } : {}),
    ...(deprecated ? { deprecated: true } : {}),
  };
}

interface Body {
  parts: Part[];
  request?: { contentType: string };
}

function bodyOf(requestBody: unknown, schemas: ToolSchemas): Body | { skip: string } {
  const body = schemas.target(requestBody);
  if (!isRecord(body) || !isRecord(body.content)) return { parts: [] };
  const media = Object.entries(body.content)
    .map(([type, value]) => ({ type, base: baseType(type), value: isRecord(value) ? value : {} }))
    .filter((entry) => entry.base !== undefined)
    .sort((a, b) => BODY_TYPES.indexOf(a.base!) - BODY_TYPES.indexOf(b.base!))[0];
  if (media === undefined) {
    return { skip: `its request body is ${Object.keys(body.content).join(", ") || "of no media type"}, which the toolkit cannot send.` };
  }
  const required = body.required === true;
  // Swagger 2.0's form parameters and many 3.0 documents list required fields without `required: true` on the body.
  const fieldsRequired = body.required !== false;
  const contentType = media.base === "application/json" && media.type.includes("+json") ? media.type.split(";")[0]!.trim() : media.base!;
  const request = { contentType };
  if (media.base === "application/octet-stream") {
    return { parts: [{ kind: "body", name: "body", raw: "body", schema: stagedFile(body.description), required }], request };
  }
  const source = media.value.schema ?? (media.base === "text/plain" ? { type: "string" } : {});
  const target = schemas.target(source);
  const multipart = media.base === "multipart/form-data";
  if (media.base !== "text/plain" && isPlainObject(target)) {
    const names = new Set(Array.isArray(target.required) ? target.required : []);
    const parts = Object.entries(target.properties as Record<string, unknown>)
      .filter(([, schema]) => !(isRecord(schema) && schema.readOnly === true))
      .map(
        ([name, schema]): Part => ({
          kind: "field",
          name,
          raw: argumentName(name),
          schema: multipart ? filePart(schema, schemas) : schemas.copy(schema),
          required: fieldsRequired && names.has(name),
        }),
      );
    return { parts, request };
  }
  return {
    parts: [{ kind: "body", name: "body", raw: "body", schema: described(schemas.copy(source), body.description), required }],
    request,
  };
}

/** A multipart part: a binary one (or a list of them) becomes a staged file. */
function filePart(schema: unknown, schemas: ToolSchemas): Schema {
  const target = schemas.target(schema);
  const description = isRecord(target) ? target.description : undefined;
  if (isBinary(target)) return stagedFile(description);
  if (isRecord(target) && target.type === "array" && isBinary(schemas.target(target.items))) {
    return { type: "array", items: stagedFile(undefined), ...(typeof description === "string" ? { description } : {}) };
  }
  return schemas.copy(schema);
}

/** A staged-file argument, as `stagedFile()` writes it: agents pass the key `POST /upload` returned. */
function stagedFile(description: unknown): Schema {
  const text = typeof description === "string" && description.trim() ? `${trimText(description, DESCRIPTION_MAX)} ` : "";
  return {
    type: "string",
    format: STAGED_FILE_FORMAT,
    description: `${text}Staging key of a file uploaded with POST /upload.`,
    "x-tools-proxy-file": true,
  };
}

/** An object with properties and nothing that would be lost by listing them one by one. */
function isPlainObject(schema: unknown): schema is Record<string, unknown> {
  if (!isRecord(schema) || !isRecord(schema.properties)) return false;
  if (["allOf", "anyOf", "oneOf", "not", "if"].some((key) => schema[key] !== undefined)) return false;
  return schema.type === undefined || schema.type === "object";
}

/** The body type a media type is sent as, or undefined when the toolkit cannot send it. */
function baseType(mediaType: string): string | undefined {
  const base = mediaType.split(";")[0]!.trim().toLowerCase();
  if (base === "*/*" || base.endsWith("+json")) return "application/json";
  return BODY_TYPES.includes(base) ? base : undefined;
}
