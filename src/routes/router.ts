import { IttyRouter } from "itty-router";
import type { Route } from "./route.js";

/** What a request's method and path select. */
export type RouteMatch =
  | { kind: "route"; route: Route; params: Record<string, string> }
  /** The path exists but not with this method: the methods it has, for `Allow`. */
  | { kind: "method"; allow: string[] }
  | { kind: "none" };

/** What a `*` route answers, for `Allow`: every method, OPTIONS being the handler's own. */
const EVERY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * Matches requests to routes under `basePath` with itty-router's patterns: `:name` is one
 * segment, `:name.svg` one that ends with `.svg` (without it), a last `/*` the rest of the path;
 * parameters stay percent-encoded and trailing slashes are ignored. Routes are tried in order, so
 * fixed paths come before parameters. Over itty-router's table, what it leaves to its user: HEAD
 * is served by a GET route, a `*` route takes every method but OPTIONS, and a path that exists
 * with other methods gives their list, for a 405 with `Allow` and for OPTIONS.
 */
export function createRouter(routes: readonly Route[], basePath: string) {
  const itty = IttyRouter({ base: basePath });
  for (const route of routes) itty[route.method === "*" ? "all" : route.method.toLowerCase()](route.path);
  // Each registration appends one entry to `itty.routes`, so the i-th is `routes[i]` compiled.
  const table = itty.routes.map(([method, pattern], i) => ({ method, pattern, route: routes[i]! }));
  return {
    /** The route for `method` at `pathname` (the request URL's, still percent-encoded). */
    match(method: string, pathname: string): RouteMatch {
      const wanted = method === "HEAD" ? "GET" : method;
      let allow: Set<string> | undefined;
      for (const { method: on, pattern, route } of table) {
        const found = pattern.exec(pathname);
        if (!found) continue;
        if (on === wanted || (on === "ALL" && method !== "OPTIONS")) return { kind: "route", route, params: found.groups ?? {} };
        allow ??= new Set();
        allow.add(on);
      }
      if (!allow) return { kind: "none" };
      if (allow.has("ALL")) return { kind: "method", allow: [...EVERY_METHOD] };
      if (allow.has("GET")) allow.add("HEAD");
      return { kind: "method", allow: [...allow, "OPTIONS"] };
    },
  };
}
