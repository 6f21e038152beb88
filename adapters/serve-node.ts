import { AsyncResource } from "node:async_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { answersOf, isWholeLength, rememberBody } from "../src/core/whole-bodies.js";
import type { ToolsHandler } from "../src/handler.js";
import { sendResponse } from "./node-response.js";

/** The handler, or any fetch function. */
export type FetchHandler = ToolsHandler | ((request: Request) => Promise<Response>);

/** Serves one Node request: `target` is the request target to use (Express's `originalUrl`), `replay` a body a parser already read. */
export type NodeBridge = (req: IncomingMessage, res: ServerResponse, target: string, replay?: string | Uint8Array) => void;

const INVALID_TARGET = {
  error: "The request target must be a path, such as /proxy/tools/search, or an absolute http(s) URL.",
  code: "invalid_request",
};
const INVALID_REQUEST = {
  error: "The request's method, path or headers are not valid HTTP; correct them and send it again.",
  code: "invalid_request",
};
const INTERNAL = { error: "The server failed to answer this request; try again later.", code: "internal" };

/**
 * Serves Node requests with a fetch handler; shared by the node, express and fastify adapters
 * (not an entry point). The `Request` is @hono/node-server's: built lazily, so a route reads only
 * what it uses (the URL, a header, the body as a stream). Its URL is the path as received on the
 * Host header's host (nothing is parsed or rebuilt; only the URL standard resolves `.` and `..`
 * segments, as in every runtime); its body is `replay` when a body parser already read it, or
 * read whole first when its declared length is small (`isSmallBody`): @hono/node-server takes
 * such a body from `req.rawBody` (https://github.com/honojs/node-server/pull/223), and `readJson`
 * takes it without a stream (`rememberBody`). Any other body is a stream read as the handler
 * reads it (`withBody`: a request with a body is a standard `Request` built around that stream).
 * Its signal aborts when the client goes away.
 * When the handler answers before the body ended (a 413), the rest is read and dropped for a
 * moment (at most 500 ms or 64 MiB) before the connection closes, so the client reads the answer
 * rather than a reset. The `Response` is written by `sendResponse`: in one write when its body is
 * whole, else streamed with backpressure. The handler's JSON answers are taken before they become
 * `Response`s (`answersOf`), so most routes never build one. A handler that throws gets a JSON 500.
 *
 * The global `Request` and `Response` are left alone: @hono/node-server by default replaces them
 * with its own, after which `(await fetch(url)) instanceof Response` is false in the whole process.
 */
export function nodeBridge(tools: FetchHandler): NodeBridge {
  const answer = answersOf(tools);
  const listener = getRequestListener(
    async (request, env) => {
      // Only node:http requests come here (the listener is never given to an HTTP/2 server).
      const outgoing = env.outgoing as ServerResponse;
      const incoming = env.incoming as IncomingMessage & { rawBody?: Buffer };
      let handlerRequest = request;
      if (incoming.rawBody !== undefined) rememberBody(request, incoming.rawBody);
      try {
        if (streamsBody(request, incoming)) handlerRequest = withBody(request, incoming);
      } catch {
        fail(outgoing, 400, INVALID_REQUEST); // a method no Request may carry, such as TRACE
        return RESPONSE_ALREADY_SENT;
      }
      try {
        await sendResponse(await answer(handlerRequest), outgoing);
      } catch {
        if (outgoing.headersSent) outgoing.destroy();
        else fail(outgoing, 500, INTERNAL);
      }
      return RESPONSE_ALREADY_SENT;
    },
    {
      overrideGlobalObjects: false,
      hostname: "localhost",
      // Only a request @hono/node-server cannot turn into a URL reaches here (a backslash in the path).
      errorHandler: () => Response.json(INVALID_REQUEST, { status: 400 }),
    },
  );
  return (req, res, target, replay) => {
    const path = originForm(target);
    if (path === null) return fail(res, 400, INVALID_TARGET);
    req.url = path;
    if (!/^[A-Za-z0-9.:[\]-]*$/.test(req.headers.host ?? "")) req.headers.host = "localhost";
    if (replay !== undefined) (req as IncomingMessage & { rawBody?: Buffer }).rawBody = Buffer.from(replay);
    else if (isSmallBody(req)) {
      readSmallBody(req, (body) => {
        (req as IncomingMessage & { rawBody?: Buffer }).rawBody = body;
        void listener(req, res);
      });
      return;
    }
    void listener(req, res);
  };
}

/**
 * Whether the request has a body of a declared length of at most 64 KiB (`isWholeLength`). Node's
 * parser ends such a body after exactly that many bytes, so reading it whole first holds at most
 * 64 KiB, and the handler gets it without a stream (the JSON of POST /proxy, /execute, /auth).
 */
function isSmallBody(req: IncomingMessage): boolean {
  return req.method !== "GET" && req.method !== "HEAD" && isWholeLength(req.headers["content-length"]);
}

/**
 * Reads the body whole, then calls `then` with it, in the async context of this call (so that an
 * AsyncLocalStorage the caller entered, as serve's access log does, still holds); nothing when
 * the client goes away first.
 */
function readSmallBody(req: IncomingMessage, then: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  const resume = AsyncResource.bind(then);
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.once("end", () => resume(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
  req.once("error", () => req.socket.destroy());
}

function streamsBody(request: Request, incoming: IncomingMessage & { rawBody?: Buffer }): boolean {
  return request.method !== "GET" && request.method !== "HEAD" && incoming.rawBody === undefined;
}

/**
 * The request with its body as one byte stream straight from Node's: @hono/node-server's own
 * body stream is two (`Readable.toWeb` inside a stream pulled a chunk at a time), which cost an
 * upload twice the CPU of a bare pipe where this costs 1.2 times (`npm run bench:upload`).
 */
function withBody(request: Request, incoming: IncomingMessage): Request {
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: readThenDrain(incoming),
    signal: request.signal,
    duplex: "half",
  } as RequestInit);
}

/**
 * The request body as a byte stream with backpressure (a ReadableStream rather than an async
 * iterable: Node's fetch copies every chunk of an iterable body). Cancelling it, as an early 413
 * does, reads and drops the rest instead of destroying the socket.
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
      cancel: () => settle(() => req.resume()),
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}

function fail(res: ServerResponse, status: number, body: { error: string; code: string }): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(body));
}

/**
 * The path and query of a request target: a path as it is; an absolute URL (`GET http://host/p`,
 * as proxies send, which RFC 9112 says servers must accept) reduced to its path and query, parsed
 * (the Host header still names the host); null for anything else (`*`, `host:port`), which glued
 * after the host would make another URL.
 */
function originForm(target: string): string | null {
  if (target.startsWith("/")) return target;
  if (!/^https?:\/\//i.test(target)) return null;
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return null;
  }
}
