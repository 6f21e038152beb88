import type { ServerResponse } from "node:http";
import { wholeParts } from "../src/core/whole-bodies.js";

/**
 * Writes a fetch `Response` to Node's `ServerResponse`. The handler's own whole answers
 * (`wholeParts`) go out in one call without a `Response` being read. A body that is already whole when it is
 * written (a string, bytes, or a stream with its last chunk queued) goes out in one write with
 * its Content-Length; any other body streams as it is produced, with backpressure. The returned
 * promise settles when the body has been written or abandoned (the client went away: the body is
 * cancelled); it rejects when the body stream fails after the head was sent.
 */
export function sendResponse(response: Response, res: ServerResponse): Promise<void> | undefined {
  const whole = wholeParts(response);
  if (whole) {
    res.writeHead(whole.status, whole.headers).end(whole.body);
    return;
  }
  res.setHeaders(response.headers);
  const body = response.body;
  if (body === null) {
    res.writeHead(response.status, response.statusText || undefined).end();
    return;
  }
  return sendBody(body.getReader(), response, res);
}

/** How many chunks are read ahead to find the end of a body before it is streamed instead. */
const WHOLE_CHUNKS = 4;

async function sendBody(reader: ReadableStreamDefaultReader<Uint8Array>, response: Response, res: ServerResponse): Promise<void> {
  const chunks: Uint8Array[] = [];
  let next = reader.read();
  for (let i = 0; i < WHOLE_CHUNKS; i++) {
    const read = await readyOrNot(next);
    if (read === null) break;
    if (read.done) {
      const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      if (!res.hasHeader("content-length") && !res.hasHeader("transfer-encoding")) res.setHeader("content-length", whole.byteLength);
      res.writeHead(response.status, response.statusText || undefined).end(whole);
      return;
    }
    chunks.push(read.value);
    next = reader.read();
  }
  res.writeHead(response.status, response.statusText || undefined);
  for (const chunk of chunks) res.write(chunk);
  res.flushHeaders();
  await pump(reader, next, res);
}

/** The read if it has settled within a few microtasks, else null: a stream still being produced. */
function readyOrNot<T>(read: Promise<T>): Promise<T | null> {
  return Promise.race([read, Promise.resolve().then(() => Promise.resolve(null))]);
}

/** Writes the rest of the body, waiting for "drain" when the socket is full; cancels it if the client leaves. */
function pump(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  pending: Promise<ReadableStreamReadResult<Uint8Array>>,
  res: ServerResponse,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const abandon = () => {
      reader.cancel().catch(() => {});
      resolve();
    };
    res.once("close", abandon);
    const step = (read: ReadableStreamReadResult<Uint8Array>): void => {
      if (res.destroyed) return;
      if (read.done) {
        res.off("close", abandon);
        res.end(resolve);
      } else if (res.write(read.value)) reader.read().then(step, fail);
      else res.once("drain", () => reader.read().then(step, fail));
    };
    const fail = (error: unknown) => {
      res.off("close", abandon);
      reject(error);
    };
    pending.then(step, fail);
  });
}
