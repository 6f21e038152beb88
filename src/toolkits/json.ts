import { z } from "zod";
import type { AuthScheme } from "../credentials/auth-schemes.js";
import { credentialHeader, isHeaderName } from "../outbound/headers.js";
import { retriesSchema } from "../outbound/retry.js";
import { defineToolkit, type JsonSchema, type Tool, type Toolkit } from "./define.js";
import { TEMPLATE } from "./http-request.js";
import { type HttpTool, runHttpTool } from "./http-tool.js";
import { jsonSchemaValidator } from "./json-schema-validator.js";
import { BODY_TYPE } from "./request-body.js";

/** Options of `defineJsonToolkit` and `parseToolkitFile`. */
export interface JsonToolkitOptions {
  /** Values for `${NAME}` references. Default: `process.env` where it exists. */
  env?: Record<string, string | undefined>;
  /**
   * Builds a `{ "provider": "<slug>", ... }` entry (a catalog provider with the deployer's client
   * and overrides), its `${NAME}` references already replaced. `tools-proxy/catalog`'s
   * `loadToolkitFile` passes the catalog's; without one, such an entry is an error.
   */
  provider?: (entry: Record<string, unknown>) => Toolkit;
}

const PLACEHOLDER = /\{([A-Za-z0-9_]+)\}/g;

function isHttpUrl(value: string): boolean {
  // `{subdomain}`-style placeholders are filled from the connection later; check the shape with a stand-in.
  try {
    return /^https?:$/.test(new URL(value.replace(PLACEHOLDER, "placeholder")).protocol);
  } catch {
    return false;
  }
}

const text = z.string().min(1, "must not be empty");
const url = z.string().refine(isHttpUrl, "must be an absolute http(s) URL");

const stringMap = z.record(z.string().min(1), z.string());
const valueRule = z.union([text, z.strictObject({ path: text, pattern: text })]);
const placement = z.discriminatedUnion("in", [
  z.strictObject({ in: z.literal("header"), name: text, prefix: z.string().optional() }),
  z.strictObject({ in: z.literal("query"), name: text }),
]);
/** A path under the base URL (`/user`) or an absolute http(s) URL. */
const pathOrUrl = z
  .string()
  .refine((value) => value.startsWith("/") || isHttpUrl(value), "must be a path starting with / or an absolute http(s) URL");
const lookup = z.strictObject({
  url: pathOrUrl,
  method: z.enum(["GET", "POST"]).optional(),
  headers: stringMap.optional(),
  body: z.unknown().optional(),
  remoteUser: text.optional(),
  config: z.record(text, valueRule).optional(),
});
const lookups = z.union([lookup, z.array(lookup).min(1)]);
const common = { label: text.optional(), helpUrl: url.optional(), sources: z.array(url).optional() };

/** The OAuth 2 scheme's fields, without the client's id and secret (the catalog's providers leave them to the deployer). */
export const oauth2Fields = {
  type: z.literal("oauth2"),
  authorizationUrl: url,
  tokenUrl: url,
  scopes: z.array(z.string()).default([]),
  revocationUrl: url.optional(),
  revocation: z
    .strictObject({
      url: pathOrUrl.optional(),
      method: z.enum(["POST", "DELETE", "GET"]),
      auth: z.enum(["bearer", "client_basic", "none"]),
      body: stringMap.optional(),
      format: z.enum(["form", "json"]).optional(),
    })
    .optional(),
  userInfoUrl: url.optional(),
  remoteUserField: text.optional(),
  issuer: text.optional(),
  tokenEndpointAuthMethod: z.enum(["client_secret_basic", "client_secret_post", "none"]).optional(),
  tokenRequestFormat: z.enum(["form", "json"]).optional(),
  authorizationParams: stringMap.optional(),
  tokenParams: stringMap.optional(),
  refreshParams: stringMap.optional(),
  refreshUrl: pathOrUrl.optional(),
  scopeSeparator: z.string().min(1).optional(),
  userScopes: z.array(z.string()).optional(),
  userScopesParam: text.optional(),
  pkce: z.boolean().optional(),
  tokensAt: text.optional(),
  tokenConfig: z.record(text, valueRule).optional(),
  callbackConfig: z.record(text, valueRule).optional(),
  placement: placement.optional(),
  identify: lookups.optional(),
  ...common,
};

/** The other schemes' fields. */
export const otherSchemes = [
  z.strictObject({
    type: z.literal("apiKey"),
    in: z.enum(["header", "query"]),
    name: text,
    prefix: z.string().optional(),
    identify: lookups.optional(),
    ...common,
  }),
  z.strictObject({ type: z.literal("bearer"), placement: placement.optional(), identify: lookups.optional(), ...common }),
  z.strictObject({ type: z.literal("basic"), identify: lookups.optional(), ...common }),
  z.strictObject({ type: z.literal("none"), ...common }),
] as const;

const schemeSchema = z.discriminatedUnion("type", [
  z.strictObject({ ...oauth2Fields, clientId: text, clientSecret: z.string().optional() }),
  ...otherSchemes,
]);

// One scheme or several; a single one is checked as a list of one (see `defineJsonToolkit`), so
// that an error names its field (`auth.type`) instead of "no union member matched".
const authSchema = z.array(schemeSchema).min(1, "must name at least one way to connect");

/** A connection input (see `ConnectionInput`). */
export const inputSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, "must be letters, digits and _, starting with a letter"),
  label: text,
  description: z.string().optional(),
  pattern: text.optional(),
  example: z.string().optional(),
});

const STYLES_BY_PLACE = {
  path: ["simple", "label", "matrix"],
  query: ["form", "spaceDelimited", "pipeDelimited", "deepObject"],
  header: ["simple"],
  cookie: ["form"],
} as const;

const parameterSchema = z
  .strictObject({
    in: z.enum(["path", "query", "header", "cookie"]),
    name: text,
    arg: text.optional(),
    style: z.enum(["form", "spaceDelimited", "pipeDelimited", "deepObject", "simple", "label", "matrix"]).optional(),
    explode: z.boolean().optional(),
    allowReserved: z.boolean().optional(),
  })
  .superRefine((param, ctx) => {
    const styles: readonly string[] = STYLES_BY_PLACE[param.in];
    if (param.style !== undefined && !styles.includes(param.style)) {
      ctx.addIssue({ code: "custom", path: ["style"], message: `must be one of ${styles.join(", ")} for a ${param.in} parameter` });
    }
    if (param.allowReserved !== undefined && param.in !== "query") {
      ctx.addIssue({ code: "custom", path: ["allowReserved"], message: "applies to query parameters only" });
    }
    if (param.in === "header" && !isHeaderName(param.name)) {
      ctx.addIssue({ code: "custom", path: ["name"], message: "must be an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)" });
    }
  });

const requestSchema = z.strictObject({
  parameters: z.array(parameterSchema).optional(),
  body: z
    .strictObject({
      contentType: z
        .string()
        .regex(
          BODY_TYPE,
          "must be application/json (or a +json type), application/x-www-form-urlencoded, multipart/form-data, text/plain or application/octet-stream",
        ),
      arg: text.optional(),
      fields: z.record(text, text).optional(),
    })
    .refine((body) => (body.arg === undefined) !== (body.fields === undefined), "must have either arg or fields, not both")
    .optional(),
  response: z.enum(["auto", "json", "text", "file"]).optional(),
});

/** Checks that a declared request fits its tool: placeholders, parameters and argument names agree. */
function checkRequest(
  tool: { method: string; path: string; request?: z.output<typeof requestSchema> },
  properties: object | undefined,
  ctx: z.RefinementCtx,
): void {
  const request = tool.request!;
  const parameters = request.parameters ?? [];
  const placeholders = [...tool.path.matchAll(TEMPLATE)].map((match) => match[1]!);
  for (const name of placeholders) {
    if (!parameters.some((p) => p.in === "path" && p.name === name)) {
      ctx.addIssue({ code: "custom", path: ["path"], message: `placeholder {${name}} has no path parameter in request.parameters` });
    }
  }
  const seen = new Set<string>();
  parameters.forEach((param, index) => {
    const key = `${param.in}:${param.in === "header" ? param.name.toLowerCase() : param.name}`;
    if (seen.has(key))
      ctx.addIssue({
        code: "custom",
        path: ["request", "parameters", index, "name"],
        message: `${param.in} parameter "${param.name}" is declared twice`,
      });
    seen.add(key);
    if (param.in === "path" && !placeholders.includes(param.name)) {
      ctx.addIssue({
        code: "custom",
        path: ["request", "parameters", index, "name"],
        message: `path parameter "${param.name}" has no {${param.name}} in path`,
      });
    }
  });
  const args = [
    ...parameters.map((param, index) => ({
      arg: param.arg ?? param.name,
      at: ["request", "parameters", index, param.arg ? "arg" : "name"],
    })),
    ...(request.body?.arg ? [{ arg: request.body.arg, at: ["request", "body", "arg"] }] : []),
    ...Object.entries(request.body?.fields ?? {}).map(([field, arg]) => ({ arg, at: ["request", "body", "fields", field] })),
  ];
  for (const { arg, at } of args) {
    if (properties && !Object.hasOwn(properties, arg))
      ctx.addIssue({ code: "custom", path: at, message: `"${arg}" is not a property of inputParameters` });
  }
  if (request.body && (tool.method === "GET" || tool.method === "HEAD")) {
    ctx.addIssue({ code: "custom", path: ["request", "body"], message: `a ${tool.method} request cannot carry a body` });
  }
}

const toolSchema = z
  .strictObject({
    slug: text,
    name: text,
    description: z.string(),
    method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]),
    path: z
      .string()
      .regex(/^\/[^?#]*$/, "must start with / and contain no query or fragment")
      .refine((path) => !path.split("/").some((s) => s === "." || s === ".."), "must not contain . or .. segments"),
    inputParameters: z.looseObject({ type: z.literal("object") }).default(() => ({ type: "object" as const, properties: {} })),
    annotations: z
      .strictObject({ readOnly: z.boolean(), destructive: z.boolean(), idempotent: z.boolean(), openWorld: z.boolean() })
      .partial()
      .optional(),
    scopes: z.array(z.string()).optional(),
    /** The base URL of this tool when it is not the toolkit's first (one of the toolkit's `baseUrl`s). */
    baseUrl: text.optional(),
    request: requestSchema.optional(),
  })
  .superRefine((tool, ctx) => {
    const properties = tool.inputParameters.properties;
    const known = properties !== null && typeof properties === "object" ? properties : undefined;
    if (tool.request) return checkRequest(tool, known, ctx);
    if (known === undefined) return;
    for (const [, name] of tool.path.matchAll(PLACEHOLDER)) {
      if (!Object.hasOwn(known, name!)) {
        ctx.addIssue({ code: "custom", path: ["path"], message: `placeholder {${name}} is not a property of inputParameters` });
      }
    }
  });

const toolkitSchema = z
  .strictObject({
    $schema: z.string().optional(),
    slug: text,
    name: text,
    description: z.string(),
    icon: z.string().optional(),
    baseUrl: z.union([text, z.array(text).min(1)], { error: "must be a URL or a non-empty array of URLs" }),
    auth: authSchema,
    headers: stringMap.optional(),
    inputs: z.array(inputSchema).optional(),
    aliases: z.array(text).optional(),
    categories: z.array(text).optional(),
    docsUrl: url.optional(),
    timeoutMs: z.number().int().positive().optional(),
    retries: retriesSchema.optional(),
    tools: z.array(toolSchema).default([]),
  })
  .superRefine((toolkit, ctx) => {
    const baseUrls = [toolkit.baseUrl].flat();
    toolkit.tools.forEach((tool, index) => {
      if (tool.baseUrl !== undefined && !baseUrls.includes(tool.baseUrl)) {
        ctx.addIssue({ code: "custom", path: ["tools", index, "baseUrl"], message: "must be one of the toolkit's baseUrl values" });
      }
    });
  });

/** The JSON form of a toolkit, as validated: `defineToolkit`'s fields, with HTTP tools and JSON Schema inputs. */
export type JsonToolkit = z.output<typeof toolkitSchema>;

/**
 * Builds a toolkit from its JSON form (the format `serve --toolkits` loads). First every `${NAME}` in a string
 * value is replaced by `options.env.NAME` (`$${NAME}` stays a literal `${NAME}`); an unset
 * variable throws an error naming the variable and where it is used, never a value. Then the
 * document is validated, and an error names each failing field path (e.g. `tools[0].method`).
 *
 * Each tool keeps its `inputParameters` as written; arguments are validated with the zod schema
 * `z.fromJSONSchema` makes of it. Running a tool sends one HTTP request through `ctx.fetch`:
 * `{placeholders}` in `path` are filled from the arguments (URL-encoded), the other arguments
 * go in the query string for GET and DELETE and in a JSON body otherwise. The URL is the first
 * base URL followed by the path, left as a string so that placeholders of the base URL itself
 * are filled by `ctx.fetch` from the connection. The upstream JSON (or text) is the result;
 * a non-2xx answer throws a `ToolRunError`. A tool with a `request` field (as an OpenAPI import
 * writes it) sends instead exactly the parameters and body it declares, in their OpenAPI styles,
 * and reads its answer as `request.response` says (see `runHttpTool`).
 */
export function defineJsonToolkit(input: unknown, options: JsonToolkitOptions = {}): Toolkit {
  const env = options.env ?? globalThis.process?.env ?? {};
  const document = substituteEnv(input, env, [], (input as { slug?: unknown } | null)?.slug);
  const single = isRecord(document) && isRecord(document.auth);
  const parsed = toolkitSchema.safeParse(single ? { ...document, auth: [document.auth] } : document);
  if (!parsed.success) throw new TypeError(`${label(document)}: ${describe(parsed.error.issues, single)}.`);
  const spec = parsed.data;
  const baseUrl = [spec.baseUrl].flat()[0]!;
  const credentialHeaders = spec.auth.map((scheme) => credentialHeader(scheme as AuthScheme)).filter((name) => name !== null);
  return defineToolkit({
    slug: spec.slug,
    name: spec.name,
    description: spec.description,
    icon: spec.icon,
    baseUrl: spec.baseUrl,
    auth: single ? spec.auth[0]! : spec.auth,
    headers: spec.headers,
    inputs: spec.inputs,
    aliases: spec.aliases,
    categories: spec.categories,
    docsUrl: spec.docsUrl,
    timeoutMs: spec.timeoutMs,
    retries: spec.retries,
    tools: spec.tools.map((tool, index) => toTool(tool, index, baseUrl, document, credentialHeaders)),
  });
}

/**
 * Parses a toolkit file: one JSON toolkit or an array of them, each built with
 * `defineJsonToolkit`. Errors start with `source` (e.g. the file name) when given.
 */
export function parseToolkitFile(text: string, options: JsonToolkitOptions & { source?: string } = {}): Toolkit[] {
  const prefix = options.source ? `${options.source}: ` : "";
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TypeError(`${prefix}the toolkit file is not valid JSON (${(error as Error).message}).`);
  }
  const items = Array.isArray(value) ? value : [value];
  const env = options.env ?? globalThis.process?.env ?? {};
  return items.map((item, index) => {
    try {
      if (isRecord(item) && Object.hasOwn(item, "provider")) {
        if (!options.provider) {
          throw new TypeError(
            `a "provider" entry needs the catalog: load the file with loadToolkitFile from tools-proxy/catalog (serve does).`,
          );
        }
        return options.provider(substituteEnv(item, env, [], item.provider) as Record<string, unknown>);
      }
      return defineJsonToolkit(item, options);
    } catch (error) {
      const where = Array.isArray(value) ? `toolkit at index ${index}: ` : "";
      throw new TypeError(`${prefix}${where}${(error as Error).message}`, { cause: error });
    }
  });
}

function toTool(spec: JsonToolkit["tools"][number], index: number, baseUrl: string, document: unknown, credentialHeaders: string[]): Tool {
  const inputParameters = spec.inputParameters as JsonSchema;
  let input: z.ZodType;
  try {
    // Validation only: a `default` says what the API assumes when the argument is absent, so it is
    // not filled in (a PATCH would otherwise send every default, changing what the caller left alone).
    input = jsonSchemaValidator(withoutDefaults(inputParameters) as JsonSchema);
  } catch (error) {
    // The validator's own refusals start with the JSON pointer of the keyword (`/properties/id/pattern: ...`).
    const message = (error as Error).message;
    const where = message.startsWith("/") ? `tools[${index}] ("${spec.slug}").inputParameters` : `tools[${index}].inputParameters: `;
    throw new TypeError(`${label(document)}: ${where}${message}.`, { cause: error });
  }
  const http: HttpTool = {
    method: spec.method,
    path: spec.path,
    baseUrl: spec.baseUrl ?? baseUrl,
    request: spec.request,
    credentialHeaders,
  };
  return {
    slug: spec.slug,
    name: spec.name,
    description: spec.description,
    annotations: spec.annotations,
    scopes: spec.scopes,
    input,
    inputParameters,
    run: (args, ctx) => runHttpTool(http, args, ctx),
  };
}

const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SCHEMA_ONE = ["items", "additionalItems", "additionalProperties", "unevaluatedItems", "unevaluatedProperties"];
const SCHEMA_ONE_MORE = ["not", "if", "then", "else", "contains", "propertyNames"];

/** A copy of a JSON Schema without its `default` keywords, at every level (a property named "default" stays). */
function withoutDefaults(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDefaults);
  if (!isRecord(schema)) return schema;
  const copy: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === "default") continue;
    if (SCHEMA_MAPS.includes(keyword) && isRecord(value)) {
      copy[keyword] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, withoutDefaults(item)]));
    } else if ([...SCHEMA_LISTS, ...SCHEMA_ONE, ...SCHEMA_ONE_MORE].includes(keyword)) {
      copy[keyword] = withoutDefaults(value);
    } else {
      copy[keyword] = value;
    }
  }
  return copy;
}

const ENV_REFERENCE = /\$(\$)?\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function substituteEnv(value: unknown, env: Record<string, string | undefined>, path: PropertyKey[], slug: unknown): unknown {
  if (typeof value === "string") {
    return value.replace(ENV_REFERENCE, (match, escaped: string | undefined, name: string) => {
      if (escaped) return match.slice(1);
      const replacement = env[name];
      if (replacement === undefined) {
        const toolkit = typeof slug === "string" ? `toolkit "${slug}"` : "the toolkit";
        throw new TypeError(`Environment variable ${name} is not set; it is used at ${formatPath(path) || "the top level"} of ${toolkit}.`);
      }
      return replacement;
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => substituteEnv(item, env, [...path, i], slug));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteEnv(item, env, [...path, key], slug)]));
  }
  return value;
}

function label(document: unknown): string {
  const slug = (document as { slug?: unknown } | null)?.slug;
  return typeof slug === "string" ? `Invalid toolkit "${slug}"` : "Invalid toolkit";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function describe(issues: z.core.$ZodIssue[], singleAuth = false): string {
  return issues
    .slice(0, 10)
    .map((issue) => (singleAuth && issue.path[0] === "auth" ? { ...issue, path: ["auth", ...issue.path.slice(2)] } : issue))
    .map((issue) => (issue.path.length ? `${formatPath(issue.path)}: ${issue.message}` : issue.message))
    .join("; ");
}

function formatPath(path: PropertyKey[]): string {
  return path.map((key, i) => (typeof key === "number" ? `[${key}]` : `${i ? "." : ""}${String(key)}`)).join("");
}
