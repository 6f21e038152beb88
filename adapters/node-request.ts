import type { IncomingMessage } from "node:http";
import { NodeHeaders } from "./node-headers.js";

/**
 * The handler's `Request` on Node, as @whatwg-node/server makes it (the bridge gives it this class
 * as its `fetchAPI.Request`). Its URL, method, signal and a whole body are kept as given; its
 * `headers` are Node's raw header list read in place (`NodeHeaders`) once the bridge gives it
 * (`readHeadersFrom`), else built from `init.headers` when first asked for. A platform `Request`,
 * whose constructor costs a small route more than its own work (docs/benchmarks.md), is built only
 * when something reads more (the body, `clone()`, `cache`, ...), and then answers everything. It
 * passes for a `Request` (`instanceof Request`).
 */
export class BridgeRequest {
  // Private, behind getters: a public field would be set on an object whose prototype has only getters.
  readonly #url: string;
  readonly #signal: AbortSignal;
  readonly #init: RequestInit;
  #headers: Headers | undefined;
  #standard: Request | undefined;

  /** Throws a TypeError, as the platform `Request` does, when `url` is not a URL (a Host such as `a:b:c` glued before the path). */
  constructor(url: string, init: RequestInit) {
    if (!URL.canParse(url)) throw new TypeError("The request's Host and path do not make a URL.");
    this.#url = url;
    this.#signal = init.signal ?? new AbortController().signal;
    this.#init = init;
  }

  get url(): string {
    return this.#url;
  }

  get method(): string {
    return this.#init.method ?? "GET";
  }

  get signal(): AbortSignal {
    return this.#signal;
  }

  get headers(): Headers {
    if (this.#standard) return this.#standard.headers;
    this.#headers ??= new Headers(this.#init.headers);
    return this.#headers;
  }

  /**
   * Takes its headers from Node's raw header list, `host` replacing the Host lines, rather than
   * from `init.headers` (Node's joined header object, which keeps only the first of a repeated
   * `Authorization`, among others): `headers.get` then reads the list without a `Headers` built.
   * Call it before anything reads `headers`.
   */
  readHeadersFrom(rawHeaders: readonly string[], host?: string): void {
    this.#headers = new NodeHeaders(rawHeaders, host) as unknown as Headers;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#init.body == null && !this.#standard ? null : this.standard().body;
  }

  /** Unused until its body is read, which builds the platform `Request` first. */
  get bodyUsed(): boolean {
    return this.#standard?.bodyUsed ?? false;
  }

  /** The platform `Request`, built once; it then answers everything. */
  standard(): Request {
    this.#standard ??= new Request(this.url, { ...this.#init, headers: this.headers, signal: this.signal, duplex: "half" } as RequestInit);
    return this.#standard;
  }
}
// `instanceof Request` holds; what is not defined above is the platform Request's, read from `standard()`.
Object.setPrototypeOf(BridgeRequest.prototype, Request.prototype);
for (const name of [
  "cache",
  "credentials",
  "destination",
  "duplex",
  "integrity",
  "keepalive",
  "mode",
  "redirect",
  "referrer",
  "referrerPolicy",
]) {
  Object.defineProperty(BridgeRequest.prototype, name, {
    get(this: BridgeRequest) {
      return Reflect.get(this.standard(), name);
    },
  });
}
for (const name of ["arrayBuffer", "blob", "bytes", "clone", "formData", "json", "text"]) {
  Object.defineProperty(BridgeRequest.prototype, name, {
    value(this: BridgeRequest) {
      const standard = this.standard() as unknown as Record<string, () => unknown>;
      return standard[name]!();
    },
  });
}

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
  // The answer is written: no reader is left, and one that paused the body for backpressure would stop the drain.
  req.removeAllListeners("data");
  req.on("data", count).once("end", stop).once("error", stop);
  req.resume();
}
