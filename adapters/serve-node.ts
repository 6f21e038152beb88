import type { IncomingMessage, ServerResponse } from "node:http";
import { sendNodeResponse } from "@whatwg-node/server";
import type { ToolsHandler } from "../src/handler.js";

/** The handler, or any fetch function. */
export type FetchHandler = ToolsHandler | ((request: Request) => Promise<Response>);

/**
 * Serves one Node request with a fetch handler; shared by the node and express adapters (not an
 * entry point). The `Request` has `path` as received (nothing is parsed or rebuilt; only the URL
 * standard resolves `.` and `..` segments, as in every runtime), the raw headers, and a body that
 * streams as the handler reads it, or `replay` when a body parser already read it. If the handler
 * stops reading early (a 413), the rest is read and dropped, not the socket destroyed, which would
 * reset the connection before the client reads the answer. The `Response` is written as it
 * streams, with backpressure (@whatwg-node/server). A handler that throws gets a JSON 500.
 */
export function serveNode(
  tools: FetchHandler,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  replay?: string | Uint8Array,
): void {
  const target = originForm(path);
  if (target === null) {
    fail(res, 400, {
      error: "The request target must be a path, such as /proxy/tools/search, or an absolute http(s) URL.",
      code: "invalid_request",
    });
    return;
  }
  const client = new AbortController();
  res.once("close", () => res.writableFinished || client.abort());
  let request: Request;
  try {
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const body = hasBody ? (replay ?? readThenDrain(req)) : undefined;
    request = new Request(`${"encrypted" in req.socket ? "https" : "http"}://${hostOf(req)}${target}`, {
      method: req.method,
      headers,
      body,
      signal: client.signal,
      duplex: "half",
    } as RequestInit);
  } catch {
    fail(res, 400, {
      error: "The request's method or headers are not valid HTTP; correct them and send it again.",
      code: "invalid_request",
    });
    return;
  }
  Promise.resolve()
    .then(() => tools(request))
    .then((response) => sendNodeResponse(response, res, req, true))
    .catch(() =>
      res.headersSent
        ? res.destroy()
        : fail(res, 500, { error: "The server failed to answer this request; try again later.", code: "internal" }),
    );
}

function fail(res: ServerResponse, status: number, body: { error: string; code: string }): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(body));
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

/** The Host header when it is a plain host[:port]; anything else could move the path. */
function hostOf(req: IncomingMessage): string {
  const host = req.headers.host ?? "";
  return /^[A-Za-z0-9.:[\]-]+$/.test(host) ? host : "localhost";
}
