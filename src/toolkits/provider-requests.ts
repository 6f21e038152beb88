import { parseAnswerJson } from "../core/json-depth.js";
import { type RateLimitHeaders, retryHintOf } from "../core/rate-limit-headers.js";
import { invalidArguments, ToolRunError } from "../core/tool-error.js";
import { concatBytes } from "../util/bytes.js";
import type { ToolContext } from "./define.js";
import { serializeQuery } from "./serialize.js";

/** How one provider words its failures: its name in messages, where its error body keeps the reason, any advice of its own. */
export interface ProviderErrors {
  name: string;
  /**
   * The provider's own explanation in a parsed JSON error body, or undefined when it has none
   * (the body's text is quoted then). Without it, the common shapes are read (see `commonReason`).
   */
  reason?(body: unknown): string | undefined;
  /** Advice that replaces the general advice of `HINTS` for a status. */
  hints?: Readonly<Partial<Record<number, string>>>;
}

/** Query values: undefined and null are left out, an array repeats the name. */
export type QueryValues = Record<string, string | number | boolean | readonly string[] | undefined | null>;

/** One request to a provider, relative to the toolkit's base URL (or absolute, under one of its base URLs). */
export interface ProviderRequest {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  query?: QueryValues;
  headers?: Record<string, string>;
  /** Sent as JSON, with `content-type: application/json`. */
  json?: unknown;
  /** Sent as it is (bytes, a form); its content type goes in `headers`. */
  body?: BodyInit;
}

/**
 * Sends one request through `ctx.fetch` (which adds the credential and keeps to the toolkit's base
 * URLs) and returns the response, or throws `upstreamError(response, provider)` for an answer
 * outside 2xx.
 */
export async function request(ctx: ToolContext, provider: ProviderErrors, path: string, options: ProviderRequest = {}): Promise<Response> {
  const headers = { ...options.headers };
  if (options.json !== undefined) headers["content-type"] = "application/json";
  const response = await ctx.fetch(withQuery(path, options.query), {
    method: options.method ?? "GET",
    headers,
    body: options.json !== undefined ? JSON.stringify(options.json) : options.body,
    signal: ctx.signal,
  });
  if (!response.ok) throw await upstreamError(response, provider, ctx.rateLimit);
  return response;
}

/**
 * `request` asking for JSON (`accept: application/json` unless `headers` say otherwise): the
 * parsed answer, its text when it is not JSON, or null for an empty one (202, 204).
 */
export async function requestJson<T = unknown>(
  ctx: ToolContext,
  provider: ProviderErrors,
  path: string,
  options: ProviderRequest = {},
): Promise<T> {
  const response = await request(ctx, provider, path, { ...options, headers: { accept: "application/json", ...options.headers } });
  const text = await response.text();
  return (text === "" ? null : parseAnswerJson(text)) as T;
}

/**
 * `path?query`, written as the OpenAPI runner writes a `form` query parameter (`serializeQuery`):
 * names and values percent-encoded but for RFC 3986's unreserved characters (a space is `%20`),
 * an array repeating the name, undefined and null left out.
 */
export function withQuery(path: string, query: QueryValues = {}): string {
  const pairs = Object.entries(query).flatMap(([name, value]) =>
    value === undefined || value === null ? [] : serializeQuery({ in: "query", name }, value),
  );
  return pairs.length ? `${path}?${pairs.join("&")}` : path;
}

/** A value for one path segment, encoded; "." and ".." are refused, as they would climb the path. */
export function segment(value: string | number): string {
  if (value === "." || value === "..") throw invalidArguments(`"${value}" is not an id; pass the id the provider gave the object.`);
  return encodeURIComponent(String(value));
}

/** What to do about a failure, by status, in words an agent can act on; `name` is the provider's. */
const HINTS: Record<number, (name: string) => string> = {
  400: () => "Correct the arguments as the message says and call again.",
  401: (name) => `The ${name} connection's credential was refused: reconnect it with POST /auth and call again.`,
  403: (name) =>
    `The ${name} connection lacks a permission or scope for this, or a rate limit was hit; check access or reconnect with the needed scopes.`,
  404: () => "Check the id (list or search to find it), and that the connected account can see the object.",
  409: () => "It conflicts with an existing object or a newer version (the message says which): read that object, then update it or retry.",
  412: () => "The resource changed or conflicts; fetch it again and retry.",
  422: () => "Fix the arguments named in the message and call again.",
  429: (name) => `${name} is rate limiting: wait (retryAfterMs says how long, when known) and call again.`,
};

function hintFor(status: number, provider: ProviderErrors): string {
  const hint = provider.hints?.[status] ?? HINTS[status]?.(provider.name);
  return hint ?? (status >= 500 ? `${provider.name} had a server error; try again later.` : "");
}

/** The message in the common JSON error shapes: `error.message` (Google, Graph), `error` with `error_description` (OAuth), `message` with `errors` (GitHub). */
function commonReason(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") {
    return (error as { message: string }).message;
  }
  if (typeof error === "string") return typeof record.error_description === "string" ? `${error}: ${record.error_description}` : error;
  if (typeof record.message !== "string") return undefined;
  const details = (
    Array.isArray(record.errors) ? (record.errors as Array<string | { message?: string; field?: string; code?: string } | null>) : []
  )
    .map((item) => (typeof item === "string" ? item : (item?.message ?? [item?.field, item?.code].filter(Boolean).join(" "))))
    .filter(Boolean);
  return details.length ? `${record.message} (${details.join("; ")})` : record.message;
}

/** Longest body quoted in a failure without a provider, in characters: a result's `error` keeps 500. */
const QUOTED_BODY_CHARS = 500;
/** Longest reason quoted in a provider's failure, so that the advice after it fits in those 500. */
const QUOTED_REASON_CHARS = 300;
/** Bytes read from an upstream error body, at most: enough for the quote, never the whole of a huge body. */
const READ_BYTES = 8 * 1024;

/**
 * The ToolRunError (`upstream_error`) for an answer outside 2xx, with the status, whether it is
 * retryable and how long to wait (`retryHintOf`: Retry-After, or the reset of the toolkit's
 * declared `rateLimit` headers, which also make a 403 with none remaining a rate limit, advised
 * as a 429 is); reads at most 8 KiB of the body. Without a provider (a JSON
 * toolkit's tool): "Upstream answered 404 Not Found: <the body, at most 500 characters>". With one:
 * "<name> answered 404 Not Found: <its reason, at most 300>. <what to do>", the reason read from a
 * JSON body by `provider.reason`, or else the body's text.
 */
export async function upstreamError(response: Response, provider?: ProviderErrors, rateLimit?: RateLimitHeaders): Promise<ToolRunError> {
  const { retryable, retryAfterMs } = retryHintOf(response, rateLimit);
  const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
  const text = await readStart(response);
  const raw = text.replace(/\s+/g, " ").trim();
  let message: string;
  if (!provider) message = `Upstream answered ${status}${raw ? `: ${quoted(raw, QUOTED_BODY_CHARS)}` : "."}`;
  else {
    const json = text === "" ? null : parseAnswerJson(text);
    const reason = ((provider.reason ?? commonReason)(json) ?? raw).trim().replace(/[.\s]+$/, "");
    // A 403 that is the provider's rate limit gets the advice of a 429, not of a missing permission.
    const hint = hintFor(response.status === 403 && retryable ? 429 : response.status, provider);
    message = `${provider.name} answered ${status}${reason ? `: ${quoted(reason, QUOTED_REASON_CHARS)}` : ""}.${hint ? ` ${hint}` : ""}`;
  }
  return new ToolRunError(message, {
    code: "upstream_error",
    retryable,
    upstreamStatus: response.status,
    retryAfterMs,
  });
}

function quoted(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The text of the body's first `READ_BYTES` bytes; the rest is cancelled. */
async function readStart(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < READ_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } catch {
    // A quote is a courtesy; a broken body must not hide the status.
  } finally {
    reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(concatBytes(chunks, size));
}
