import type { z } from "zod";
import type { HandlerContext } from "../context/context.js";
import { readJson, readQuery } from "../core/http.js";
import type { Principal } from "../core/principal.js";

/** The parameters of a route path: `"/toolkit/:toolkit"` gives `{ toolkit: string }`, `"/icons/:slug.svg"` `{ slug: string }`. */
export type PathParams<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in ParamName<Name>]: string } & PathParams<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? { [K in ParamName<Name>]: string }
    : Record<never, string>;

/** A parameter's name, without the fixed suffix after it (`slug.svg` is `slug`). */
type ParamName<Segment extends string> = Segment extends `${infer Name}.${string}` ? Name : Segment;

/** What a route's `handle` receives: the request, already authenticated and validated. */
export interface RouteInput<Query, Body, Caller extends Principal | null, Params = Record<string, string>> {
  request: Request;
  url: URL;
  /** The caller: its principal, or null on a public route. */
  principal: Caller;
  /** Path parameters, already percent-decoded: one per `:name` of the route's path. */
  params: Params;
  query: Query;
  body: Body;
}

/** One documented answer of a route, for the OpenAPI document. */
export interface RouteResponse {
  description: string;
  /** Zod schema of a JSON body; omit for no body. */
  schema?: z.ZodType;
  /** Media type when the body is not JSON. */
  contentType?: string;
}

/** What a route says about itself: its method and path, and what the OpenAPI document shows. */
interface RouteMeta<Q extends z.ZodType, B extends z.ZodType, Path extends string = string> {
  /** `"*"`: every method but OPTIONS, which stays the handler's (CORS preflight, `Allow`). */
  method: "GET" | "POST" | "DELETE" | "*";
  /**
   * Path under basePath, with `:name` parameters, e.g. `/toolkit/:toolkit`. A last segment `*`
   * matches the rest of the path, any number of segments or none (the route reads it from `url`).
   */
  path: Path;
  summary: string;
  query?: Q;
  /** Schema of a JSON request body. Routes with other bodies (upload) read the request themselves. */
  body?: B;
  /** Request body description for non-JSON bodies, e.g. multipart (OpenAPI only). */
  requestBody?: { contentType: string; schema: Record<string, unknown> };
  responses: Record<number, RouteResponse>;
  /**
   * `false` for a route the OpenAPI document leaves out: one whose requests are another
   * protocol's (MCP's JSON-RPC) or whose paths are another API's (the passthrough).
   */
  openApi?: false;
  /**
   * Set when the route calls the `limits` hook itself (the MCP route, once per message with the
   * route it stands for); otherwise the handler calls it once per request, after the key check.
   */
  ownLimits?: boolean;
}

type Handle<Q extends z.ZodType, B extends z.ZodType, Path extends string, Caller extends Principal | null> = (
  input: RouteInput<z.output<Q>, z.output<B>, Caller, PathParams<Path>>,
  ctx: HandlerContext,
) => Promise<Response>;

/**
 * A route as it is declared: a public route (no API key) handles a null principal, any other an
 * authenticated one; `query` and `body` are the outputs of its schemas.
 */
export type RouteDefinition<Q extends z.ZodType, B extends z.ZodType, Path extends string> = RouteMeta<Q, B, Path> &
  ({ public: true; handle: Handle<Q, B, Path, null> } | { public?: false; handle: Handle<Q, B, Path, Principal> });

/**
 * A route as the handler serves it. The same definition serves requests and produces the OpenAPI
 * document, so the two cannot drift apart.
 */
export interface Route extends RouteMeta<z.ZodType, z.ZodType> {
  /** Public routes need no API key. */
  public: boolean;
  /** Validates the query and body with the route's schemas, then handles the request. */
  serve(
    call: { request: Request; url: URL; principal: Principal | null; params: Record<string, string> },
    ctx: HandlerContext,
  ): Promise<Response>;
}

/** Declares a route; its `handle` gets inputs typed by its schemas and its kind (public or not). */
export function defineRoute<Q extends z.ZodType = z.ZodUndefined, B extends z.ZodType = z.ZodUndefined, const Path extends string = string>(
  route: RouteDefinition<Q, B, Path>,
): Route {
  const { handle: _handle, ...meta } = route;
  return {
    ...meta,
    public: route.public === true,
    async serve({ request, url, principal, params: found }, ctx) {
      // The router matched `path`, whose pattern captures exactly the `:name` parameters.
      const params = found as PathParams<Path>;
      // A route without a query or body schema gets undefined, which is what z.ZodUndefined outputs.
      const query = (route.query ? readQuery(url, route.query) : undefined) as z.output<Q>;
      const body = (route.body ? await readJson(request, route.body) : undefined) as z.output<B>;
      if (route.public) return route.handle({ request, url, principal: null, params, query, body }, ctx);
      if (!principal) throw new Error(`The authenticated route ${route.method} ${route.path} was served without a principal.`);
      return route.handle({ request, url, principal, params, query, body }, ctx);
    },
  };
}
