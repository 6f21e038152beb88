import type { IncomingMessage, ServerResponse } from "node:http";
import { type FetchHandler, serveNode } from "./serve-node.js";

/** An Express request, as far as the handler reads it: Node's request and what a body parser left. */
type ExpressRequest = IncomingMessage & { originalUrl?: string; body?: unknown };

/**
 * Express middleware, for Express 4 and 5: `app.use("/proxy/tools", toExpressHandler(tools))`.
 * The handler gets the request as Node received it: the URL is `req.originalUrl` as sent
 * (Express's parsed `req.query` is not used), so mount it at the handler's basePath. A body that
 * a parser running first has read (`express.json()`, `express.raw()`, ...) is handed on, a Buffer
 * or string as it is and a parsed object as JSON; an unread body streams.
 */
export function toExpressHandler(tools: FetchHandler): (req: ExpressRequest, res: ServerResponse) => void {
  return (req, res) => serveNode(tools, req, res, req.originalUrl ?? req.url ?? "/", req.readableEnded ? replayable(req.body) : undefined);
}

function replayable(body: unknown): string | Uint8Array {
  if (body === undefined) return "";
  return typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body);
}
