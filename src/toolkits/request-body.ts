import { ToolRunError } from "../core/tool-error.js";
import { concatBytes } from "../util/bytes.js";
import type { StagedFile, ToolFetchInit } from "./define.js";

/** The media types a tool's request body can have; JSON also covers any `+json` type. */
export const BODY_TYPE =
  /^(application\/json|application\/[!#$%&'*+.^_`|~0-9A-Za-z-]+\+json|application\/x-www-form-urlencoded|multipart\/form-data|text\/plain|application\/octet-stream)(\s*;.*)?$/i;

/** A request body as fetch sends it: the body, its Content-Type, and the length of a stream. */
export type EncodedBody = Pick<ToolFetchInit, "body" | "contentLength"> & { contentType: string };

const encoder = new TextEncoder();

/** Whether a value is a `StagedFile` (a staging-key argument the executor has opened). */
export function isStagedFile(value: unknown): value is StagedFile {
  return (
    value !== null &&
    typeof value === "object" &&
    typeof (value as StagedFile).stagingKey === "string" &&
    typeof (value as StagedFile).stream === "function"
  );
}

function invalid(message: string): ToolRunError {
  return new ToolRunError(message, { code: "invalid_arguments" });
}

/**
 * Encodes `value` as a body of `contentType` (see `BODY_TYPE`):
 * - JSON: the value as JSON text.
 * - form-urlencoded: an object's properties as `key=value` (OpenAPI's default, style form with
 *   explode): arrays repeat the key, nested objects and arrays go as JSON text, null is left out.
 * - multipart/form-data: one part per property; a staged file is a binary part with its file name
 *   and content type, streamed; an array repeats the part; an object is a JSON part; other values
 *   are text parts.
 * - text/plain: a string as it is, anything else as JSON text.
 * - octet-stream: a staged file, streamed with its length, or a string's UTF-8 bytes.
 * A value of the wrong kind (a form body that is no object) is an `invalid_arguments` error naming `what`.
 */
export function encodeBody(contentType: string, value: unknown, what: string): EncodedBody {
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded") return { contentType, body: formBody(record(value, what)) };
  if (type === "multipart/form-data") return multipartBody(record(value, what));
  if (type === "text/plain") return { contentType, body: typeof value === "string" ? value : JSON.stringify(value) };
  if (type === "application/octet-stream") {
    if (isStagedFile(value)) return { contentType, body: streamOf(value), contentLength: value.size };
    if (typeof value === "string") return { contentType, body: value };
    throw invalid(`${what} must be a staged file (its staging key from POST /upload) or text.`);
  }
  return { contentType, body: JSON.stringify(value) };
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (value !== null && typeof value === "object" && !Array.isArray(value) && !isStagedFile(value)) return value as Record<string, unknown>;
  throw invalid(`${what} must be an object whose properties become the form's fields.`);
}

/** Each present property's values: an array's items, or the value alone. */
function fields(body: Record<string, unknown>): Array<[string, unknown]> {
  return Object.entries(body).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value])
      .filter((item) => item !== undefined && item !== null)
      .map((item): [string, unknown] => [name, item]),
  );
}

function formBody(body: Record<string, unknown>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of fields(body)) params.append(name, typeof value === "object" ? JSON.stringify(value) : String(value));
  return params;
}

/** A file name or field name inside a quoted Content-Disposition parameter, escaped as browsers do (WHATWG HTML). */
function quoted(text: string): string {
  return text.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function multipartBody(body: Record<string, unknown>): EncodedBody {
  const boundary = `tools-proxy-${crypto.randomUUID().replace(/-/g, "")}`;
  const pieces: Array<Uint8Array | StagedFile> = [];
  for (const [name, value] of fields(body)) {
    const disposition = `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"`;
    if (isStagedFile(value)) {
      const type = value.contentType.replace(/[\r\n]/g, "");
      pieces.push(encoder.encode(`${disposition}; filename="${quoted(value.filename ?? value.name)}"\r\nContent-Type: ${type}\r\n\r\n`));
      pieces.push(value, encoder.encode("\r\n"));
    } else if (typeof value === "object") {
      pieces.push(encoder.encode(`${disposition}\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(value)}\r\n`));
    } else {
      pieces.push(encoder.encode(`${disposition}\r\n\r\n${String(value)}\r\n`));
    }
  }
  pieces.push(encoder.encode(`--${boundary}--\r\n`));
  const contentType = `multipart/form-data; boundary=${boundary}`;
  if (!pieces.some(isStagedFile)) return { contentType, body: concatBytes(pieces as Uint8Array[]) as BodyInit };
  const contentLength = pieces.reduce((sum, piece) => sum + (isStagedFile(piece) ? piece.size : piece.byteLength), 0);
  return { contentType, body: sequence(pieces), contentLength };
}

/** A staged file's bytes as a stream that opens the file on the first read. */
function streamOf(file: StagedFile): ReadableStream<Uint8Array> {
  return sequence([file]);
}

/** The pieces one after the other as one stream, each file opened only when its turn comes; nothing is buffered. */
function sequence(pieces: Array<Uint8Array | StagedFile>): ReadableStream<Uint8Array> {
  let index = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          if (reader) {
            const { done, value } = await reader.read();
            if (!done) return controller.enqueue(value);
            reader = null;
          }
          const piece = pieces[index++];
          if (piece === undefined) return controller.close();
          if (!isStagedFile(piece)) return controller.enqueue(piece);
          reader = (await piece.stream()).getReader();
        }
      },
      async cancel(reason) {
        await reader?.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}
