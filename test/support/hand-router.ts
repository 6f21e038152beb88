/**
 * The hand-written matcher `src/routes/router.ts` had before routing moved to itty-router, kept
 * unchanged as the reference its replacement is compared with (test/routes/router.test.ts) and
 * measured against (bench/router-match.ts).
 */
import type { Route } from "../../src/routes/route.js";

/** What a request's method and path select. */
type RouteMatch =
  | { kind: "route"; route: Route; params: Record<string, string> }
  /** The path exists but not with this method: the methods it has, for `Allow`. */
  | { kind: "method"; allow: string[] }
  | { kind: "none" };

/**
 * Matches requests to routes under `basePath` (see `routePattern`; parameters stay
 * percent-encoded, trailing slashes are ignored). HEAD is served by a GET route, and a `*` route
 * takes every method but OPTIONS. Routes are tried in order, so fixed paths come before
 * parameters. A path that exists with other methods gives their list, for a 405 with `Allow` and
 * for OPTIONS.
 */
export function createHandRouter(routes: Route[], basePath: string) {
  const compiled = routes.map((route) => ({ route, pattern: routePattern(basePath, route.path) }));
  return {
    match(method: string, pathname: string): RouteMatch {
      const wanted = method === "HEAD" ? "GET" : method;
      const allow = new Set<string>();
      for (const { route, pattern } of compiled) {
        const found = pattern.exec(pathname);
        if (!found) continue;
        if (route.method === wanted || (route.method === "*" && method !== "OPTIONS"))
          return { kind: "route", route, params: { ...found.groups } };
        allow.add(route.method);
      }
      if (allow.size === 0) return { kind: "none" };
      if (allow.has("*")) return { kind: "method", allow: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] };
      if (allow.has("GET")) allow.add("HEAD");
      return { kind: "method", allow: [...allow, "OPTIONS"] };
    },
    /** The methods a path answers (with HEAD and OPTIONS), or null when no route has it. */
    methodsOf(pathname: string): string[] | null {
      const found = this.match("OPTIONS", pathname);
      return found.kind === "method" ? found.allow : null;
    },
  };
}

/**
 * The pattern of a route path: `:name` is a whole segment, `:name.svg` a segment that ends with
 * `.svg` (without it), and a last `/*` the rest of the path (a `/` and anything after, or nothing).
 */
function routePattern(basePath: string, path: string): RegExp {
  const rest = path.endsWith("/*");
  const segments = (rest ? path.slice(0, -2) : path).split("/").map((part) => {
    const param = /^:([A-Za-z]+)(.*)$/.exec(part);
    return param ? `(?<${param[1]}>[^/]+?)${escapeRegExp(param[2]!)}` : escapeRegExp(part);
  });
  return new RegExp(`^${escapeRegExp(basePath)}${segments.join("/")}${rest ? "(?:/.*)?$" : "/*$"}`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
