import { ToolRunError } from "../core/tool-error.js";
import { isHeaderValue, isReservedHeader } from "../outbound/headers.js";
import { encodeBody } from "./request-body.js";
import { type ParameterStyle, serializeCookie, serializeHeader, serializePath, serializeQuery } from "./serialize.js";

/** One declared parameter: where it goes, its wire `name`, how it is written, and the argument holding it (`arg`, default `name`). */
export interface ParameterSpec extends ParameterStyle {
  arg?: string;
}

/** How a tool of a JSON toolkit builds its request, declared (as an OpenAPI import writes it) instead of inferred. */
export interface RequestSpec {
  parameters?: ParameterSpec[];
  /** The body: the argument `arg` as a whole, or an object of `fields` (`{ bodyProperty: argName }`). */
  body?: { contentType: string; arg?: string; fields?: Record<string, string> };
  /** How the answer is read; `auto` by its Content-Type. */
  response?: "auto" | "json" | "text" | "file";
}

/** What `ctx.fetch` is given: the path and query (after the base URL), headers, a Cookie, a body. */
export interface BuiltRequest {
  pathAndQuery: string;
  headers: Record<string, string>;
  cookie?: string;
  body?: BodyInit;
  contentLength?: number;
}

/** `{name}` in a declared path: any characters but braces and slashes, as OpenAPI path templates allow. */
export const TEMPLATE = /\{([^{}/]+)\}/g;
/** Headers the runner sets from the tool's declaration, never from an argument. */
const RUNNER_HEADERS = new Set(["accept", "content-type"]);

function invalid(message: string): ToolRunError {
  return new ToolRunError(message, { code: "invalid_arguments" });
}

/** Undefined, null and an empty array send nothing (RFC 6570 treats them as undefined). */
function absent(value: unknown): boolean {
  return value === undefined || value === null || (Array.isArray(value) && value.length === 0);
}

/**
 * Builds the request a declared tool sends: path placeholders filled and query, header and cookie
 * parameters written per their OpenAPI style (see serialize.ts), and the body encoded per its
 * content type. Only arguments the declaration names are sent. A missing path value, a header
 * argument for a header tools-proxy sets itself (`credentialHeaders`, the forbidden and hop-by-hop
 * ones of the outbound header policy, Accept, Content-Type) or a header value with a line break is
 * an `invalid_arguments` error.
 */
export function buildRequest(
  path: string,
  spec: RequestSpec,
  args: Record<string, unknown>,
  credentialHeaders: readonly string[],
): BuiltRequest {
  const parameters = spec.parameters ?? [];
  const argOf = (param: ParameterSpec) => args[param.arg ?? param.name];
  const filled = path.replace(TEMPLATE, (_, name: string) => {
    const param = parameters.find((p) => p.in === "path" && p.name === name)!;
    const value = argOf(param);
    if (absent(value) || value === "") {
      throw invalid(`Argument "${param.arg ?? name}" is required: it fills {${name}} in the request path.`);
    }
    return serializePath(param, value);
  });
  // Encoding leaves "." alone, and a whole "." or ".." segment would climb out of the path.
  if (filled.split("/").some((segment) => segment === "." || segment === "..")) {
    throw invalid(`The path arguments must not make a "." or ".." segment of the request path.`);
  }
  const query: string[] = [];
  const cookies: string[] = [];
  const headers: Record<string, string> = {};
  for (const param of parameters) {
    const value = argOf(param);
    if (param.in === "path" || absent(value)) continue;
    if (param.in === "query") query.push(...serializeQuery(param, value));
    else if (param.in === "cookie") cookies.push(...serializeCookie(param, value));
    else headers[param.name] = headerValue(param, value, credentialHeaders);
  }
  const built: BuiltRequest = { pathAndQuery: query.length ? `${filled}?${query.join("&")}` : filled, headers };
  if (cookies.length) built.cookie = cookies.join("; ");
  const body = bodyValue(spec.body, args);
  if (spec.body && body !== undefined) {
    const encoded = encodeBody(spec.body.contentType, body, spec.body.arg ? `Argument "${spec.body.arg}"` : "The body");
    headers["content-type"] = encoded.contentType;
    built.body = encoded.body ?? undefined;
    if (encoded.contentLength !== undefined) built.contentLength = encoded.contentLength;
  }
  return built;
}

function headerValue(param: ParameterSpec, value: unknown, credentialHeaders: readonly string[]): string {
  const lower = param.name.toLowerCase();
  const arg = param.arg ?? param.name;
  if (isReservedHeader(lower, null) || RUNNER_HEADERS.has(lower) || credentialHeaders.includes(lower)) {
    throw invalid(
      `Argument "${arg}" cannot be sent: the header "${param.name}" is set by tools-proxy (the connection's credential or the request's framing), never by an argument. Leave it out.`,
    );
  }
  const text = serializeHeader(param, value);
  if (!isHeaderValue(text)) throw invalid(`Argument "${arg}" has a line break, control character or non-Latin-1 character; remove it.`);
  return text;
}

/**
 * The body's value: the whole `arg` (undefined: no body), or an object of the `fields`, where an
 * absent argument is an undefined property that every encoding leaves out.
 */
function bodyValue(body: RequestSpec["body"], args: Record<string, unknown>): unknown {
  if (!body) return undefined;
  if (body.arg !== undefined) return args[body.arg] ?? undefined;
  return Object.fromEntries(Object.entries(body.fields ?? {}).map(([property, arg]) => [property, args[arg]]));
}
