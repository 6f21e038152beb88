import type { IncomingMessage, ServerResponse } from "node:http";
import { createServerAdapter } from "@whatwg-node/server";
import type { ToolsHandler } from "../src/handler.js";

/** A `node:http` request listener, e.g. `http.createServer(toNodeHandler(tools))`. Streams both ways. */
export function toNodeHandler(tools: ToolsHandler | ((request: Request) => Promise<Response>)): (req: IncomingMessage, res: ServerResponse) => void {
  const adapter = createServerAdapter((request: Request) => tools(request), {
    fetchAPI: { Request, Response, Headers, ReadableStream, URL, fetch },
  });
  return adapter as unknown as (req: IncomingMessage, res: ServerResponse) => void;
}

export { createUndiciFetch, type UndiciFetch, type UndiciFetchOptions } from "../src/node/undici-fetch.js";
