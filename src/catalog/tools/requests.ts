import { z } from "zod";
import { isRetryableStatus, parseRetryAfter, ToolRunError } from "../../core/tool-error.js";
import type { ToolContext } from "../../toolkits/define.js";

/** How one provider words its failures: its name in messages, and where its error body keeps the reason. */
export interface ProviderErrors {
  name: string;
  /** The provider's own explanation from a parsed error body, or undefined when it has none. */
  reason(body: unknown): string | undefined;
}

/** One JSON call relative to the toolkit's base URL. */
export interface ApiRequest {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Undefined values are left out; arrays repeat the parameter. */
  query?: Record<string, string | number | boolean | string[] | undefined>;
  /** Sent as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * Sends one request through `ctx.fetch` (which resolves `path` against the toolkit's base URL and
 * adds the credential) and returns the parsed JSON answer, or null for an empty one (202, 204). An
 * answer of 400 or more throws a ToolRunError (`upstream_error`) that quotes the provider's own
 * reason and says what to do next.
 */
export async function requestJson(ctx: ToolContext, provider: ProviderErrors, path: string, request: ApiRequest = {}): Promise<unknown> {
  const headers: Record<string, string> = { accept: "application/json", ...request.headers };
  if (request.body !== undefined) headers["content-type"] = "application/json";
  const response = await ctx.fetch(withQuery(path, request.query), {
    method: request.method ?? "GET",
    headers,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    signal: ctx.signal,
  });
  const text = await response.text();
  let body: unknown = null;
  if (text !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  if (response.status >= 400) throw providerError(provider, response, body);
  return body;
}

/** `path?query`, the query's undefined values left out. */
export function withQuery(path: string, query: ApiRequest["query"] = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** A value for one path segment, encoded; "." and ".." are refused, as they would climb the path. */
export function segment(value: string | number): string {
  if (value === "." || value === "..") {
    throw new ToolRunError(`"${value}" is not an id; pass the id the provider gave the object.`, { code: "invalid_arguments" });
  }
  return encodeURIComponent(String(value));
}

const NEXT_STEP: Record<number, string> = {
  400: "Correct the arguments as the message says and call again.",
  401: "The connection's credential was refused: reconnect the toolkit with POST /auth and call again.",
  403: "The connection lacks permission for this: reconnect with the needed scopes, or ask for access to the object.",
  404: "Check the id (list or search to find it), and that the connected account can see the object.",
  409: "It conflicts with an existing object or a newer version (the message says which): read that object, then update it or retry.",
  422: "Correct the arguments as the message says and call again.",
  429: "The provider is rate limiting: wait (retryAfterMs says how long, when known) and call again.",
};

function providerError(provider: ProviderErrors, response: Response, body: unknown): ToolRunError {
  const reason = provider.reason(body) ?? (typeof body === "string" && body ? body.slice(0, 300) : undefined);
  const next = NEXT_STEP[response.status] ?? (response.status >= 500 ? "The provider failed: try again later." : "");
  const message = `${provider.name} answered ${response.status}${reason ? `: ${reason.trim().replace(/[.\s]+$/, "")}` : ""}.${next ? ` ${next}` : ""}`;
  return new ToolRunError(message, {
    code: "upstream_error",
    retryable: isRetryableStatus(response.status),
    upstreamStatus: response.status,
    retryAfterMs: parseRetryAfter(response.headers.get("retry-after")),
  });
}

/** Reads `key` of an object, or undefined. */
export function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
}

/** The argument of a page size: an integer from 1 to `max`. */
export function pageSize(max: number, fallback: number) {
  return z
    .number()
    .int()
    .min(1)
    .max(max)
    .default(fallback)
    .describe(`How many items to return in this page (1 to ${max}, default ${fallback}).`);
}

/** The argument that continues a listing: the `nextCursor` of the previous result. */
export const cursorArgument = z
  .string()
  .min(1)
  .max(4096)
  .optional()
  .describe("The nextCursor of a previous result, to get the next page. Leave it out for the first page.");
