import type { IncomingHttpHeaders } from "node:http";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { Agent, type Dispatcher } from "undici";
import { isWholeLength, wholeResponse } from "../core/whole-bodies.js";

/** Options of `createUndiciFetch`. */
export interface UndiciFetchOptions {
  /** Most open connections per origin. Default: no limit. */
  connections?: number;
  /** How long an idle connection is kept open for reuse, in milliseconds. Default 4000. */
  keepAliveTimeoutMs?: number;
  /**
   * An undici dispatcher (Agent, Pool, MockAgent, ProxyAgent...) to send through instead of a new
   * pooled Agent; `connections` and `keepAliveTimeoutMs` are then ignored, and `close()` leaves it open.
   */
  dispatcher?: Dispatcher;
}

/** A fetch function on a pooled undici dispatcher, with a way to close its connections. */
export interface UndiciFetch {
  (input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** The dispatcher requests go through. */
  readonly dispatcher: Dispatcher;
  /** Closes the pooled connections once in-flight requests finish (not those of a dispatcher passed in). */
  close(): Promise<void>;
}

/**
 * A `fetch` for the handler's `fetch` option on Node: requests go straight to undici's
 * `Dispatcher.request` over a keep-alive connection pool, without a second Fetch layer, and come
 * back as a standard `Response` whose body streams (with backpressure) from the socket.
 *
 * Differences from the global fetch, on purpose: redirects are never followed (a 3xx is returned
 * as it is, as the handler's outbound path wants; `redirect: "error"` throws instead), there is no
 * cookie jar, cache or automatic decompression, and only http and https URLs are accepted. The
 * `signal` aborts the request, and the body of a response already received. Request bodies may be
 * a string, bytes, a ReadableStream (sent as it is read, with the caller's Content-Length if set,
 * else chunked), URLSearchParams, a Blob or FormData.
 */
export function createUndiciFetch(options: UndiciFetchOptions = {}): UndiciFetch {
  const owned = options.dispatcher
    ? null
    : new Agent({ connections: options.connections ?? null, keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000 });
  const dispatcher = options.dispatcher ?? owned!;

  async function undiciFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
    const request = input instanceof Request ? input : null;
    const url = new URL(request ? request.url : String(input));
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new TypeError(`fetch: only http and https URLs are supported, not ${url.protocol}`);
    if (url.username || url.password) throw new TypeError("fetch: a URL with credentials cannot be fetched.");
    const method = (init.method ?? request?.method ?? "GET").toUpperCase();
    const headers = new Headers(init.headers ?? request?.headers);
    const body = await toDispatchBody(init.body !== undefined ? init.body : (request?.body ?? null), headers);
    const signal = init.signal ?? request?.signal ?? null;

    const data = await dispatcher.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: method as Dispatcher.HttpMethod,
      headers: [...headers].flat(),
      body,
      signal,
    });
    const isRedirect = data.statusCode >= 300 && data.statusCode < 400 && data.headers.location !== undefined;
    if ((init.redirect ?? request?.redirect) === "error" && isRedirect) {
      data.body.dump().catch(() => {});
      throw new TypeError(`fetch: the upstream redirected (${data.statusCode}) and redirect is "error".`);
    }
    if (data.statusCode < 200 || data.statusCode > 599) {
      data.body.dump().catch(() => {});
      throw new TypeError(`fetch: the upstream answered with the invalid status ${data.statusCode}.`);
    }
    const nullBody = method === "HEAD" || data.statusCode === 204 || data.statusCode === 205 || data.statusCode === 304;
    if (nullBody) data.body.dump().catch(() => {});
    else if (isWholeLength(data.headers["content-length"])) return wholeAnswer(data, url, signal);
    const response = new Response(nullBody ? null : toWebStream(data.body), {
      status: data.statusCode,
      statusText: data.statusText ?? "",
      headers: toHeaders(data.headers),
    });
    Object.defineProperty(response, "url", { value: url.href });
    return response;
  }

  return Object.assign(undiciFetch, {
    dispatcher,
    close: async () => {
      await owned?.close();
    },
  });
}

/**
 * An answer of a declared length of at most 64 KiB, read whole first: a `Response` whose headers
 * and body reads (`json()`, `text()`...) come straight from the bytes, and whose body stream is
 * made only when asked for (`wholeResponse`). Most API answers are this size, and a web stream
 * around the socket cost more than the rest of reading them. A body that breaks off gives a
 * `Response` whose body fails on the first read with the same error, as a streamed one would;
 * an abort before the body ended rejects, as fetch does before it has an answer.
 */
async function wholeAnswer(data: Dispatcher.ResponseData, url: URL, signal: AbortSignal | null): Promise<Response> {
  const init = { status: data.statusCode, statusText: data.statusText ?? "", headers: toHeaders(data.headers), url: url.href };
  let body: Uint8Array;
  try {
    body = new Uint8Array(await data.body.arrayBuffer());
  } catch (error) {
    if (signal?.aborted) throw error; // aborted before the answer was whole: fetch itself rejects
    const failed = new Response(new ReadableStream({ start: (controller) => controller.error(error) }), init);
    Object.defineProperty(failed, "url", { value: url.href });
    return failed;
  }
  return wholeResponse(body, init);
}

/** A fetch body as undici takes it, setting the Content-Type fetch would set when none is given. */
async function toDispatchBody(body: BodyInit | null, headers: Headers): Promise<string | Uint8Array | Readable | null> {
  const defaultType = (type: string | null) => {
    if (type && !headers.has("content-type")) headers.set("content-type", type);
  };
  if (body === null || body === undefined) return null;
  if (typeof body === "string") {
    defaultType("text/plain;charset=UTF-8");
    return body;
  }
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ReadableStream) return Readable.fromWeb(body as unknown as NodeReadableStream<Uint8Array>);
  // URLSearchParams, Blob, FormData: let the platform encode them (and name their type).
  const encoded = new Response(body);
  defaultType(encoded.headers.get("content-type"));
  return new Uint8Array(await encoded.arrayBuffer());
}

/**
 * The socket body as a web stream that pulls one chunk per read, so a slow reader holds back the
 * upstream (backpressure), and cancelling it destroys the undici body, closing the request.
 */
function toWebStream(body: Readable): ReadableStream<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  // Errors reach the reader through `chunks`; this keeps one after a cancel from being unhandled.
  body.on("error", () => {});
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel() {
        body.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}

function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      try {
        headers.append(name, item);
      } catch {
        // A value Headers refuses (a NUL byte) is dropped rather than failing the whole answer.
      }
    }
  }
  return headers;
}
