/**
 * The router on itty-router (src/routes/router.ts) over the handler's real route table: for every
 * (method, path) pair built from the table under three base paths (each route's path with plain,
 * percent-encoded and dotted parameters, trailing slashes, extra segments, the rest of a `*` path,
 * and paths no route has), the same route, parameters and `Allow` as the hand-written matcher it
 * replaced, kept as the reference in test/support/hand-router.ts.
 */
import { describe, expect, it } from "vitest";
import { createRouteTable } from "../../src/route-table.js";
import type { Route } from "../../src/routes/route.js";
import { createRouter } from "../../src/routes/router.js";
import { createHandRouter } from "../support/hand-router.js";

const BASE_PATHS = ["/proxy/tools", "", "/api/v1.2"];
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "PROPFIND"];
const VALUES = ["notes", "a%2Fb%20c", "%C3%A9t%C3%A9", "v1.2", "x.svg", "%2E%2E", "~-_"];
const RESTS = ["", "/", "/v1/items", "/v1/items/", "/a%2Fb", "/.", "//twice"];

/** A route's path with each parameter given `value` (a `*` left for the caller). */
const filled = (path: string, value: string) => path.replace(/:[A-Za-z]+/g, value);

function pathsOf(table: Route[], base: string): string[] {
  const paths = new Set<string>([
    base,
    `${base}/`,
    "/",
    "",
    "/nope",
    `${base}/nope`,
    `${base}//search`,
    `${base}/SEARCH`,
    `${base}X/search`,
  ]);
  for (const route of table) {
    for (const value of VALUES) {
      const path = filled(route.path, value);
      if (path.endsWith("/*")) for (const rest of RESTS) paths.add(`${base}${path.slice(0, -2)}${rest}`);
      else for (const tail of ["", "/", "//", "/more", ".json", "x"]) paths.add(`${base}${path}${tail}`);
      paths.add(path); // without the base path
    }
  }
  for (const odd of [
    "/icons/.svg",
    "/icons/a.svg.svg",
    "/icons/a.png",
    "/passthrough",
    "/passthrough/",
    "/toolkit//search",
    "/connections/a/b",
  ])
    paths.add(`${base}${odd}`);
  return [...paths];
}

/** A match as plain data: the route by its method and path, so that a difference reads well. */
function shown(match: ReturnType<ReturnType<typeof createRouter>["match"]>) {
  return match.kind === "route" ? { route: `${match.route.method} ${match.route.path}`, params: { ...match.params } } : match;
}

describe("the router on itty-router", () => {
  it("selects what the hand-written matcher did, for every method and path built from the route table", () => {
    const table = createRouteTable();
    let cases = 0;
    const differences: string[] = [];
    for (const base of BASE_PATHS) {
      const router = createRouter(table, base);
      const reference = createHandRouter(table, base);
      for (const path of pathsOf(table, base)) {
        for (const method of METHODS) {
          cases++;
          const [got, want] = [shown(router.match(method, path)), shown(reference.match(method, path))];
          try {
            expect(got).toEqual(want);
          } catch {
            differences.push(`${method} ${path}: ${JSON.stringify(got)} instead of ${JSON.stringify(want)}`);
          }
        }
      }
    }
    expect(differences).toEqual([]);
    expect(cases).toBeGreaterThan(3000);
  });

  it("keeps parameters percent-encoded, ignores trailing slashes, serves HEAD by GET and gives Allow", () => {
    const router = createRouter(createRouteTable(), "/proxy/tools");
    expect(shown(router.match("HEAD", "/proxy/tools/toolkit/a%2Fb/"))).toEqual({
      route: "GET /toolkit/:toolkit",
      params: { toolkit: "a%2Fb" },
    });
    expect(shown(router.match("GET", "/proxy/tools/icons/git.hub.svg"))).toEqual({
      route: "GET /icons/:slug.svg",
      params: { slug: "git.hub" },
    });
    expect(shown(router.match("PATCH", "/proxy/tools/passthrough/notes"))).toEqual({
      route: "* /passthrough/:toolkit/*",
      params: { toolkit: "notes" },
    });
    expect(router.match("OPTIONS", "/proxy/tools/passthrough/notes/v1/items")).toEqual({
      kind: "method",
      allow: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    });
    expect(router.match("DELETE", "/proxy/tools/search/")).toEqual({ kind: "method", allow: ["GET", "HEAD", "OPTIONS"] });
    expect(router.match("GET", "/proxy/tools/connections/c1")).toEqual({ kind: "method", allow: ["DELETE", "OPTIONS"] });
    expect(router.match("GET", "/proxy/toolsX/search")).toEqual({ kind: "none" });
    expect(router.match("GET", "/proxy/tools/toolkit//search")).toEqual({ kind: "none" });
  });
});
