import type { z } from "zod";
import { BodyTooLargeError, readBytes } from "../util/bytes.js";
import { ToolsError } from "./errors.js";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "./json-depth.js";
import { wholeBodyOf, wholeResponse } from "./whole-bodies.js";

const JSON_TYPE = "application/json; charset=utf-8";
const encoder = new TextEncoder();
/** The decoder of nearly every JSON body, made once: a fatal decoder without `stream` keeps no state between calls. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A JSON response. It carries its Content-Length, so a Node server sends it whole instead of
 * chunked: one write fewer per response (the chunked terminator), and clients see the size. It is
 * a `wholeResponse`: the Node bridge writes its bytes without building a `Response` at all.
 */
export function json(body: unknown, status = 200, headers?: HeadersInit): Response {
  const bytes = encoder.encode(JSON.stringify(body));
  const fields: Record<string, string> = { "content-type": JSON_TYPE, "content-length": String(bytes.length) };
  if (headers) for (const [name, value] of new Headers(headers)) fields[name] = value;
  return wholeResponse(bytes, status, fields);
}

/** Largest JSON request body the API reads (1 MiB); larger bodies are a 413. */
export const MAX_JSON_BYTES = 1024 * 1024;

/**
 * Reads the body as JSON and validates it with `schema`. Reads at most `maxBytes`, counting bytes
 * as they arrive rather than trusting Content-Length; a body nested more than `MAX_JSON_DEPTH`
 * deep is a 400 naming the limit, before anything parses or walks it.
 */
export async function readJson<S extends z.ZodType>(request: Request, schema: S, maxBytes = MAX_JSON_BYTES): Promise<z.output<S>> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw new ToolsError("unsupported_media_type", "Send the request body as JSON with the header `Content-Type: application/json`.");
  }
  refuseContentEncoding(request);
  const text = await readText(request, decoderFor(type), maxBytes);
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new ToolsError(
      "invalid_request",
      `The JSON body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep; send it with at most ${MAX_JSON_DEPTH}.`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ToolsError("invalid_request", "The request body is not valid JSON.");
  }
  return validate(schema, value, "body");
}

/**
 * Validates the query string with `schema`. Every parameter is single-valued, so one given twice
 * (`limit=1&limit=2`) is a 400 rather than a silent choice of one of them.
 */
export function readQuery<S extends z.ZodType>(url: URL, schema: S): z.output<S> {
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (Object.hasOwn(query, name))
      throw new ToolsError("invalid_request", `The query parameter ${echo(name)} is given more than once; send it once.`);
    query[name] = value;
  }
  return validate(schema, query, "query");
}

/**
 * A value the caller sent, quoted for an error message and cut to `max` characters, so that an
 * answer never grows with the input (a 15,000-character slug gives a short error).
 */
export function echo(value: string, max = 64): string {
  return JSON.stringify(cut(value, max));
}

/** `value` cut to `max` characters (with "…"), for echoing caller input in a message. */
export function cut(value: string, max = 64): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/** Parses `value` or throws a 400 whose message names each failing field. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ToolsError("invalid_request", describeIssues(result.error.issues, where));
}

/** One sentence per failing field, e.g. `body.limit: Too big: expected number to be <=200`. */
export function describeIssues(issues: z.core.$ZodIssue[], where: string): string {
  const parts = issues.slice(0, 10).map((issue) => {
    const path = issue.path.length ? `${where}.${issue.path.map(String).join(".")}` : where;
    return `${path}: ${issue.message}`;
  });
  const more = issues.length > 10 ? ` (and ${issues.length - 10} more)` : "";
  return `Invalid ${where}. ${parts.join("; ")}${more}.`;
}

/**
 * Refuses a compressed request body (415): the API reads bodies as sent, and counting limits on
 * decompressed bytes is not worth a zip bomb's risk.
 */
export function refuseContentEncoding(request: Request): void {
  const encoding = request.headers.get("content-encoding")?.trim().toLowerCase();
  if (encoding && encoding !== "identity") {
    throw new ToolsError("unsupported_media_type", `Content-Encoding ${echo(encoding)} is not supported; send the body uncompressed.`);
  }
}

/**
 * The decoder of a JSON body: UTF-8 without a charset (JSON's own encoding, RFC 8259), else the
 * charset named, if it is one the Encoding standard knows (415 if not). Bytes that are not valid
 * in it are a 400, never replaced with U+FFFD and stored.
 */
function decoderFor(contentType: string): TextDecoder {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType)?.[1] ?? "utf-8";
  if (/^utf-?8$/i.test(charset)) return UTF8;
  try {
    return new TextDecoder(charset, { fatal: true });
  } catch {
    throw new ToolsError("unsupported_media_type", `The charset ${echo(charset)} is not supported; send the JSON body as UTF-8.`);
  }
}

async function readText(request: Request, decoder: TextDecoder, maxBytes: number): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = wholeBodyOf(request) ?? (await readBytes(request.body, maxBytes));
    if (bytes.byteLength > maxBytes) throw new BodyTooLargeError(maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      throw new ToolsError("payload_too_large", `The JSON body is larger than ${maxBytes} bytes; send a smaller request.`);
    }
    if (error instanceof ToolsError) throw error;
    // The client went away or the connection broke mid-body: the caller's doing, not a server fault.
    throw new ToolsError("invalid_request", "The request body ended before it was complete; send the request again.", { cause: error });
  }
  try {
    return decoder.decode(bytes);
  } catch {
    throw new ToolsError("invalid_request", `The request body is not valid ${decoder.encoding} text; send it as UTF-8 JSON.`);
  }
}

/**
 * A request path as logs may show it, with a connect link's secret part left out
 * (`/connect/auth_x.***`): the link works for whoever holds it. Give it the path the router
 * matched (`new URL(request.url).pathname`: dot segments resolved, percent-encoding kept). A
 * segment is masked when it spells a link token once ASCII percent-escapes are decoded, since the
 * router decodes its parameters (`auth%5Fx.…` opens the same page), and wherever it stands: a
 * token in a path that reached no page is still a working token.
 */
export function loggablePath(path: string): string {
  return path
    .split("/")
    .map((segment) => {
      const id = LINK_TOKEN_ID.exec(
        segment.replace(/%([0-7][0-9A-Fa-f])/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
      );
      return id ? `${id[1]}.***` : segment;
    })
    .join("/");
}

/** The id part of a connect link's token (`auth_<id>.<secret>`), in any case: the log must not depend on the page's spelling. */
const LINK_TOKEN_ID = /^(auth_[A-Za-z0-9_-]+)\./i;
