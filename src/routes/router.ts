import type { Route } from "./route.js";

/** What a request's method and path select. */
export type RouteMatch =
  | { kind: "route"; route: Route; params: Record<string, string> }
  /** The path exists but not with this method: the methods it has, for `Allow`. */
  | { kind: "method"; allow: string[] }
  | { kind: "none" };

/**
 * Matches requests to routes under `basePath`. A `:name` segment matches one path segment (still
 * percent-encoded), and `:name.svg` one that ends with `.svg`; trailing slashes are ignored. HEAD is served by a GET route. Routes are tried in
 * order, so fixed paths come before parameters. A path that exists with other methods gives their
 * list, for a 405 with `Allow` and for OPTIONS.
 */
export function createRouter(routes: Route[], basePath: string) {
  const compiled = routes.map((route) => ({
    route,
    pattern: new RegExp(
      `^${escapeRegExp(basePath)}${route.path
        .split("/")
        .map((part) => {
          // `:name` is a whole segment; `:name.svg` a segment that ends with `.svg`, without it.
          const param = /^:([A-Za-z]+)(.*)$/.exec(part);
          return param ? `(?<${param[1]}>[^/]+?)${escapeRegExp(param[2]!)}` : escapeRegExp(part);
        })
        .join("/")}/*$`,
    ),
  }));
  return {
    match(method: string, pathname: string): RouteMatch {
      const wanted = method === "HEAD" ? "GET" : method;
      const allow = new Set<string>();
      for (const { route, pattern } of compiled) {
        const found = pattern.exec(pathname);
        if (!found) continue;
        if (route.method === wanted) return { kind: "route", route, params: { ...found.groups } };
        allow.add(route.method);
      }
      if (allow.size === 0) return { kind: "none" };
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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
