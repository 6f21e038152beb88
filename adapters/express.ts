import type { IncomingMessage, ServerResponse } from "node:http";
import type { ToolsHandler } from "../src/handler.js";
import { toNodeHandler } from "./node.js";

/**
 * Express middleware: `app.use("/proxy/tools", toExpressHandler(tools))`. The full URL is rebuilt
 * from `req.originalUrl`, so the handler's basePath must equal the mount path; a body that
 * `express.json()` already parsed is reused.
 */
export function toExpressHandler(tools: ToolsHandler | ((request: Request) => Promise<Response>)) {
  const handle = toNodeHandler(tools);
  return (req: IncomingMessage, res: ServerResponse, _next?: (error?: unknown) => void): void => handle(req, res);
}
