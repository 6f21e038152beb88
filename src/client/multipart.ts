import { ToolsClientError } from "./errors.js";

/** Upload progress in bytes of the file (multipart framing not counted). */
export interface UploadProgress {
  loaded: number;
  /** The file's size; undefined for a stream of unknown size until it ends. */
  total: number | undefined;
}

/** The bytes around the file in a `multipart/form-data` body with one part named `file`. */
export interface MultipartFrame {
  /** The request's Content-Type, with the boundary. */
  contentType: string;
  head: Uint8Array;
  tail: Uint8Array;
}

const encoder = new TextEncoder();
/** Largest piece of the file handed to fetch at once. */
const SLICE_BYTES = 64 * 1024;
const MEDIA_TYPE = /^[!#$%&'*+.^\w|~-]+\/[!#$%&'*+.^\w|~-]+(\s*;[\x20-\x7e]*)?$/;

/**
 * The frame of a one-part form, encoded as browsers do (WHATWG HTML): `"`, CR and LF in the file
 * name become %22, %0D and %0A. A content type that is not a valid media type is `invalid_argument`.
 */
export function multipartFrame(filename: string | undefined, contentType: string): MultipartFrame {
  if (!MEDIA_TYPE.test(contentType)) {
    throw new ToolsClientError(
      "invalid_argument",
      `The content type ${JSON.stringify(contentType)} is not a media type such as text/plain or image/png.`,
    );
  }
  const random = crypto.getRandomValues(new Uint8Array(16));
  const boundary = `tools-proxy-${Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")}`;
  const name = filename === undefined ? "" : `; filename="${filename.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A")}"`;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    head: encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"${name}\r\nContent-Type: ${contentType}\r\n\r\n`),
    tail: encoder.encode(`\r\n--${boundary}--\r\n`),
  };
}

/**
 * The whole body as a stream that reads `source` only as the consumer (fetch) pulls: nothing is
 * buffered beyond the chunk in flight. `onProgress` runs first with 0, then after each slice of
 * the file is handed over; its last call has `loaded === total`. With `size`, a source that gives more
 * or fewer bytes errors the stream with `invalid_argument`; `failure()` then returns that error
 * (fetch reports its own, vaguer one).
 */
export function multipartStream(
  frame: MultipartFrame,
  source: ReadableStream<Uint8Array>,
  options: { size?: number; onProgress?: (progress: UploadProgress) => void },
) {
  const { size, onProgress } = options;
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  let rest: Uint8Array = new Uint8Array(0);
  let loaded = 0;
  let failure: unknown = null;
  const mismatch = () => {
    const what = loaded > size! ? `more than the ${size} bytes given as its size` : `${loaded} bytes, not the ${size} given as its size`;
    return new ToolsClientError("invalid_argument", `The upload stream gave ${what}; pass its exact size, or none.`);
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (!reader) {
            reader = source.getReader();
            onProgress?.({ loaded, total: size });
            controller.enqueue(frame.head);
            return;
          }
          // Loop until something is enqueued: a pull that enqueues nothing is not called again.
          for (;;) {
            if (!rest.byteLength) {
              const { done, value } = await reader.read();
              if (done) break;
              rest = toBytes(value);
            }
            // Large chunks (a Blob in memory gives itself whole) go in slices, so progress moves.
            const chunk = rest.subarray(0, SLICE_BYTES);
            rest = rest.subarray(chunk.byteLength);
            if (chunk.byteLength === 0) continue;
            loaded += chunk.byteLength;
            if (size !== undefined && loaded > size) throw mismatch();
            controller.enqueue(chunk);
            onProgress?.({ loaded, total: size });
            return;
          }
          if (size !== undefined && loaded !== size) throw mismatch();
          if (size === undefined) onProgress?.({ loaded, total: loaded });
          controller.enqueue(frame.tail);
          controller.close();
        } catch (error) {
          failure = error;
          controller.error(error);
          await reader?.cancel(error).catch(() => {});
        }
      },
      async cancel(reason) {
        await (reader ? reader.cancel(reason) : source.cancel(reason)).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, failure: () => failure };
}

/** Any ArrayBufferView as bytes; anything else is `invalid_argument`. */
function toBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new ToolsClientError("invalid_argument", "The upload stream must give Uint8Array chunks (bytes), not strings or objects.");
}

/** Bytes of the whole body for a file of `size` bytes. */
export function multipartLength(frame: MultipartFrame, size: number): number {
  return frame.head.byteLength + size + frame.tail.byteLength;
}
