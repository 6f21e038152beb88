import { authRoutes } from "./auth.js";
import { catalogRoutes } from "./catalog.js";
import { connectionRoutes } from "./connections.js";
import { executeRoutes } from "./execute.js";
import { fileRoutes } from "./files.js";
import { openApiRoute } from "./openapi.js";
import { proxyRoutes } from "./proxy.js";
import type { RouteDefinition } from "./route.js";

/** Every route of the Tools API, in matching order (fixed paths before parameters). */
export const allRoutes: RouteDefinition[] = [
  ...catalogRoutes,
  ...authRoutes,
  ...connectionRoutes,
  ...executeRoutes,
  ...proxyRoutes,
  ...fileRoutes,
];
allRoutes.push(openApiRoute(() => allRoutes));
