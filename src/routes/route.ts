import type { z } from "zod";
import type { HandlerContext } from "../context/context.js";
import type { Principal } from "../core/principal.js";

/** What a route's `handle` receives: the request, already authenticated and validated. */
export interface RouteInput<Query = unknown, Body = unknown> {
  request: Request;
  url: URL;
  /** The caller; null only on public routes. */
  principal: Principal;
  /** Path parameters, already percent-decoded. */
  params: Record<string, string>;
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

/**
 * A route of the Tools API. The same definition serves requests and produces the OpenAPI
 * document, so the two cannot drift apart.
 */
export interface RouteDefinition<Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: "GET" | "POST" | "DELETE";
  /** Path under basePath, with `:name` parameters, e.g. `/toolkit/:toolkit`. */
  path: string;
  summary: string;
  /** Public routes need no API key. */
  public?: boolean;
  query?: Q;
  /** Schema of a JSON request body. Routes with other bodies (upload) read the request themselves. */
  body?: B;
  /** Request body description for non-JSON bodies, e.g. multipart (OpenAPI only). */
  requestBody?: { contentType: string; schema: Record<string, unknown> };
  responses: Record<number, RouteResponse>;
  handle(input: RouteInput<z.output<Q>, z.output<B>>, ctx: HandlerContext): Promise<Response>;
}

/** Declares a route with its types inferred from its schemas. */
export function defineRoute<Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType>(
  route: RouteDefinition<Q, B>,
): RouteDefinition {
  return route as unknown as RouteDefinition;
}
