import { z } from "zod";
import { STAGED_FILE_FORMAT, STAGING_KEY_PATTERN } from "../api/staged-file.js";
import type { Awaitable, Principal } from "../core/principal.js";
import { type RateLimitHeaders, rateLimitHeadersSchema } from "../core/rate-limit-headers.js";
import { type AuthScheme, MODE_ID, modeId, type OAuth2Scheme, type ValueRule } from "../credentials/auth-schemes.js";
import { placementsDefinitionProblem } from "../credentials/placements.js";
import { credentialHeader } from "../outbound/headers.js";
import { type RetryOptions, retriesSchema } from "../outbound/retry.js";
import { baseUrlTemplateProblem, ORIGIN_PLACEHOLDER } from "../outbound/url-policy.js";
import { assertGrantMode, grantEndpoints } from "./grant-modes.js";
import { wholeHostPlaceholder } from "./host-input.js";
import { assertInput, assertInputPlaces, type ConnectionInput } from "./inputs.js";
import { assertLazyTools, type LazyTools } from "./lazy.js";
import { assertOAuthEndpoints } from "./oauth-endpoints.js";
import { linearPattern } from "./patterns.js";
import { mcpOAuthMode, type RemoteMcp, type RemoteMcpEntry } from "./remote.js";
import { argumentsSchema, inputParametersOf, type JsonSchema, type StandardOutput, type StandardSchemaV1 } from "./schemas.js";

export type { ConnectionInput, InputType } from "./inputs.js";
export { inputValueFits } from "./inputs.js";
export type { LazyTools, ToolSummary } from "./lazy.js";
export type { McpAuthorizationOptions, RemoteMcp, RemoteMcpEntry, RemoteMcpOptions } from "./remote.js";
export type { JsonSchema, StandardSchemaV1 } from "./schemas.js";

/** Hints for agents about what a tool does, after MCP's tool annotations. */
export interface ToolAnnotations {
  readOnly?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  openWorld?: boolean;
}

/**
 * A staged file, as a `stagedFile()` argument reaches `run` and as `ctx.files.get(stagingKey)`
 * returns it. Its bytes are read only when asked for; in JSON it is its staging key.
 */
export interface StagedFile {
  stagingKey: string;
  /** A name to give the file: the uploader's file name, or the staging key when it sent none. */
  name: string;
  /** The uploader's file name (its last path segment), or null. */
  filename: string | null;
  contentType: string;
  /** Bytes. */
  size: number;
  expiresAt: Date;
  /** The bytes as a stream, read as it is consumed; each call opens the file again. */
  stream(): Promise<ReadableStream<Uint8Array>>;
  /** The bytes in memory. Prefer `stream()` for large files. */
  bytes(): Promise<Uint8Array>;
  text(): Promise<string>;
  /** The staging key, so arguments holding a file serialise as they were sent. */
  toJSON(): string;
}

/** A file staged by a tool, as the tool's result carries it. */
export interface StagedFileReference {
  stagingKey: string;
  contentType: string;
  filename: string | null;
  size: number;
  expiresAt: string;
}

/** What a tool's `ctx.fetch` takes: `RequestInit` and what the outbound header policy leaves to trusted code. */
export interface ToolFetchInit extends RequestInit {
  /** The length of a stream body, sent as its `Content-Length` (one in `headers` is dropped). */
  contentLength?: number;
  /** A `Cookie` header (one in `headers` is dropped: on the proxy route it would be the caller's own session). */
  cookie?: string;
}

/** What a tool's `run` receives besides its arguments. */
export interface ToolContext {
  /**
   * `fetch` carrying the connection's credential, restricted to the toolkit's base URLs: a URL
   * outside them is refused before anything is sent. Relative URLs resolve against the first base URL.
   * Besides `RequestInit`, it takes a stream body's `contentLength` and a `cookie` (see `ToolFetchInit`).
   */
  fetch(input: string | URL, init?: ToolFetchInit): Promise<Response>;
  /**
   * Reads files the calling agent staged with `POST /upload` (a key, or a `StagedFile` to open it
   * again). Unknown, expired or foreign keys throw.
   */
  files: {
    get(file: string | StagedFile): Promise<StagedFile>;
    /**
     * Stages bytes the tool produced (a download, an attachment) as a file of the calling agent,
     * read by `GET /files/{stagingKey}` until it expires. Return its answer in the tool's result.
     * The connection's secrets are masked in the bytes as they stream (`[redacted]` in a text
     * type, `*` in place in a binary one), as an upstream may have echoed them.
     */
    stage(
      body: ReadableStream<Uint8Array> | Uint8Array | string,
      options: { contentType: string; filename?: string },
    ): Promise<StagedFileReference>;
  };
  /** The connection used, or null for a toolkit without auth. Never carries the credential. */
  connection: { id: string; label: string; remoteUser: string; params: Record<string, string> } | null;
  principal: Principal;
  /** Aborted when the tool times out or the caller goes away. */
  signal: AbortSignal;
  /** The toolkit's declared rate-limit headers, for `upstreamError` to read a failure's retry hint (`request` passes them). */
  rateLimit?: RateLimitHeaders | undefined;
}

/** A tool as written with `defineTool`. */
export interface ToolDefinition<Input extends StandardSchemaV1 = StandardSchemaV1> {
  slug: string;
  name: string;
  description: string;
  /**
   * Schema of the arguments, which validates them before `run`: zod 4 (or zod 3.25+'s `zod/v4`),
   * whose JSON Schema becomes the tool's `inputParameters`, or any Standard Schema (valibot,
   * arktype, zod 3) with `inputParameters` beside it. Leave it out to validate by `inputParameters`.
   */
  input?: Input;
  /** The JSON Schema (draft 2020-12) agents see for the arguments. Made from a zod 4 `input` when left out. */
  inputParameters?: JsonSchema;
  annotations?: ToolAnnotations;
  /** OAuth scopes the tool needs. Used by `connection_id` filtering. */
  scopes?: string[];
  /**
   * Which of the connection's further tokens the tool's requests use (an OAuth mode's
   * `extraTokens` name, e.g. Slack's `user` for search, which a bot token cannot do); left out, the
   * connection's own access token.
   */
  credential?: string;
  /**
   * In the toolkit's default set: the tools an agent is handed first when it asks for the
   * toolkit's tools without a query (see `defaultFirst`). A toolkit that marks none lists all in order.
   */
  default?: boolean;
  /** Runs the tool. The returned value becomes `data` of the ExecutionResult and must be JSON-serialisable. */
  run(args: StandardOutput<Input>, ctx: ToolContext): Awaitable<unknown>;
}

/** A tool ready to serve: the schema that validates its arguments and the JSON Schema agents see. */
export interface Tool extends ToolDefinition {
  input: StandardSchemaV1;
  inputParameters: JsonSchema;
}

/** A toolkit as written with `defineToolkit`. */
export interface ToolkitDefinition {
  slug: string;
  name: string;
  description: string;
  icon?: string;
  /** Base URL(s) of the toolkit's API. Every proxied or `ctx.fetch` URL must fall under one. */
  baseUrl?: string | string[];
  /**
   * How the toolkit connects; several ways (OAuth, or a personal token) are chosen by `POST /auth { mode }`.
   * Required, except beside `mcp`, where leaving it out means the MCP authorization spec's OAuth.
   */
  auth?: AuthScheme | AuthScheme[];
  /** Headers the API requires on every request (e.g. `Notion-Version`); a caller's own value wins. */
  headers?: Record<string, string>;
  /** Values a connection needs, used in URL templates. */
  inputs?: ConnectionInput[];
  /** Words search matches besides the name, e.g. `["gh", "git"]`. */
  aliases?: string[];
  /** e.g. `["crm", "sales"]`. */
  categories?: string[];
  /** The provider's API documentation. */
  docsUrl?: string;
  /** The toolkit's tools; left out for a remote MCP toolkit (`mcp`), whose tools the server lists. */
  // biome-ignore lint/suspicious/noExplicitAny: each tool has its own input schema; `defineTool` checks each one.
  tools?: Array<Tool | ToolDefinition<any>>;
  /** Tools loaded on first use, beside `tools`: for toolkits of thousands of tools (see `LazyTools`). */
  lazy?: LazyTools;
  /**
   * A remote MCP server whose tools, listed per connection, are this toolkit's: its URL, or
   * `{ url, transport, authorizationServers }`. Without `auth`, it connects by the MCP
   * authorization spec (`mcpOAuthMode`).
   */
  mcp?: RemoteMcpEntry;
  /** With `mcp` and no `auth`: a client the deployer registered at the server's authorization server (else one is registered dynamically). */
  clientId?: string;
  /** With `mcp` and no `auth`: the secret of `clientId`, for a confidential client. */
  clientSecret?: string;
  /** With `mcp` and no `auth`: the scopes to ask for (else those the server's metadata advertises). */
  scopes?: string[];
  /** Timeout of one tool run or proxied call, in milliseconds. */
  timeoutMs?: number;
  /** Retries of this toolkit's outbound calls, replacing the handler's `retries` (`{ max: 0 }` turns them off). */
  retries?: RetryOptions;
  /**
   * The provider's own rate-limit headers (see `rateLimitHeadersSchema`): a failure's `retryAfterMs`
   * and the retries' wait come from its reset, and a 403 with none remaining is a rate limit.
   */
  rateLimit?: z.input<typeof rateLimitHeadersSchema>;
}

/** A toolkit ready to serve. */
export interface Toolkit {
  /** Marks a toolkit made by `defineToolkit` (or `defineJsonToolkit`), as opposed to a definition. */
  readonly kind: "toolkit";
  slug: string;
  name: string;
  description: string;
  icon: string;
  baseUrls: string[];
  /** The first way to connect; `authModes` holds every way. */
  auth: AuthScheme;
  authModes: AuthScheme[];
  headers: Record<string, string>;
  inputs: ConnectionInput[];
  aliases: string[];
  categories: string[];
  docsUrl?: string;
  /** The tools made at definition. With `lazy`, the toolkit's tools are these and the lazy ones (see `allTools`). */
  tools: Tool[];
  /** Tools loaded on first use; read them through `toolCount`, `toolSummaries`, `allTools` and `findTool`. */
  lazy?: LazyTools;
  /** The remote MCP server whose tools, listed per connection, are this toolkit's. */
  remote?: RemoteMcp;
  timeoutMs: number | undefined;
  /** Retries of this toolkit's outbound calls; absent: the handler's. */
  retries?: RetryOptions;
  /** The provider's declared rate-limit headers, header names lowercased; absent: only Retry-After is read. */
  rateLimit?: RateLimitHeaders;
}

const TOOLKIT_SLUG = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const TOOL_SLUG = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** Marker put in the JSON Schema of a staged-file argument, so agents can tell. */
export { STAGED_FILE_FORMAT };

/**
 * A tool argument that takes a file. Agents see a string with `format: "tools-proxy-staging-key"`
 * and pass the `stagingKey` that `POST /upload` returned; before `run` is called, the handler
 * checks that the key is the calling agent's and not expired (else `400`, and `run` is not called)
 * and hands `run` the file as a `StagedFile`: name, content type, size, and readers.
 */
export function stagedFile(description = "Staging key of a file uploaded with POST /proxy/tools/upload.") {
  return (
    z
      .string()
      .regex(STAGING_KEY_PATTERN, "must be a staging key returned by POST /upload")
      .meta({ description, format: STAGED_FILE_FORMAT, "x-tools-proxy-file": true })
      // The key is replaced by the opened file after validation (see execution/staged-args.ts).
      .transform((key) => key as unknown as StagedFile)
  );
}

/**
 * Declares a tool: checks its slug and its schemas, once, here. Its `inputParameters` is the one
 * given or made from a zod 4 `input`; a schema it cannot use is a TypeError that says what to do.
 */
export function defineTool<Input extends StandardSchemaV1>(definition: ToolDefinition<Input>): Tool {
  if (!TOOL_SLUG.test(definition.slug)) {
    throw new TypeError(`Tool slug "${definition.slug}" is invalid: use letters, digits, "_", "." or "-" (at most 128).`);
  }
  const inputParameters = inputParametersOf(definition.slug, definition.input, definition.inputParameters);
  const input = argumentsSchema(definition.slug, definition.input, inputParameters);
  // A tool already defined comes back as it is.
  if (input === definition.input && inputParameters === definition.inputParameters) return definition as Tool;
  return { ...(definition as ToolDefinition), input, inputParameters };
}

/** Declares a toolkit; validates its slug, base URLs and tools. */
export function defineToolkit(definition: ToolkitDefinition): Toolkit {
  if (!TOOLKIT_SLUG.test(definition.slug)) {
    throw new TypeError(`Toolkit slug "${definition.slug}" is invalid: use lowercase letters, digits, "_" or "-" (at most 64).`);
  }
  const remote = definition.mcp === undefined ? undefined : remoteMcpOf(definition.slug, definition.mcp);
  if (remote && (definition.baseUrl !== undefined || (definition.tools ?? []).length > 0 || definition.lazy)) {
    throw new TypeError(
      `Toolkit "${definition.slug}": a remote MCP toolkit (mcp) takes its tools and base URL from the server; leave out baseUrl, tools and lazy.`,
    );
  }
  const baseUrls = remote ? [new URL(remote.url).origin] : definition.baseUrl === undefined ? [] : [definition.baseUrl].flat();
  const hostInputs = new Set((definition.inputs ?? []).filter((input) => input.type === "host").map((input) => input.name));
  for (const base of baseUrls) assertBaseUrl(definition.slug, base, hostInputs);
  const authModes = authModesOf(definition, remote);
  assertAuthModes(definition.slug, authModes, baseUrls);
  const names = new Set<string>();
  for (const input of definition.inputs ?? []) {
    assertInput(definition.slug, input);
    if (names.has(input.name)) throw new TypeError(`Toolkit "${definition.slug}" declares input "${input.name}" twice.`);
    names.add(input.name);
  }
  assertHostPlaceholders(definition.slug, definition.inputs ?? [], baseUrls, authModes);
  assertOriginPlaceholders(definition.slug, definition.inputs ?? [], baseUrls, authModes);
  assertInputPlaces(definition.slug, definition.inputs ?? [], baseUrls, authModes);
  if (definition.retries) assertRetries(definition.slug, definition.retries);
  const rateLimit = definition.rateLimit && parseRateLimit(definition.slug, definition.rateLimit);
  const tools = (definition.tools ?? []).map((tool) => defineTool(tool));
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.slug)) throw new TypeError(`Toolkit "${definition.slug}" defines tool "${tool.slug}" twice.`);
    seen.add(tool.slug);
  }
  if (definition.lazy) assertLazyTools(definition.slug, definition.lazy, tools, (slug) => TOOL_SLUG.test(slug));
  return {
    kind: "toolkit",
    slug: definition.slug,
    name: definition.name,
    description: definition.description,
    icon: definition.icon ?? "",
    baseUrls,
    auth: authModes[0]!,
    authModes,
    headers: { ...definition.headers },
    inputs: [...(definition.inputs ?? [])],
    aliases: [...(definition.aliases ?? [])],
    categories: [...(definition.categories ?? [])],
    ...(definition.docsUrl ? { docsUrl: definition.docsUrl } : {}),
    tools,
    ...(definition.lazy ? { lazy: definition.lazy } : {}),
    ...(remote ? { remote } : {}),
    timeoutMs: definition.timeoutMs,
    ...(definition.retries ? { retries: { ...definition.retries } } : {}),
    ...(rateLimit ? { rateLimit } : {}),
  };
}

/**
 * The ways to connect: `auth` as given; beside `mcp` without `auth`, the MCP authorization spec's
 * OAuth mode for the server (with the deployer's client and scopes, when given).
 */
function authModesOf(definition: ToolkitDefinition, remote: RemoteMcp | undefined): AuthScheme[] {
  if (definition.auth !== undefined) return [definition.auth].flat();
  if (!remote) {
    throw new TypeError(`Toolkit "${definition.slug}": declare auth (e.g. none(), bearer() or oauth2({...})), how the toolkit connects.`);
  }
  return [
    mcpOAuthMode(remote.url, {
      ...(remote.authorizationServers.length ? { authorizationServers: remote.authorizationServers } : {}),
      ...(definition.clientId ? { clientId: definition.clientId } : {}),
      ...(definition.clientSecret ? { clientSecret: definition.clientSecret } : {}),
      ...(definition.scopes ? { scopes: definition.scopes } : {}),
    }),
  ];
}

/**
 * The remote MCP server of an `mcp` entry, checked: an absolute http(s) URL without user
 * information, query or fragment (its origin becomes the toolkit's base URL), a known transport,
 * and authorization servers given as http(s) origins.
 */
function remoteMcpOf(slug: string, entry: RemoteMcpEntry): RemoteMcp {
  const options = typeof entry === "string" ? { url: entry } : entry;
  if (typeof options?.url !== "string")
    throw new TypeError(`Toolkit "${slug}": mcp must be the server's URL, or { url, transport?, authorizationServers? }.`);
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new TypeError(`Toolkit "${slug}": mcp URL "${options.url}" is not an absolute URL.`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new TypeError(`Toolkit "${slug}": mcp URL "${options.url}" must use http or https.`);
  if (url.username || url.password || url.search || url.hash || options.url.includes("#")) {
    throw new TypeError(`Toolkit "${slug}": mcp URL "${options.url}" must not contain credentials, a query or a fragment.`);
  }
  const transport = options.transport ?? "streamable-http";
  if (transport !== "streamable-http" && transport !== "sse") {
    throw new TypeError(`Toolkit "${slug}": mcp transport "${String(transport)}" is unknown; use "streamable-http" or "sse".`);
  }
  const authorizationServers = (options.authorizationServers ?? []).map((server) => authorizationServerOrigin(slug, server));
  return { url: url.href, transport, authorizationServers };
}

function authorizationServerOrigin(slug: string, server: string): string {
  let url: URL | undefined;
  try {
    url = new URL(server);
  } catch {}
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.username || url.password) {
    throw new TypeError(`Toolkit "${slug}": mcp authorizationServers entry "${server}" must be an http(s) URL.`);
  }
  return url.origin;
}

function assertAuthModes(slug: string, modes: AuthScheme[], baseUrls: string[]): void {
  if (modes.length === 0) throw new TypeError(`Toolkit "${slug}": auth must name at least one way to connect.`);
  const ids = new Set<string>();
  let oauth = 0;
  for (const mode of modes) {
    const id = modeId(mode);
    if (!MODE_ID.test(id)) {
      throw new TypeError(
        `Toolkit "${slug}": mode id "${id}" is invalid: start with a letter, then letters, digits, "_" or "-" (at most 64).`,
      );
    }
    if (ids.has(id)) {
      const hint = mode.mode === undefined ? `give one a "mode" id of its own (e.g. "${mode.type}2")` : "give each its own";
      throw new TypeError(`Toolkit "${slug}": auth lists the mode "${id}" twice; ${hint}.`);
    }
    ids.add(id);
    if (mode.type === "oauth2") {
      // The OAuth callback, refresh and revocation use the toolkit's one OAuth 2 mode.
      if (mode.clientIdParam !== undefined && !/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(mode.clientIdParam)) {
        throw new TypeError(`Toolkit "${slug}": clientIdParam "${mode.clientIdParam}" must be a parameter name.`);
      }
      if (++oauth > 1) throw new TypeError(`Toolkit "${slug}": auth lists two OAuth 2 modes; a toolkit has at most one.`);
      assertOAuthEndpoints(slug, mode);
    }
    assertGrantMode(slug, mode);
    assertValueRules(slug, mode);
    // Beside a token, placements may not name the token's own header (its `placement`, default Authorization).
    const tokenHeader = "placements" in mode ? credentialHeader({ ...mode, placements: undefined } as AuthScheme) : null;
    const placed = mode.type === "none" ? null : placementsDefinitionProblem(mode, baseUrls, tokenHeader);
    if (placed) throw new TypeError(`Toolkit "${slug}": auth mode "${id}": ${placed}.`);
  }
  if (modes.some((mode) => mode.type === "none") && modes.length > 1)
    throw new TypeError(`Toolkit "${slug}": auth "none" cannot be one of several modes.`);
}

/**
 * A host input fills only an OAuth endpoint whose whole host it is, and such an endpoint's
 * placeholder must be a host input: a label never becomes a whole host, a host never a subdomain.
 */
function assertHostPlaceholders(slug: string, inputs: ConnectionInput[], baseUrls: string[], modes: AuthScheme[]): void {
  const hosts = new Set(inputs.filter((input) => input.type === "host").map((input) => input.name));
  const endpoints = modes.flatMap((mode) =>
    mode.type === "oauth2"
      ? [mode.authorizationUrl, mode.tokenUrl, mode.refreshUrl, mode.revocationUrl, mode.userInfoUrl]
      : grantEndpoints(mode),
  );
  const wholeHosts = new Set<string>();
  for (const url of endpoints) {
    const name = url === undefined ? undefined : wholeHostPlaceholder(url);
    if (name === undefined) continue;
    if (!hosts.has(name)) {
      throw new TypeError(
        `Toolkit "${slug}": OAuth endpoint "${url}" lets {${name}} choose its whole host; declare ${name} as an input of type "host" with its hosts.`,
      );
    }
    wholeHosts.add(name);
  }
  const templates = [...baseUrls, ...endpoints].filter((url): url is string => url !== undefined);
  for (const name of hosts) {
    const elsewhere = templates.find((url) => url.includes(`{${name}}`) && wholeHostPlaceholder(url) !== name);
    if (elsewhere) {
      throw new TypeError(
        `Toolkit "${slug}": host input "${name}" may only be the whole host of an OAuth endpoint (https://{${name}}/...), not part of "${elsewhere}".`,
      );
    }
  }
}

/** Whether an OAuth 2 mode sends any request to an origin a connection names (`{instance}/oauth/token`). */
export function oauthEndpointUnderOrigin(mode: OAuth2Scheme): boolean {
  return [mode.authorizationUrl, mode.tokenUrl, mode.refreshUrl, mode.revocationUrl, mode.userInfoUrl].some(
    (url) => url !== undefined && ORIGIN_PLACEHOLDER.test(url),
  );
}

/** Whether the toolkit lets a connection name its origin (an input of type `origin`). */
export function hasOriginInput(toolkit: Pick<Toolkit, "inputs">): boolean {
  return (toolkit.inputs ?? []).some((input) => input.type === "origin");
}

/**
 * An origin input fills only the start of a template (`{instance}/api/v4`), and a template may
 * begin with a placeholder only when it is an origin input: a label never becomes an origin.
 */
function assertOriginPlaceholders(slug: string, inputs: ConnectionInput[], baseUrls: string[], modes: AuthScheme[]): void {
  const origins = new Set(inputs.filter((input) => input.type === "origin").map((input) => input.name));
  const endpoints = modes.flatMap((mode) =>
    mode.type === "oauth2" ? [mode.authorizationUrl, mode.tokenUrl, mode.refreshUrl, mode.revocationUrl, mode.userInfoUrl] : [],
  );
  for (const mode of modes) {
    if (mode.type !== "oauth2" || !oauthEndpointUnderOrigin(mode)) continue;
    // A connection names the origin, so anything the token endpoint is sent goes to a server it chose.
    if (mode.clientSecret || (mode.tokenEndpointAuthMethod ?? "none") !== "none") {
      throw new TypeError(
        `Toolkit "${slug}": OAuth endpoints under an origin input would send the client's secret to any server a connection names; ` +
          "use a public client (no clientSecret, PKCE), or give the instance's own URLs instead of the origin input.",
      );
    }
  }
  for (const url of [...baseUrls, ...endpoints]) {
    if (url === undefined) continue;
    const leading = ORIGIN_PLACEHOLDER.exec(url)?.[1];
    if (leading !== undefined && !origins.has(leading)) {
      throw new TypeError(`Toolkit "${slug}": "${url}" begins with {${leading}}; declare ${leading} as an input of type "origin".`);
    }
    for (const name of origins) {
      if (url.slice(leading === name ? name.length + 2 : 0).includes(`{${name}}`)) {
        throw new TypeError(`Toolkit "${slug}": origin input "${name}" may only begin a URL ({${name}}/path), not appear inside "${url}".`);
      }
    }
  }
}

/**
 * Compiles every value rule's pattern of a way to connect (what a token answer, the redirect or an
 * account lookup must hold), so that one RE2 cannot match in linear time is refused here, not
 * when a provider's answer arrives.
 */
function assertValueRules(slug: string, mode: AuthScheme): void {
  const lookups = "identify" in mode && mode.identify !== undefined && typeof mode.identify !== "function" ? [mode.identify].flat() : [];
  const groups: Array<[string, Record<string, ValueRule> | undefined]> = [
    ["tokenConfig", "tokenConfig" in mode ? mode.tokenConfig : undefined],
    ["callbackConfig", "callbackConfig" in mode ? mode.callbackConfig : undefined],
    ...lookups.map((lookup, i): [string, Record<string, ValueRule> | undefined] => [`identify[${i}].config`, lookup.config]),
  ];
  for (const [where, rules] of groups) {
    for (const [name, rule] of Object.entries(rules ?? {})) {
      if (typeof rule === "string") continue;
      try {
        linearPattern(rule.pattern);
      } catch (error) {
        throw new TypeError(`Toolkit "${slug}": auth "${modeId(mode)}" ${where}.${name}: ${(error as Error).message}.`, { cause: error });
      }
    }
  }
}

function assertRetries(slug: string, retries: RetryOptions): void {
  if (!retriesSchema.safeParse(retries).success) {
    throw new TypeError(
      `Toolkit "${slug}": retries must be { max: 0 to 10, baseDelayMs?: positive integer, maxDelayMs?: positive integer }.`,
    );
  }
}

function parseRateLimit(slug: string, rateLimit: unknown): RateLimitHeaders {
  const parsed = rateLimitHeadersSchema.safeParse(rateLimit);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new TypeError(`Toolkit "${slug}": ${["rateLimit", ...issue.path].join(".")} ${issue.message}.`);
}

function assertBaseUrl(slug: string, template: string, hostInputs: ReadonlySet<string>): void {
  // A base URL whose whole host is a `host` input (Datadog's site, Wrike's host) is checked with a stand-in host.
  const whole = wholeHostPlaceholder(template);
  const base = whole !== undefined && hostInputs.has(whole) ? template.replace(`{${whole}}`, "host.example") : template;
  // Placeholders such as {subdomain} are filled from the connection; check the shape with a stand-in.
  const probe = base.replace(ORIGIN_PLACEHOLDER, "https://origin.example").replace(/\{[A-Za-z0-9_]+\}/g, "placeholder");
  let url: URL;
  try {
    url = new URL(probe);
  } catch {
    throw new TypeError(`Toolkit "${slug}": baseUrl "${base}" is not an absolute URL.`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TypeError(`Toolkit "${slug}": baseUrl "${base}" must use http or https.`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new TypeError(`Toolkit "${slug}": baseUrl "${base}" must not contain credentials, a query or a fragment.`);
  }
  const problem = baseUrlTemplateProblem(base);
  if (problem) throw new TypeError(`Toolkit "${slug}": baseUrl "${base}" ${problem}`);
}

/**
 * The scheme a connection uses: the toolkit's mode of the id its credential names (`mode`), else
 * of its credential's type (a GitHub connection made with a personal token uses the bearer mode),
 * else the toolkit's first.
 */
export function schemeFor(toolkit: Pick<Toolkit, "auth" | "authModes">, type: AuthScheme["type"] | undefined, mode?: string): AuthScheme {
  return (
    (mode === undefined ? undefined : toolkit.authModes.find((m) => modeId(m) === mode && m.type === type)) ??
    toolkit.authModes.find((m) => m.type === type) ??
    toolkit.auth
  );
}

/** The toolkit's OAuth 2 mode, if it has one. */
export function oauthMode(toolkit: Pick<Toolkit, "authModes">): OAuth2Scheme | undefined {
  return toolkit.authModes.find((mode): mode is OAuth2Scheme => mode.type === "oauth2");
}
