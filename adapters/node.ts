import type { IncomingMessage, ServerResponse } from "node:http";
import { type FetchHandler, nodeBridge } from "./serve-node.js";

/**
 * A `node:http` request listener, e.g. `http.createServer(toNodeHandler(tools))`. Both bodies
 * stream: the request is read as the handler reads it, the response is written as it is produced,
 * with backpressure. The URL is `req.url` as received, so it must start with the handler's basePath.
 * Requests Node's parser refuses never reach it: add `server.on("clientError", handleClientError)`
 * to answer those in JSON too.
 */
export function toNodeHandler(tools: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  const serve = nodeBridge(tools);
  return (req, res) => serve(req, res, req.url ?? "/");
}

export { createUndiciFetch, type UndiciFetch, type UndiciFetchOptions } from "../src/node/undici-fetch.js";
export { handleClientError } from "./client-error.js";
export type { FetchHandler } from "./serve-node.js";
