import type { ToolsHandler } from "../src/handler.js";

type RouteHandler = (request: Request) => Promise<Response>;

/**
 * Route handlers for a Next.js App Router catch-all route, e.g. `app/proxy/tools/[...path]/route.ts`:
 *
 *   export const { GET, POST, DELETE } = toNextHandler(tools);
 */
export function toNextHandler(tools: ToolsHandler | RouteHandler): Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS", RouteHandler> {
  const handle: RouteHandler = (request) => tools(request);
  return { GET: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, HEAD: handle, OPTIONS: handle };
}
