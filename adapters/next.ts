import type { ToolsHandler } from "../src/handler.js";

type RouteHandler = (request: Request) => Promise<Response>;

/**
 * Route handlers for a Next.js App Router catch-all route at the handler's basePath, e.g.
 * `app/proxy/tools/[...path]/route.ts`:
 *
 *   export const { GET, POST, PUT, PATCH, DELETE } = toNextHandler(tools);
 *
 * Each passes Next's request on as it is and returns the handler's response, which Next streams.
 */
export function toNextHandler(
  tools: ToolsHandler | RouteHandler,
): Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS", RouteHandler> {
  const handle: RouteHandler = (request) => tools(request);
  return { GET: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, HEAD: handle, OPTIONS: handle };
}
