import { authRoutes } from "./auth.js";
import { catalogRoutes } from "./catalog.js";
import { connectRoutes } from "./connect.js";
import { connectionRoutes } from "./connections.js";
import { executeRoutes } from "./execute.js";
import { fileRoutes } from "./files.js";
import { iconRoutes } from "./icons.js";
import { openApiRoute } from "./openapi.js";
import { proxyRoutes } from "./proxy.js";
import type { Route } from "./route.js";

/**
 * Every route of the Tools API, in matching order (fixed paths before parameters), and last the
 * OpenAPI document of them all, itself included. One list per handler: the document is built
 * from the handler's settings (its basePath, whether it has limits) on first request.
 */
export function createRoutes(): Route[] {
  const api = [
    ...catalogRoutes,
    ...authRoutes,
    ...connectionRoutes,
    ...executeRoutes,
    ...proxyRoutes,
    ...fileRoutes,
    ...iconRoutes,
    ...connectRoutes,
  ];
  return [...api, openApiRoute(api)];
}
