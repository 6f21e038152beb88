import { isToolsClientError, ToolsClientError } from "./errors.js";
import { multipartFrame, multipartLength, multipartStream, type UploadProgress } from "./multipart.js";
import type { Transport } from "./transport.js";
import type { CallOptions, StagedUpload } from "./types.js";
import { xhrUpload } from "./xhr.js";

/** What `upload` sends: a Blob or File, or a stream of bytes (a file on disk: see `fileFromPath`). */
export type UploadSource = Blob | ReadableStream<Uint8Array>;

/** Options of `upload`. */
export interface UploadOptions extends CallOptions {
  /** File name sent with the part. Default: a File's name; none for a Blob or a stream. */
  filename?: string;
  /** The file's media type. Default: the Blob's type, else `application/octet-stream`. */
  contentType?: string;
  /**
   * Bytes in a stream source, when known: the request then carries its Content-Length (a server
   * refuses a file over its limit at once) and progress has a total. A stream that gives more or
   * fewer bytes fails with `invalid_argument`. Ignored for a Blob, whose size is known.
   */
  size?: number;
  /** Called as the file is sent: `{ loaded, total }` in bytes of the file, last with `loaded === total`. */
  onProgress?: (progress: UploadProgress) => void;
}

/**
 * `POST /upload` of one file, never held in memory whole: the multipart body is a stream that
 * reads the source as fetch sends it. In a browser, a Blob goes through XMLHttpRequest instead
 * (see xhr.ts) unless a `fetch` option was given.
 */
export async function uploadFile(transport: Transport, source: UploadSource, options: UploadOptions = {}): Promise<StagedUpload> {
  const blob = typeof Blob !== "undefined" && source instanceof Blob ? source : null;
  if (!blob && !(source instanceof ReadableStream)) {
    throw new ToolsClientError(
      "invalid_argument",
      "upload() takes a Blob, a File or a ReadableStream of bytes; for a file on disk use fileFromPath from tools-proxy/client/node.",
    );
  }
  const size = blob ? blob.size : options.size;
  if (size !== undefined && !(Number.isSafeInteger(size) && size >= 0)) {
    throw new ToolsClientError("invalid_argument", `The upload size must be a whole number of bytes; got ${String(size)}.`);
  }
  const named = blob && "name" in blob && typeof blob.name === "string" && blob.name ? blob.name : undefined;
  const frame = multipartFrame(options.filename ?? named, options.contentType ?? (blob?.type || "application/octet-stream"));

  if (blob && transport.usesGlobalFetch && typeof XMLHttpRequest === "function") {
    return xhrUpload<StagedUpload>(transport, frame, blob, options);
  }
  const body = multipartStream(frame, blob ? blob.stream() : (source as ReadableStream<Uint8Array>), {
    size,
    onProgress: options.onProgress,
  });
  const headers: Record<string, string> = { "content-type": frame.contentType };
  if (size !== undefined) headers["content-length"] = String(multipartLength(frame, size));
  try {
    return await transport.json<StagedUpload>("POST", "/upload", { body: body.stream, headers, signal: options.signal });
  } catch (error) {
    // The body's own failure (a wrong size, a throwing onProgress) says more than fetch's.
    const failure = body.failure() ?? error;
    if (isToolsClientError(failure) && failure.code === "network_error" && typeof XMLHttpRequest === "function") throw inBrowser(failure);
    throw failure;
  }
}

/** A browser's fetch refuses a streamed body over HTTP/1.1 as if the network failed: say so. */
function inBrowser(error: ToolsClientError): ToolsClientError {
  const hint =
    " If the server is up, this browser cannot stream a request body to it: " +
    "Chromium streams uploads only over HTTP/2, Firefox and Safari not at all. Upload a Blob or File instead.";
  return new ToolsClientError("network_error", error.message + hint, { cause: error.cause });
}
