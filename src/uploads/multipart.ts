import { type MultipartError, make as makeParser, type PartInfo } from "multipasta";
import type { BlobInfo } from "../blob/types.js";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { refuseContentEncoding } from "../core/http.js";
import { type BlobSink, openSink } from "./blob-sink.js";
import { signatureGate } from "./signatures.js";

/** Most parts a form may have; exactly one of them is named `file`. */
export const MAX_PARTS = 10;
/** Bytes a body may carry beyond the file itself: boundaries, part headers, small fields. */
export const MULTIPART_OVERHEAD_BYTES = 256 * 1024;
const MEDIA_TYPE = /^\s*([!#$%&'*+.^\w|~-]+\/[!#$%&'*+.^\w|~-]+)\s*(;.*)?$/;
const CHARSET = /^[A-Za-z0-9._:-]{1,40}$/;

/** Where and how an upload is stored. */
export interface UploadTarget {
  key: string;
  /** Owner and other metadata stored with the blob (see `ownerMetadata`). */
  metadata: Record<string, string>;
  expiresAt: Date;
}

/**
 * Streams the part named `file` of a `multipart/form-data` request into
 * `ctx.blobStore.put(target.key, ...)` and returns the stored blob's info.
 *
 * - Bytes are counted as they arrive: a file over `ctx.uploads.maxBytes`, or a body over that plus
 *   `MULTIPART_OVERHEAD_BYTES`, is a 413, as is a Content-Length that already says so, or more
 *   than `MAX_PARTS` parts, or part headers over multipasta's limit (16 KiB, 100 lines).
 * - The part's declared Content-Type (none: `application/octet-stream`) must match
 *   `ctx.uploads.allowedContentTypes`, and for a type with a signature (PNG, JPEG, PDF, MP4, zip,
 *   ...; see `signatures.ts`) the file's first bytes must carry it, else 415.
 * - Not multipart, no boundary, no `file` part or two of them, or a malformed or truncated body: 400.
 * - The blob is completed only after the whole body parsed; on any refusal, or when the body
 *   errors (the client went away), the put is aborted and no blob is left behind.
 * - Reading pauses while the blob store is behind, so memory stays bounded by ~1 MiB per upload.
 */
export async function receiveUpload(request: Request, ctx: HandlerContext, target: UploadTarget): Promise<BlobInfo> {
  const { maxBytes, allowedContentTypes } = ctx.uploads;
  const maxBodyBytes = maxBytes + MULTIPART_OVERHEAD_BYTES;
  const contentType = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*(;|$)/i.test(contentType)) {
    throw notMultipart("Send the file as `multipart/form-data` with a part named `file`, e.g. `curl -F file=@photo.png`.");
  }
  refuseContentEncoding(request);
  const declaredLength = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declaredLength > maxBodyBytes) throw fileTooLarge(maxBytes);
  if (!request.body) throw notMultipart("The request has no body; send the file in a multipart part named `file`.");

  let failure: unknown = null;
  const fail = (error: unknown) => {
    failure ??= error;
  };
  let finished = false;
  let sink: BlobSink | null = null;

  const parser = makeParser({
    headers: { "content-type": contentType },
    isFile: () => true, // every part streams; nothing is buffered as a field
    maxParts: MAX_PARTS,
    onField: () => {},
    onError: (error) => fail(fromMultipartError(error)),
    onDone: () => {
      finished = true;
    },
    onFile(info) {
      if (failure || info.name !== "file") return ignore;
      if (sink) {
        fail(new ToolsError("invalid_request", "The form has more than one part named `file`; send one file per upload."));
        return ignore;
      }
      const type = declaredType(info);
      if (!isAllowedContentType(type, allowedContentTypes)) {
        fail(
          new ToolsError(
            "unsupported_media_type",
            `Files of type ${type.split(";")[0]} are not accepted here; accepted types: ${allowedContentTypes.join(", ")}.`,
          ),
        );
        return ignore;
      }
      const gate = signatureGate(type);
      const opened = openSink(ctx, target, type, safeFilename(info.filename), fail);
      sink = opened;
      let size = 0;
      return (chunk) => {
        if (failure) return;
        if (chunk !== null) {
          size += chunk.byteLength;
          if (size > maxBytes) return fail(fileTooLarge(maxBytes));
        }
        let passed: Uint8Array | null;
        try {
          passed = gate ? gate.push(chunk) : chunk;
        } catch (error) {
          return fail(error);
        }
        if (passed) opened.enqueue(passed);
      };
    },
  });

  const reader = request.body.getReader();
  let total = 0;
  for (;;) {
    if (failure) break;
    const current = sink as BlobSink | null;
    if (current?.stopped) {
      // The store gave up early: its own error (e.g. unavailable) is the answer, if it has one.
      await current.settled();
      fail(new Error("The blob store stopped reading before the whole file was sent."));
      break;
    }
    if (current && !current.ready()) {
      await current.drained();
      continue;
    }
    let result: Awaited<ReturnType<typeof reader.read>>;
    try {
      result = await reader.read();
    } catch {
      fail(new ToolsError("invalid_request", "The upload was interrupted before it completed; send it again."));
      break;
    }
    if (result.done) break;
    total += result.value.byteLength;
    if (total > maxBodyBytes) {
      fail(fileTooLarge(maxBytes));
      break;
    }
    if (finished) continue; // the epilogue after the closing boundary is read, not parsed
    try {
      parser.write(result.value);
    } catch (error) {
      fail(error instanceof ToolsError ? error : malformed());
    }
  }

  if (!failure && !finished) {
    parser.end();
    if (!finished) fail(malformed());
  }
  const written = sink as BlobSink | null;
  if (!failure && !written) fail(notMultipart("The form has no part named `file`; send the file as `-F file=@path`."));
  if (failure || !written) {
    await reader.cancel(failure).catch(() => {});
    if (written) await written.abort(failure);
    throw failure;
  }
  return written.close();
}

/**
 * Whether `type` (parameters ignored, case-insensitive) is in `allowed`, where an entry ending in
 * `*` matches by prefix: `image/*`, `application/vnd.openxmlformats-officedocument.*`.
 */
export function isAllowedContentType(type: string, allowed: readonly string[]): boolean {
  const essence = type.split(";")[0]!.trim().toLowerCase();
  return allowed.some((entry) => {
    const pattern = entry.trim().toLowerCase();
    if (pattern === "*/*" || pattern === "*") return true;
    return pattern.endsWith("*") ? essence.startsWith(pattern.slice(0, -1)) : essence === pattern;
  });
}

function ignore(_chunk: Uint8Array | null): void {}

/** The part's declared media type with its charset, or `application/octet-stream` when it has none. */
function declaredType(info: PartInfo): string {
  const raw = info.headers["content-type"];
  if (raw === undefined) return "application/octet-stream";
  const match = MEDIA_TYPE.exec(Array.isArray(raw) ? (raw[0] ?? "") : raw);
  if (!match) throw new ToolsError("invalid_request", "The Content-Type of the `file` part is not a valid media type, e.g. image/png.");
  const charset = info.contentTypeParameters.charset;
  return `${match[1]!.toLowerCase()}${charset && CHARSET.test(charset) ? `; charset=${charset.toLowerCase()}` : ""}`;
}

/** The last path segment of the uploader's file name, without control characters; never a path. */
function safeFilename(name: string | undefined): string | null {
  if (!name) return null;
  // eslint-disable-next-line no-control-regex
  const base = name
    .split(/[\\/]/)
    .pop()!
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, 255);
  return base && base !== "." && base !== ".." ? base : null;
}

function fromMultipartError(error: MultipartError): ToolsError {
  switch (error._tag) {
    case "InvalidBoundary":
      return notMultipart("The Content-Type header has no multipart boundary; let the HTTP client build the form body.");
    case "ReachedLimit":
      return error.limit === "MaxParts"
        ? new ToolsError("payload_too_large", `The form has more than ${MAX_PARTS} parts; send only the part named \`file\`.`)
        : new ToolsError("payload_too_large", "A part of the form is too large.");
    case "BadHeaders":
      return error.error.reason === "HeaderTooLarge" || error.error.reason === "TooManyHeaders"
        ? new ToolsError("payload_too_large", "The headers of a form part are too large (at most 16 KiB and 100 lines).")
        : malformed();
    default:
      return malformed();
  }
}

function notMultipart(message: string): ToolsError {
  return new ToolsError("invalid_request", message);
}

function malformed(): ToolsError {
  return new ToolsError("invalid_request", "The multipart body is malformed or ended before its closing boundary; send the form again.");
}

function fileTooLarge(maxBytes: number): ToolsError {
  return new ToolsError("payload_too_large", `The file is larger than the upload limit of ${maxBytes} bytes; send a smaller file.`);
}
