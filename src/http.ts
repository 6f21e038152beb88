import type { z } from "zod";
import { ToolsError } from "./errors.js";
import { BodyTooLargeError, readBytes } from "./util/bytes.js";

const JSON_TYPE = "application/json; charset=utf-8";
const encoder = new TextEncoder();

/**
 * A JSON response. It carries its Content-Length, so a Node server sends it whole instead of
 * chunked: one write fewer per response (the chunked terminator), and clients see the size.
 */
export function json(body: unknown, status = 200, headers?: HeadersInit): Response {
  const bytes = encoder.encode(JSON.stringify(body));
  const response = new Response(bytes, { status, headers: { "content-type": JSON_TYPE, "content-length": String(bytes.length) } });
  if (headers) for (const [name, value] of new Headers(headers)) response.headers.set(name, value);
  return response;
}

/** Largest JSON request body the API reads (1 MiB); larger bodies are a 413. */
export const MAX_JSON_BYTES = 1024 * 1024;

/**
 * Reads the body as JSON and validates it with `schema`. Reads at most `maxBytes`, counting bytes
 * as they arrive rather than trusting Content-Length.
 */
export async function readJson<S extends z.ZodType>(request: Request, schema: S, maxBytes = MAX_JSON_BYTES): Promise<z.output<S>> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw new ToolsError("unsupported_media_type", "Send the request body as JSON with the header `Content-Type: application/json`.");
  }
  const text = await readText(request, maxBytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ToolsError("invalid_request", "The request body is not valid JSON.");
  }
  return validate(schema, value, "body");
}

/** Validates the query string with `schema`; repeated parameters keep their last value. */
export function readQuery<S extends z.ZodType>(url: URL, schema: S): z.output<S> {
  return validate(schema, Object.fromEntries(url.searchParams), "query");
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

async function readText(request: Request, maxBytes: number): Promise<string> {
  try {
    return new TextDecoder().decode(await readBytes(request.body, maxBytes));
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      throw new ToolsError("payload_too_large", `The JSON body is larger than ${maxBytes} bytes; send a smaller request.`);
    }
    throw error;
  }
}
