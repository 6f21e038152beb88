/** Thrown by `readBytes` when a body is larger than its limit. */
export class BodyTooLargeError extends Error {
  override readonly name = "BodyTooLargeError";
  constructor(readonly maxBytes: number) {
    super(`The body is larger than ${maxBytes} bytes.`);
  }
}

/**
 * Reads a stream into one new buffer, counting bytes as they arrive: past `maxBytes` it cancels
 * the stream and throws `BodyTooLargeError`, so a body is never held beyond its limit.
 */
export async function readBytes(body: ReadableStream<Uint8Array> | null, maxBytes = Number.POSITIVE_INFINITY): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}

/** Joins chunks into one new buffer (a copy: later changes to the chunks do not reach it). */
export function concatBytes(chunks: Uint8Array[], size = chunks.reduce((n, c) => n + c.byteLength, 0)): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Passes bytes through until more than `maxBytes` went by, then errors (by default with `BodyTooLargeError`). */
export function limitBytes(
  maxBytes: number,
  tooLarge: () => Error = () => new BodyTooLargeError(maxBytes),
): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  return new TransformStream({
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size > maxBytes) controller.error(tooLarge());
      else controller.enqueue(chunk);
    },
  });
}
