import type { IncomingMessage, ServerResponse } from "node:http";
import { type FetchHandler, nodeBridge } from "./serve-node.js";

/** An Express request, as far as the handler reads it: Node's request and what a body parser left. */
type ExpressRequest = IncomingMessage & { originalUrl?: string; body?: unknown };

/**
 * Express middleware, for Express 4 and 5: `app.use("/proxy/tools", toExpressHandler(tools))`,
 * mounted before any body parser. The handler gets the request as Node received it: the URL is
 * `req.originalUrl` as sent (Express's parsed `req.query` is not used), so mount it at the
 * handler's basePath. A body that a parser running first has read (`express.json()`,
 * `express.raw()`, ...) is handed on, a Buffer or string as it is and a parsed object as JSON; a
 * body it read and kept nothing of (multer, a stream reader) is a 400 that says so. An unread body
 * streams.
 */
export function toExpressHandler(tools: FetchHandler): (req: ExpressRequest, res: ServerResponse) => void {
  const serve = nodeBridge(tools);
  return (req, res) => {
    const url = req.originalUrl ?? req.url ?? "/";
    if (!req.readableEnded) return serve(req, res, url);
    const replay = replayable(req);
    if (replay !== null) return serve(req, res, url, replay);
    const body = JSON.stringify({
      error:
        "A middleware mounted before the Tools API handler read the request body and kept nothing the handler can use " +
        "(a multipart parser, or a stream reader); mount the handler before it.",
      code: "invalid_request",
    });
    res.writeHead(400, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) }).end(body);
  };
}

/**
 * The body a parser already read, as the handler should see it: empty when the request had none,
 * the bytes or text as read, a parsed JSON or form body as JSON; null when nothing usable is left
 * (a multipart body that a parser split into fields and files, or a body no parser kept).
 */
function replayable(req: ExpressRequest): string | Uint8Array | null {
  const length = req.headers["content-length"];
  if ((length === undefined && req.headers["transfer-encoding"] === undefined) || length === "0") return "";
  const { body } = req;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  if (body === undefined || /^multipart\//i.test(req.headers["content-type"] ?? "")) return null;
  return JSON.stringify(body);
}
