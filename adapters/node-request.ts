import type { IncomingMessage } from "node:http";

/**
 * `request` with its body as one byte stream straight from Node's (`readThenDrain`), or with no
 * body for null (one that was empty). @whatwg-node/server hands Node's stream on as an async
 * iterable, which Node's fetch copies chunk by chunk into a stream of its own.
 */
export function withBody(request: Request, source: IncomingMessage | null): Request {
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: source && readThenDrain(source),
    signal: request.signal,
    duplex: "half",
  } as RequestInit);
}

/**
 * The request body as a byte stream with backpressure (a ReadableStream rather than an async
 * iterable: Node's fetch copies every chunk of an iterable body). Cancelling it, as an early 413
 * does, leaves the rest to `drainThenClose` once the answer is written, rather than destroying the
 * socket.
 */
function readThenDrain(req: IncomingMessage): ReadableStream<Uint8Array> {
  let settled = false;
  const settle = (finish: () => void) => {
    if (settled) return;
    settled = true;
    finish();
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.pause();
        req.on("data", (chunk: Uint8Array) => {
          if (settled) return;
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once("end", () => settle(() => controller.close()));
        req.once("error", (error) => settle(() => controller.error(error)));
        req.once("close", () => settle(() => controller.error(new Error("The client closed the connection before the body ended."))));
      },
      pull: () => void req.resume(),
      cancel: () => settle(() => {}),
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}

/** How long, and how many bytes, the rest of a body the handler did not read is read and dropped before the connection closes. */
const DRAIN = { ms: 500, bytes: 64 * 1024 * 1024 };

/**
 * Reads and drops the rest of a request body nobody reads (the handler answered first, or
 * cancelled it), so that the client, still sending, reads the answer rather than a reset; after
 * `DRAIN.ms` or `DRAIN.bytes`, whichever comes first, the connection is closed instead. Call it
 * once the answer is written; nothing for a body Node's parser has all of.
 */
export function drainThenClose(req: IncomingMessage): void {
  if (req.complete || req.destroyed) return;
  let dropped = 0;
  const close = () => {
    stop();
    req.socket.destroySoon();
  };
  const timer = setTimeout(close, DRAIN.ms).unref();
  const count = (chunk: Uint8Array) => {
    dropped += chunk.byteLength;
    if (dropped > DRAIN.bytes) close();
  };
  const stop = () => {
    clearTimeout(timer);
    req.off("data", count).off("end", stop).off("error", stop);
  };
  req.on("data", count).once("end", stop).once("error", stop);
  req.resume();
}
