import { AsyncResource } from "node:async_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServerAdapter, type NodeRequest, normalizeNodeRequest } from "@whatwg-node/server";
import { isWholeLength, withWholeBody } from "../src/core/whole-bodies.js";
import type { ToolsHandler } from "../src/handler.js";
import { BridgeRequest, drainThenClose, withBody } from "./node-request.js";
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
/** Methods a `Request` may not carry (the Fetch standard's forbidden methods; Node hands CONNECT to its own event). */
const FORBIDDEN_METHOD = /^(CONNECT|TRACE|TRACK)$/i;
/** The Host of a request whose Host header names no host and port. */
const LOCALHOST = "localhost";
const INTERNAL = { error: "The server failed to answer this request; try again later.", code: "internal" };

/**
 * The fetch classes @whatwg-node/server builds the handler's `Request` with: the platform's, with
 * a `Request` that builds the platform's only when read beyond its URL, method, headers and signal
 * (`BridgeRequest`). Its default on Node is its ponyfill, whose requests are no `instanceof Request`
 * and whose bodies are no web streams. Nothing global is replaced either way.
 */
const FETCH_API = { Request: BridgeRequest, Response, Headers, URL, URLSearchParams, ReadableStream } as unknown as Parameters<
  typeof normalizeNodeRequest
>[1];

/**
 * Serves Node requests with a fetch handler, on @whatwg-node/server; shared by the node, express
 * and fastify adapters (not an entry point). The adapter turns Node's request into the handler's
 * `Request` (`normalizeNodeRequest`, with a `BridgeRequest`: the URL is the path as received on the
 * Host header's host, its signal aborts when the client goes away) and runs it through
 * `createServerAdapter`'s pipeline; the bridge guards what the adapter would get wrong first (a
 * request target that is no path and a method no `Request` may carry are a JSON 400, a Host that
 * would make another URL is taken as `localhost`) and writes the answer itself (`sendResponse`).
 *
 * The body is `replay` when a body parser already read it, or read whole first when its declared
 * length is small (`isSmallBody`); either is the `Request`'s body and its `wholeBody`, which
 * `readJson` takes without a stream. Any other body is one stream read as the handler reads it
 * (`withBody`); when the handler answers before it ended (a 413), the rest is read and dropped
 * for a moment (`drainThenClose`) before the connection closes, so the client reads the answer
 * rather than a reset. The answer is the handler's `answer` when it has one (`ToolsHandler`):
 * its JSON answers are written in one call from their parts, without a `Response` being read. A
 * handler that throws gets a JSON 500 that says nothing of the error.
 */
export function nodeBridge(tools: FetchHandler): NodeBridge {
  const answer = answererOf(tools);
  const { handleRequest } = createServerAdapter(
    async (request: Request) => {
      try {
        return await answer(request);
      } catch {
        return Response.json(INTERNAL, { status: 500 });
      }
    },
    { fetchAPI: FETCH_API },
  );
  // Run with no server context, which the handler does not take: the adapter copies one given per request.
  const pipeline = handleRequest as (request: Request) => Response | Promise<Response>;
  const serve = (req: IncomingMessage, res: ServerResponse, view: NodeRequest, body: Uint8Array | undefined): void => {
    let request: Request;
    try {
      if (FORBIDDEN_METHOD.test(req.method ?? "")) throw new TypeError("a method no Request may carry");
      request = normalizeNodeRequest(view, FETCH_API, res, false);
      (request as unknown as BridgeRequest).readHeadersFrom(req.rawHeaders, view.headers === req.headers ? undefined : LOCALHOST);
    } catch {
      fail(res, 400, INVALID_REQUEST); // or a URL the Host and path do not make
      return;
    }
    if (body !== undefined && body.byteLength > 0) request = withWholeBody(request, body);
    else if (hasBody(req)) request = withBody(request, body === undefined ? req : null);
    res.once("finish", () => drainThenClose(req));
    void Promise.resolve(pipeline(request))
      .then((response) => sendResponse(response, res))
      .catch(() => (res.headersSent ? res.destroy() : fail(res, 500, INTERNAL)));
  };
  return (req, res, target, replay) => {
    const path = originForm(target);
    if (path === null) return fail(res, 400, INVALID_TARGET);
    const view = nodeView(req, path);
    const whole = (body: Buffer) => serve(req, res, withViewBody(view, body), body);
    if (replay !== undefined) whole(Buffer.from(replay));
    else if (isSmallBody(req)) readSmallBody(req, whole);
    else serve(req, res, view, undefined);
  };
}

/** The function that gives the handler's answers as made: its `answer` (`ToolsHandler.answer`) when it has one, else itself. */
function answererOf(tools: FetchHandler): (request: Request) => Promise<Response> {
  const { answer } = tools as Partial<Pick<ToolsHandler, "answer">>;
  return typeof answer === "function" ? answer : tools;
}

/**
 * What the adapter reads of the Node request: its method, headers (a Host that is no host and
 * port becomes `localhost`: the adapter would glue it before the path, making another URL or none)
 * and socket, and the path as the target to use. Express's parsed `req.query` and `req.body` are
 * left out: the adapter would rewrite the query from the one and hand the other on as the body.
 * A body, until one is given (`withViewBody`), is Node's stream, which the adapter would hand on
 * as an iterable: the bridge replaces it with its own (`withBody`), so it is never read from here.
 */
function nodeView(req: IncomingMessage, path: string): NodeRequest & AsyncIterable<Uint8Array> {
  const host = req.headers.host;
  const headers = host && /^[A-Za-z0-9.:[\]-]+$/.test(host) ? req.headers : { ...req.headers, host: LOCALHOST };
  return { method: req.method, headers, url: path, socket: req.socket, [Symbol.asyncIterator]: () => req[Symbol.asyncIterator]() };
}

/** The view with the whole body `body`, which the adapter makes the `Request`'s body. */
function withViewBody(view: NodeRequest, body: Buffer): NodeRequest {
  return { ...view, body };
}

/** Whether the request may carry a body (every method but GET and HEAD, as for a `Request`). */
function hasBody(req: IncomingMessage): boolean {
  return req.method !== "GET" && req.method !== "HEAD";
}

/**
 * Whether the request has a body of a declared length of at most 64 KiB (`isWholeLength`). Node's
 * parser ends such a body after exactly that many bytes, so reading it whole first holds at most
 * 64 KiB, and the handler gets it without a stream (the JSON of POST /proxy, /execute, /auth).
 */
function isSmallBody(req: IncomingMessage): boolean {
  return hasBody(req) && isWholeLength(req.headers["content-length"]);
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
