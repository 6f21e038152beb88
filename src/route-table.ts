import { mcpRoutes } from "./mcp/route.js";
import { authRoutes } from "./routes/auth.js";
import { catalogRoutes } from "./routes/catalog.js";
import { connectRoutes } from "./routes/connect.js";
import { connectionRoutes } from "./routes/connections.js";
import { executeRoutes } from "./routes/execute.js";
import { fileRoutes } from "./routes/files.js";
import { iconRoutes } from "./routes/icons.js";
import { openApiRoute } from "./routes/openapi.js";
import { passthroughRoutes } from "./routes/passthrough.js";
import { proxyRoutes } from "./routes/proxy.js";
import type { Route } from "./routes/route.js";

/**
 * Every route the handler serves, in matching order (fixed paths before parameters), and last the
 * OpenAPI document of those it documents, itself included (not `/mcp` nor the passthrough, which
 * say `openApi: false`). One table per handler: the document is built from the handler's settings
 * (its basePath, whether it has limits) on first request.
 */
export function createRouteTable(): Route[] {
  const routes = [
    ...catalogRoutes,
    ...authRoutes,
    ...connectionRoutes,
    ...executeRoutes,
    ...proxyRoutes,
    ...fileRoutes,
    ...iconRoutes,
    ...connectRoutes,
    ...mcpRoutes,
    ...passthroughRoutes,
  ];
  return [...routes, openApiRoute(routes)];
}
