import { isRetryableStatus, parseRetryAfter, ToolRunError } from "../../core/tool-error.js";
import type { ToolContext } from "../../toolkits/define.js";
import { fromBase64Url, toBase64Url } from "../../util/encoding.js";

/** A query string from the values that are set; arrays repeat the name. Starts with `?` unless empty. */
export function query(values: Record<string, string | number | boolean | string[] | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) params.append(name, item);
    else params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

// One path-segment encoder for every curated tool: it also refuses "." and "..".
export { segment } from "./requests.js";

/** What to do about an upstream failure, by status, in the words an agent can act on. */
function hintFor(status: number, app: string): string {
  if (status === 401) return `The ${app} connection's credential was refused; reconnect it.`;
  if (status === 403)
    return `The ${app} connection lacks a permission or scope for this, or a rate limit was hit; check access or reconnect with the needed scopes.`;
  if (status === 404) return "Check the identifiers: the resource does not exist or this connection cannot see it.";
  if (status === 409 || status === 412) return "The resource changed or conflicts; fetch it again and retry.";
  if (status === 422 || status === 400) return "Fix the arguments named in the message and call again.";
  if (status === 429) return "Rate limited: wait (see retryAfterMs) and call again.";
  if (status >= 500) return `${app} had a server error; try again later.`;
  return "";
}

/** The message inside a JSON error body: GitHub's `message` (and `errors`), Google's `error.message`. */
function messageOf(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") {
    return (error as { message: string }).message;
  }
  if (typeof error === "string") return typeof record.error_description === "string" ? `${error}: ${record.error_description}` : error;
  if (typeof record.message !== "string") return undefined;
  const details = Array.isArray(record.errors)
    ? record.errors
        .map((item) => (typeof item === "string" ? item : (item as { message?: string; field?: string; code?: string })))
        .map((item) => (typeof item === "string" ? item : (item.message ?? [item.field, item.code].filter(Boolean).join(" "))))
        .filter(Boolean)
    : [];
  return details.length ? `${record.message} (${details.join("; ")})` : record.message;
}

/**
 * The failure for a non-2xx answer: "<App> answered 404 Not Found: <its message>. <what to do>",
 * with `upstream_error`, the status, whether it is retryable and the Retry-After delay.
 */
export async function upstreamFailure(response: Response, app: string): Promise<ToolRunError> {
  const text = await response.text().catch(() => "");
  let detail: string | undefined;
  try {
    detail = messageOf(JSON.parse(text));
  } catch {
    detail = undefined;
  }
  detail = (detail ?? text).replace(/\s+/g, " ").trim().slice(0, 300).replace(/\.+$/, "");
  const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
  const hint = hintFor(response.status, app);
  return new ToolRunError(`${app} answered ${status}${detail ? `: ${detail}` : ""}.${hint ? ` ${hint}` : ""}`, {
    code: "upstream_error",
    retryable: isRetryableStatus(response.status),
    upstreamStatus: response.status,
    retryAfterMs: parseRetryAfter(response.headers.get("retry-after")),
  });
}

/** Sends a request through the connection and returns the response, or throws the upstream failure. */
export async function send(ctx: ToolContext, app: string, url: string, init: RequestInit = {}): Promise<Response> {
  const response = await ctx.fetch(url, init);
  if (!response.ok) throw await upstreamFailure(response, app);
  return response;
}

/** Sends a request and reads its JSON answer (null for an empty body). */
export async function sendJson<T = unknown>(ctx: ToolContext, app: string, url: string, init: RequestInit = {}): Promise<T> {
  const response = await send(ctx, app, url, init);
  const text = await response.text();
  return (text ? JSON.parse(text) : null) as T;
}

/** A JSON request body with its content type, and any other headers. */
export function jsonBody(method: string, body: unknown, headers: Record<string, string> = {}): RequestInit {
  return { method, headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) };
}

/** A tool's input failure: code `invalid_arguments`, with what to change. */
export function invalidArguments(message: string): ToolRunError {
  return new ToolRunError(message, { code: "invalid_arguments" });
}

/** Base64 or base64url text (with or without padding and line breaks) as bytes. */
export function decodeBase64(text: string): Uint8Array {
  return fromBase64Url(text.replace(/\s+/g, ""));
}

/** Bytes as base64url without padding, as Gmail's `raw` wants it. */
export function encodeBase64Url(bytes: Uint8Array | string): string {
  return toBase64Url(bytes);
}

/** The text of bytes that are UTF-8 without NUL characters, or null when they look binary. */
export function utf8Text(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Cuts long text for a listing, saying that it was cut. */
export function excerpt(text: string | null | undefined, max = 500): string | null {
  if (!text) return null;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const CONTENT_TYPES: Record<string, string> = {
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  html: "text/html",
  json: "application/json",
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  svg: "image/svg+xml",
  webp: "image/webp",
  zip: "application/zip",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
};

/** A content type for a file name, by its extension; `application/octet-stream` when unknown. */
export function contentTypeFor(filename: string): string {
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase();
  return (extension && CONTENT_TYPES[extension]) || "application/octet-stream";
}
