import type { Transport } from "./transport.js";
import type { CallOptions } from "./types.js";

/** A staged file being downloaded: its metadata, and its bytes as a stream read on demand. */
export interface DownloadedFile {
  stagingKey: string;
  /** The name from Content-Disposition: the uploader's file name, or the staging key when it gave none. */
  filename: string | null;
  contentType: string;
  /** Bytes, from Content-Length; undefined when the server did not say. */
  size: number | undefined;
  /** The bytes. Read it, or cancel it to release the connection. */
  body: ReadableStream<Uint8Array>;
  /** The HTTP answer itself, e.g. for `await file.response.blob()`. Its body is `body`. */
  response: Response;
}

/** `GET /files/{stagingKey}`: resolves once the headers arrived; the bytes stream after. */
export async function downloadFile(transport: Transport, stagingKey: string, options: CallOptions = {}): Promise<DownloadedFile> {
  const response = await transport.send("GET", `/files/${encodeURIComponent(stagingKey)}`, {
    signal: options.signal,
    headers: { accept: "*/*" },
  });
  const length = response.headers.get("content-length");
  return {
    stagingKey,
    filename: filenameOf(response.headers.get("content-disposition")),
    contentType: response.headers.get("content-type") ?? "application/octet-stream",
    size: length !== null && /^\d+$/.test(length) ? Number(length) : undefined,
    body: response.body ?? new ReadableStream({ start: (controller) => controller.close() }),
    response,
  };
}

/** The file name of a Content-Disposition header: `filename*` (RFC 5987) first, then `filename`. */
export function filenameOf(header: string | null): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*UTF-8'[^']*'([^;]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1]!.trim());
    } catch {
      // fall through to the plain parameter
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header);
  if (!plain) return null;
  return plain[1] !== undefined ? plain[1].replace(/\\(.)/g, "$1") : plain[2]!;
}
