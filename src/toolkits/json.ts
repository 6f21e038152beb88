import { z } from "zod";
import { rateLimitHeadersSchema } from "../core/rate-limit-headers.js";
import type { AuthScheme } from "../credentials/auth-schemes.js";
import { configureValues } from "../credentials/placements.js";
import { credentialHeaders, isHeaderName } from "../outbound/headers.js";
import { retriesSchema } from "../outbound/retry.js";
import { ORIGIN_PLACEHOLDER } from "../outbound/url-policy.js";
import { defineToolkit, type JsonSchema, type Tool, type Toolkit, type ToolkitDefinition } from "./define.js";
import { TEMPLATE } from "./http-request.js";
import { type HttpTool, runHttpTool } from "./http-tool.js";
import { BODY_TYPE } from "./request-body.js";
import { jsonSchemaValidator, type StandardSchemaV1 } from "./schemas.js";

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
/**
 * An OAuth endpoint: an absolute http(s) URL, or one under an origin input (`{instance}/oauth/token`),
 * checked with a stand-in origin here; defineToolkit checks that `instance` is an origin input.
 */
const endpoint = z
  .string()
  .refine(
    (value) => isHttpUrl(value.replace(ORIGIN_PLACEHOLDER, "https://origin.example")),
    "must be an absolute http(s) URL, or {input}/path under an origin input",
  );

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
const common = {
  mode: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, "must start with a letter, then letters, digits, _ or - (at most 64)")
    .optional(),
  label: text.optional(),
  helpUrl: url.optional(),
  sources: z.array(url).optional(),
};

const fieldName = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, "must be letters, digits and _, starting with a letter");
/** A value a person types for a grant mode (see `ExchangeField`). */
const typedField = z.strictObject({
  name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, "must be letters, digits and _, starting with a letter"),
  label: text,
  secret: z.boolean().optional(),
  optional: z.boolean().optional(),
});

/** The deployer's values: each read from its `env` variable, unless a `value` is given. */
const deployerValues = z.array(
  z
    .strictObject({
      name: fieldName,
      label: text.optional(),
      env: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name")
        .optional(),
      value: z.string().optional(),
    })
    .refine((value) => value.env !== undefined || value.value !== undefined, "must give env or value"),
);

/**
 * What an OAuth 2 or token grant mode sends beside its token on every API request (see
 * `src/credentials/placements.ts`): the deployer's values, and headers or query parameters whose
 * templates name them and `{clientId}`.
 */
const besideToken = {
  values: deployerValues.optional(),
  placements: z
    .array(
      z.discriminatedUnion("in", [
        z.strictObject({ in: z.literal("header"), name: text, value: text }),
        z.strictObject({ in: z.literal("query"), name: text, value: text }),
      ]),
    )
    .min(1)
    .optional(),
};

/** What every token grant's scheme may say besides its request (see `GrantSchemeCommon`). */
const grantCommon = {
  ...besideToken,
  placement: placement.optional(),
  tokenConfig: z.record(text, valueRule).optional(),
  identify: lookups.optional(),
  ...common,
};

/** A token request of the provider's own making (see `TokenRequestTemplate`). */
const tokenRequestTemplate = z.strictObject({
  url: pathOrUrl,
  method: z.enum(["GET", "POST"]).optional(),
  params: stringMap,
});

/** The OAuth 2 scheme's fields, without the client's id and secret (the catalog's providers leave them to the deployer). */
export const oauth2Fields = {
  type: z.literal("oauth2"),
  authorizationUrl: endpoint,
  tokenUrl: endpoint,
  scopes: z.array(z.string()).default([]),
  revocationUrl: endpoint.optional(),
  revocation: z
    .strictObject({
      url: pathOrUrl.optional(),
      method: z.enum(["POST", "DELETE", "GET"]),
      auth: z.enum(["bearer", "client_basic", "client_post", "none"]),
      body: stringMap.optional(),
      format: z.enum(["form", "json"]).optional(),
    })
    .optional(),
  userInfoUrl: endpoint.optional(),
  remoteUserField: text.optional(),
  issuer: text.optional(),
  tokenEndpointAuthMethod: z.enum(["client_secret_basic", "client_secret_post", "none"]).optional(),
  clientBasicEncoding: z.enum(["raw", "form"]).optional(),
  tokenRequestFormat: z.enum(["form", "json"]).optional(),
  authorizationParams: stringMap.optional(),
  tokenParams: stringMap.optional(),
  refreshParams: stringMap.optional(),
  refreshRedirectUri: z.boolean().optional(),
  refreshUrl: z.union([pathOrUrl, endpoint]).optional(),
  tokenUpgrade: tokenRequestTemplate.optional(),
  refreshRequest: tokenRequestTemplate.optional(),
  scopeSeparator: z.string().min(1).optional(),
  userScopes: z.array(z.string()).optional(),
  userScopesParam: text.optional(),
  pkce: z.boolean().optional(),
  tokensAt: text.optional(),
  extraTokens: z.record(fieldName, text).optional(),
  tokenConfig: z.record(text, valueRule).optional(),
  callbackConfig: z.record(text, valueRule).optional(),
  placement: placement.optional(),
  ...besideToken,
  clientIdParam: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, "must be a parameter name: letters, digits, _, . and -")
    .optional(),
  identify: lookups.optional(),
  ...common,
};

/** Several secrets, the deployer's values, and where each goes (see `src/credentials/placements.ts`). */
const schemeValues = {
  fields: z.array(z.strictObject({ name: fieldName, label: text, secret: z.boolean().optional() })).optional(),
  values: deployerValues.optional(),
  placements: z
    .array(
      z.discriminatedUnion("in", [
        z.strictObject({ in: z.literal("header"), name: text, value: text }),
        z.strictObject({ in: z.literal("query"), name: text, value: text }),
        z.strictObject({ in: z.literal("path"), name: text, value: text }),
        z.strictObject({ in: z.literal("basic"), username: z.string(), password: z.string() }),
      ]),
    )
    .min(1)
    .optional(),
};

/** The other schemes' fields. */
export const otherSchemes = [
  z
    .strictObject({
      type: z.literal("apiKey"),
      in: z.enum(["header", "query"]).optional(),
      name: text.optional(),
      prefix: z.string().optional(),
      identify: lookups.optional(),
      ...schemeValues,
      ...common,
    })
    .refine((scheme) => scheme.placements !== undefined || (scheme.in !== undefined && scheme.name !== undefined), {
      message: "needs in and name, or placements",
      path: ["in"],
    }),
  z.strictObject({
    type: z.literal("bearer"),
    placement: placement.optional(),
    identify: lookups.optional(),
    ...schemeValues,
    ...common,
  }),
  z.strictObject({ type: z.literal("basic"), identify: lookups.optional(), ...schemeValues, ...common }),
  z.strictObject({ type: z.literal("none"), ...common }),
  z.strictObject({
    type: z.literal("clientCredentials"),
    tokenUrl: url,
    client: z.enum(["typed", "deployer"]).optional(),
    clientId: z.string().optional(),
    clientSecret: z.string().optional(),
    scopes: z.array(z.string()).optional(),
    scopeSeparator: z.string().min(1).optional(),
    audience: text.optional(),
    tokenEndpointAuthMethod: z.enum(["client_secret_basic", "client_secret_post"]).optional(),
    clientBasicEncoding: z.enum(["raw", "form"]).optional(),
    grantType: text.optional(),
    tokenParams: stringMap.optional(),
    fields: z.array(typedField).optional(),
    ...grantCommon,
  }),
  z.strictObject({
    type: z.literal("tokenExchange"),
    fields: z.array(typedField).min(1),
    request: z.strictObject({
      url: pathOrUrl,
      method: z.enum(["POST", "PUT", "GET"]).optional(),
      format: z.enum(["form", "json"]).optional(),
      headers: stringMap.optional(),
      body: z.unknown().optional(),
    }),
    token: text,
    expiresIn: text.optional(),
    expiresAt: text.optional(),
    lifetime: z.number().int().positive().optional(),
    ...grantCommon,
  }),
  // The deployer's issuer, private key and app id are optional here as the OAuth client is: the
  // catalog's providers leave them to the deployer (without them the mode answers "not configured").
  z.strictObject({
    type: z.literal("jwtBearer"),
    signer: z.enum(["serviceAccount", "deployer"]),
    tokenUrl: url,
    issuer: text.optional(),
    privateKey: text.optional(),
    audience: url.optional(),
    scopes: z.array(z.string()).optional(),
    subject: z.strictObject({ label: text, optional: z.boolean().optional() }).optional(),
    assertionLifetime: z.number().int().min(1).max(3600).optional(),
    ...grantCommon,
  }),
  z.strictObject({
    type: z.literal("appInstallation"),
    appId: text.optional(),
    privateKey: text.optional(),
    tokenUrl: pathOrUrl.optional(),
    installUrl: url.optional(),
    ...grantCommon,
  }),
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
  type: z.enum(["label", "host", "origin", "enum", "text"]).optional(),
  hosts: z.array(text).min(1).optional(),
  values: z.array(text).min(1).optional(),
  maxLength: z.number().int().min(1).max(1024).optional(),
  optional: z.boolean().optional(),
  default: text.optional(),
  from: z.enum(["token", "lookup"]).optional(),
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
    /** The further token of the connection its requests use (Slack's `user`), see `Tool.credential`. */
    credential: fieldName.optional(),
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

/** A remote MCP server: its URL, or the URL with the transport and the authorization servers allowed besides its own origin. */
const mcpSchema = z.union(
  [
    url,
    z.strictObject({
      url,
      transport: z.enum(["streamable-http", "sse"]).optional(),
      authorizationServers: z.array(url).optional(),
    }),
  ],
  { error: 'must be the server\'s URL, or { "url", "transport"?, "authorizationServers"? }' },
);

const toolkitSchema = z
  .strictObject({
    $schema: z.string().optional(),
    slug: text,
    name: text,
    description: z.string().default(""),
    icon: z.string().optional(),
    baseUrl: z.union([text, z.array(text).min(1)], { error: "must be a URL or a non-empty array of URLs" }).optional(),
    mcp: mcpSchema.optional(),
    clientId: text.optional(),
    clientSecret: text.optional(),
    scopes: z.array(text).optional(),
    auth: authSchema.optional(),
    headers: stringMap.optional(),
    inputs: z.array(inputSchema).optional(),
    aliases: z.array(text).optional(),
    categories: z.array(text).optional(),
    docsUrl: url.optional(),
    timeoutMs: z.number().int().positive().optional(),
    retries: retriesSchema.optional(),
    rateLimit: rateLimitHeadersSchema.optional(),
    // Checked one by one by `jsonToolkitParts`' `makeTool`, which also checks a tool's own baseUrl.
    tools: z.array(toolSchema).default([]),
  })
  .superRefine((toolkit, ctx) => {
    if (toolkit.mcp !== undefined) {
      for (const field of ["baseUrl", "tools"] as const) {
        const given = field === "tools" ? toolkit.tools.length > 0 : toolkit.baseUrl !== undefined;
        if (given)
          ctx.addIssue({
            code: "custom",
            path: [field],
            message: "must be left out beside mcp (the server's origin is the base URL, and the server lists the tools)",
          });
      }
      return;
    }
    for (const field of ["clientId", "clientSecret", "scopes"] as const) {
      if (toolkit[field] !== undefined) ctx.addIssue({ code: "custom", path: [field], message: "is read only beside mcp; put it in auth" });
    }
    if (toolkit.baseUrl === undefined)
      ctx.addIssue({ code: "custom", path: ["baseUrl"], message: "is required (or give mcp, a remote MCP server's URL)" });
    if (toolkit.auth === undefined) ctx.addIssue({ code: "custom", path: ["auth"], message: "is required" });
  });

/** The JSON form of a toolkit, as validated: `defineToolkit`'s fields, with HTTP tools and JSON Schema inputs. */
export type JsonToolkit = z.output<typeof toolkitSchema>;

/**
 * Builds a toolkit from its JSON form (the format `serve --toolkits` loads). First every `${NAME}` in a string
 * value is replaced by `options.env.NAME` (`$${NAME}` stays a literal `${NAME}`); an unset
 * variable throws an error naming the variable and where it is used, never a value, except in an
 * OAuth mode's `clientId` and `clientSecret`: there it leaves that mode not configured (listed with
 * `configured: false`, its tools served, `POST /auth` a 400 naming the variables to set), as a
 * catalog provider without its client is. Then the document is validated, and an error names each
 * failing field path (e.g. `tools[0].method`).
 *
 * Each tool keeps its `inputParameters` as written; arguments are validated with the zod schema
 * `z.fromJSONSchema` makes of it on the tool's first call (so loading costs memory for the tools
 * used; a schema zod cannot read is reported then), without `default` and the keywords zod cannot
 * express (`not`, `if`, `dependentSchemas`, `unevaluatedProperties`...), left to the API. Running a tool sends one HTTP request through `ctx.fetch`:
 * `{placeholders}` in `path` are filled from the arguments (URL-encoded), the other arguments
 * go in the query string for GET and DELETE and in a JSON body otherwise. The URL is the first
 * base URL followed by the path, left as a string so that placeholders of the base URL itself
 * are filled by `ctx.fetch` from the connection. The upstream JSON (or text) is the result;
 * a non-2xx answer throws a `ToolRunError`. A tool with a `request` field (as an OpenAPI import
 * writes it) sends instead exactly the parameters and body it declares, in their OpenAPI styles,
 * and reads its answer as `request.response` says (see `runHttpTool`).
 */
export function defineJsonToolkit(input: unknown, options: JsonToolkitOptions = {}): Toolkit {
  const { definition, tools, makeTool } = jsonToolkitParts(input, options);
  return defineToolkit({ ...definition, tools: tools.map((tool, index) => makeTool(tool, index)) });
}

/** A JSON toolkit, checked, as `defineToolkit`'s definition without tools and a maker of its tools. */
export interface JsonToolkitParts {
  definition: Omit<ToolkitDefinition, "tools">;
  /** The tools as given (checked only by `makeTool`). */
  tools: unknown[];
  /**
   * Makes the tool at `index` of the JSON toolkit from its JSON (its `${NAME}` references replaced,
   * then checked as `defineJsonToolkit` checks it); a TypeError names what is wrong.
   */
  makeTool(tool: unknown, index: number): Tool;
}

/**
 * `defineJsonToolkit` in two steps, for a toolkit whose tools are made later, one by one (a
 * compiled collection's lazy tools): the toolkit checked without its tools, and a maker of each.
 */
export function jsonToolkitParts(input: unknown, options: JsonToolkitOptions = {}): JsonToolkitParts {
  const env = options.env ?? globalThis.process?.env ?? {};
  const tools = isRecord(input) && Array.isArray(input.tools) ? input.tools : [];
  const withoutTools = isRecord(input) && Array.isArray(input.tools) ? { ...input, tools: [] } : input;
  const unset = new UnsetClients(withoutTools);
  const slug = (input as { slug?: unknown } | null)?.slug;
  const substituted = substituteEnv(withoutTools, env, [], slug, unset.tolerate);
  const single = isRecord(substituted) && isRecord(substituted.auth);
  const document = single ? { ...substituted, auth: [substituted.auth] } : substituted;
  const parsed = toolkitSchema.safeParse(unset.standIn(document));
  if (!parsed.success) throw new TypeError(`${label(document)}: ${describe(parsed.error.issues, single)}.`);
  const configured = unset
    .unconfigure(parsed.data.auth ?? [], parsed.data.name)
    .map((scheme) => configureValues(scheme as AuthScheme, env, {}, parsed.data.name));
  const spec = { ...parsed.data, auth: configured };
  const baseUrls = [spec.baseUrl].flat();
  const credentialHeaderNames = spec.auth.flatMap((scheme) => credentialHeaders(scheme as AuthScheme));
  const makeTool = (tool: unknown, index: number): Tool => {
    const path = ["tools", index];
    const checked = toolSchema.safeParse(substituteEnv(tool, env, path, slug));
    if (!checked.success) {
      const issues = checked.error.issues.map((issue) => ({ ...issue, path: [...path, ...issue.path] }));
      throw new TypeError(`${label(document)}: ${describe(issues)}.`);
    }
    if (checked.data.baseUrl !== undefined && !baseUrls.includes(checked.data.baseUrl)) {
      throw new TypeError(`${label(document)}: tools[${index}].baseUrl: must be one of the toolkit's baseUrl values.`);
    }
    return toTool(checked.data, index, baseUrls[0]!, document, credentialHeaderNames);
  };
  return {
    definition: {
      slug: spec.slug,
      name: spec.name,
      description: spec.description,
      icon: spec.icon,
      baseUrl: spec.baseUrl,
      ...(spec.mcp !== undefined ? { mcp: spec.mcp, clientId: spec.clientId, clientSecret: spec.clientSecret, scopes: spec.scopes } : {}),
      auth: parsed.data.auth === undefined ? undefined : single ? spec.auth[0]! : spec.auth,
      headers: spec.headers,
      inputs: spec.inputs,
      aliases: spec.aliases,
      categories: spec.categories,
      docsUrl: spec.docsUrl,
      timeoutMs: spec.timeoutMs,
      retries: spec.retries,
      rateLimit: spec.rateLimit,
    },
    tools,
    makeTool,
  };
}

/**
 * HTTP tools in the JSON toolkit format, made for a toolkit defined elsewhere (a catalog provider's
 * generated tools): each is validated as `defineJsonToolkit` validates a tool, and sends its
 * requests to `baseUrls` (a tool's own `baseUrl` must be one of them) with the toolkit's auth, so
 * that no header argument may set a header its credential goes in. No `${NAME}` is replaced. An
 * invalid tool throws a TypeError naming the toolkit, the tool's index and the field.
 */
export function defineJsonTools(
  tools: readonly unknown[],
  toolkit: { slug: string; baseUrls: readonly string[]; auth: readonly AuthScheme[] },
): Tool[] {
  const document = { slug: toolkit.slug };
  const parsed = z.array(toolSchema).safeParse(tools);
  if (!parsed.success)
    throw new TypeError(
      `${label(document)}: ${describe(parsed.error.issues.map((issue) => ({ ...issue, path: ["tools", ...issue.path] })))}.`,
    );
  const headers = toolkit.auth.flatMap((scheme) => credentialHeaders(scheme));
  return parsed.data.map((tool, index) => {
    if (tool.baseUrl !== undefined && !toolkit.baseUrls.includes(tool.baseUrl))
      throw new TypeError(`${label(document)}: tools[${index}].baseUrl must be one of the toolkit's base URLs.`);
    return toTool(tool, index, toolkit.baseUrls[0]!, document, headers);
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
        return providerEntry(item, env, options.provider);
      }
      return defineJsonToolkit(item, options);
    } catch (error) {
      const where = Array.isArray(value) ? `toolkit at index ${index}: ` : "";
      throw new TypeError(`${prefix}${where}${(error as Error).message}`, { cause: error });
    }
  });
}

/**
 * A `{ "provider": ... }` entry, its `${NAME}` references replaced. An unset variable in its
 * `clientId` or `clientSecret` leaves the provider not configured, naming the file's variables.
 */
function providerEntry(
  item: Record<string, unknown>,
  env: Record<string, string | undefined>,
  provider: NonNullable<JsonToolkitOptions["provider"]>,
): Toolkit {
  const missing: string[] = [];
  const tolerate = (name: string, path: PropertyKey[]) => {
    if (path.length !== 1 || !CLIENT_FIELDS.includes(String(path[0]))) return false;
    missing.push(name);
    return true;
  };
  const entry = substituteEnv(item, env, [], item.provider, tolerate) as Record<string, unknown>;
  if (missing.length === 0) return provider(entry);
  const { clientId: _id, clientSecret: _secret, ...rest } = entry;
  const toolkit = provider(rest);
  for (const mode of toolkit.authModes) {
    if (mode.type === "oauth2") mode.unconfigured = notConfigured(toolkit.name, missing);
  }
  return toolkit;
}

/** The OAuth mode fields where an unset variable means "not configured yet" rather than an error. */
const CLIENT_FIELDS = ["clientId", "clientSecret"];

/**
 * The OAuth modes of a JSON toolkit whose client's variables are unset. A deployer who imported a
 * document may not have registered a client yet, or may connect another way; the other tools and
 * modes still serve, as a catalog provider without its client does.
 */
class UnsetClients {
  /** auth index (0 for a single scheme) → the variables its client fields use and are unset. */
  private readonly missing = new Map<number, string[]>();

  constructor(private readonly input: unknown) {}

  /** `substituteEnv`'s hook: true (and noted) for a reference in an OAuth mode's client field. */
  readonly tolerate = (name: string, path: PropertyKey[]): boolean => {
    const auth = isRecord(this.input) ? this.input.auth : undefined;
    const single = isRecord(auth);
    const index = single ? 0 : path[1];
    const field = path[single ? 1 : 2];
    const scheme = single ? auth : Array.isArray(auth) && typeof index === "number" ? auth[index] : undefined;
    const inClient = path[0] === "auth" && path.length === (single ? 2 : 3) && CLIENT_FIELDS.includes(String(field));
    if (!inClient || !isRecord(scheme) || scheme.type !== "oauth2" || typeof index !== "number") return false;
    this.missing.set(index, [...(this.missing.get(index) ?? []), name]);
    return true;
  };

  /** The document to validate: a not-configured mode's client fields replaced by a valid stand-in. */
  standIn(document: unknown): unknown {
    if (this.missing.size === 0 || !isRecord(document) || !Array.isArray(document.auth)) return document;
    const auth = document.auth.map((scheme, index) => {
      if (!this.missing.has(index) || !isRecord(scheme)) return scheme;
      const { clientSecret: _secret, ...rest } = scheme;
      return { ...rest, clientId: "not-configured" };
    });
    return { ...document, auth };
  }

  /** The validated modes, each not-configured one with an empty client and the sentence `POST /auth` answers. */
  unconfigure<T extends { type: string }>(auth: T[], toolkitName: string): T[] {
    return auth.map((scheme, index) => {
      const missing = this.missing.get(index);
      if (!missing) return scheme;
      const { clientSecret: _secret, ...rest } = scheme as T & { clientSecret?: string };
      return { ...rest, clientId: "", unconfigured: notConfigured(toolkitName, missing) } as unknown as T;
    });
  }
}

/** What `POST /auth` answers for an OAuth mode whose client's variables are unset. */
function notConfigured(name: string, variables: string[]): string {
  const names = [...new Set(variables)];
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0];
  return (
    `${name} is not configured on this server: its operator must set ${list} ` +
    `(the OAuth client that its toolkit file names), then restart it.`
  );
}

function toTool(spec: JsonToolkit["tools"][number], index: number, baseUrl: string, document: unknown, credentialHeaders: string[]): Tool {
  const inputParameters = spec.inputParameters as JsonSchema;
  let input: StandardSchemaV1;
  try {
    // Made on the tool's first call, not here: a toolkit of thousands of tools loads in memory for the
    // tools it serves, not for one validator each (see `jsonSchemaValidator`). What RE2 cannot match
    // and reference cycles are refused here all the same.
    input = jsonSchemaValidator(inputParameters, validationCopy);
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
    ...(spec.credential ? { credential: spec.credential } : {}),
    input,
    inputParameters,
    run: (args, ctx) => runHttpTool(http, args, ctx),
  };
}

const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions"];
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SCHEMA_ONE = ["items", "additionalItems", "additionalProperties", "contains", "propertyNames"];
/**
 * Keywords zod's validator cannot express (`z.fromJSONSchema` throws on them): HERE Positioning's
 * `not: { minimum: 800, maximum: 899 }`, conditionals, dependencies, unevaluated items and
 * properties. The validator checks the rest and leaves these to the API; agents still see them in
 * `inputParameters`. (`not: {}`, "nothing", zod does express.)
 */
const BEYOND_ZOD = ["if", "then", "else", "dependentSchemas", "dependentRequired", "unevaluatedItems", "unevaluatedProperties"];

/**
 * The copy of a tool's JSON Schema its validator is made from, at every level (a property named
 * "default" or "not" stays): without `default`, since validation does not fill in what the API
 * assumes for an absent argument (a PATCH would otherwise send every default, changing what the
 * caller left alone), and without the keywords zod cannot express (`BEYOND_ZOD`, and `not` but
 * for `not: {}`).
 */
export function validationCopy(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(validationCopy);
  if (!isRecord(schema)) return schema;
  const copy: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === "default" || BEYOND_ZOD.includes(keyword)) continue;
    if (keyword === "not" && !(isRecord(value) && Object.keys(value).length === 0)) continue;
    if (SCHEMA_MAPS.includes(keyword) && isRecord(value)) {
      copy[keyword] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, validationCopy(item)]));
    } else if ([...SCHEMA_LISTS, ...SCHEMA_ONE].includes(keyword)) {
      copy[keyword] = validationCopy(value);
    } else {
      copy[keyword] = value;
    }
  }
  return copy;
}

const ENV_REFERENCE = /\$(\$)?\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * `value` with its `${NAME}` references replaced. An unset variable throws, unless `tolerate`
 * (given the name and the value's path) says it may stay unset: it is then replaced by nothing.
 */
function substituteEnv(
  value: unknown,
  env: Record<string, string | undefined>,
  path: PropertyKey[],
  slug: unknown,
  tolerate: (name: string, path: PropertyKey[]) => boolean = () => false,
): unknown {
  return substituteAt(value, { env, slug, tolerate }, null, path);
}

/** A value's place in the document, from its parent: made into a path only when a message needs it. */
type Place = { parent: Place | null; key: PropertyKey } | null;

function pathOf(place: Place, root: PropertyKey[]): PropertyKey[] {
  const keys: PropertyKey[] = [];
  for (let at = place; at; at = at.parent) keys.unshift(at.key);
  return [...root, ...keys];
}

type Substitution = {
  env: Record<string, string | undefined>;
  slug: unknown;
  tolerate: (name: string, path: PropertyKey[]) => boolean;
};

// Walks every value of the document (a large imported toolkit has millions), so it allocates
// nothing for a value that holds no reference, and copies only what changes: an imported toolkit
// shares each component among its tools' `$defs`, and a copy of each tool's would cost its size again.
function substituteAt(value: unknown, run: Substitution, place: Place, root: PropertyKey[]): unknown {
  if (typeof value === "string") {
    if (!value.includes("${")) return value;
    return value.replace(ENV_REFERENCE, (match, escaped: string | undefined, name: string) => {
      if (escaped) return match.slice(1);
      const replacement = run.env[name];
      // An empty client variable means "not set yet" too, as for the catalog's TOOLS_PROXY_<SLUG>_CLIENT_ID.
      if (replacement === undefined || replacement === "") {
        const path = pathOf(place, root);
        if (run.tolerate(name, path) || replacement === "") return "";
        const toolkit = typeof run.slug === "string" ? `toolkit "${run.slug}"` : "the toolkit";
        throw new TypeError(`Environment variable ${name} is not set; it is used at ${formatPath(path) || "the top level"} of ${toolkit}.`);
      }
      return replacement;
    });
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = substituteAt(value[i], run, { parent: place, key: i }, root);
      if (next === value[i]) continue;
      copy ??= [...value];
      copy[i] = next;
    }
    return copy ?? value;
  }
  if (value !== null && typeof value === "object") {
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      const next = substituteAt(item, run, { parent: place, key }, root);
      if (next === item) continue;
      copy ??= Object.fromEntries(Object.entries(value));
      // defineProperty, not assignment: a key named __proto__ stays an own property.
      Object.defineProperty(copy, key, { value: next, enumerable: true, writable: true, configurable: true });
    }
    return copy ?? value;
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
