import { z } from "zod";
import type { HandlerContext } from "../context/context.js";
import { json } from "../core/http.js";
import { defineRoute, type Route, type RouteResponse } from "./route.js";
import { errors } from "./schemas.js";

type Schema = Record<string, unknown>;

/**
 * Builds the OpenAPI 3.1 document of the routes (those without `openApi: false`) from the same zod
 * schemas that validate requests. Schemas with a `.meta({ id })` become shared components.
 */
export function buildOpenApiDocument(routes: readonly Route[], ctx: Pick<HandlerContext, "basePath" | "limits">): Schema {
  const components: Record<string, Schema> = {};
  const convert = (schema: z.ZodType, io: "input" | "output"): Schema => {
    const json = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any", override: keepDefault }) as Schema;
    const defs = (json.$defs ?? {}) as Record<string, Schema>;
    delete json.$defs;
    delete json.$schema;
    for (const [id, def] of Object.entries(defs)) components[id] ??= rewriteRefs(def) as Schema;
    if (typeof json.id === "string") {
      const id = json.id;
      delete json.id;
      components[id] ??= rewriteRefs(json) as Schema;
      return { $ref: `#/components/schemas/${id}` };
    }
    return rewriteRefs(json) as Schema;
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (route.openApi === false) continue;
    const path = `${ctx.basePath}${route.path.replace(/:([A-Za-z]+)/g, "{$1}")}`;
    const parameters: Schema[] = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    if (route.query) {
      const query = convert(route.query, "input");
      const properties = (query.properties ?? {}) as Record<string, Schema>;
      const required = new Set((query.required ?? []) as string[]);
      for (const [name, schema] of Object.entries(properties)) parameters.push({ name, in: "query", required: required.has(name), schema });
    }
    const operation: Schema = {
      summary: route.summary,
      operationId: operationId(route),
      ...(route.public ? { security: [] } : {}),
      ...(parameters.length ? { parameters } : {}),
    };
    if (route.body) operation.requestBody = { required: true, content: { "application/json": { schema: convert(route.body, "input") } } };
    if (route.requestBody)
      operation.requestBody = { required: true, content: { [route.requestBody.contentType]: { schema: route.requestBody.schema } } };
    operation.responses = Object.fromEntries(
      Object.entries(responsesOf(route, ctx.limits !== undefined)).map(([status, response]) => [
        status,
        {
          description: response.description,
          ...(response.schema ? { content: { "application/json": { schema: convert(response.schema, "output") } } } : {}),
          ...(response.contentType ? { content: { [response.contentType]: { schema: { type: "string", format: "binary" } } } } : {}),
        },
      ]),
    );
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "Tools API",
      version: "1.0.0",
      description: "Toolkits, connections, tool execution, an authenticated proxy and file staging.",
    },
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "x-api-key" },
        bearer: { type: "http", scheme: "bearer", description: "The same API key, as `Authorization: Bearer <key>`." },
      },
    },
    security: [{ apiKey: [] }, { bearer: [] }],
  };
}

/**
 * A route's answers: the ones it declares, and those every route of its kind can give. Any route
 * may fail (500). An authenticated one answers 401 without a valid key, 400 for a malformed
 * x-agent-id or two different keys, 503 when the store is down, and 402 and 429 when the handler
 * has a `limits` hook. A JSON body can be malformed (400), too large (413) or not JSON (415); a query
 * can be invalid and a path parameter badly encoded (400), or too long to exist (404).
 */
function responsesOf(route: Route, hasLimits: boolean): Record<number, RouteResponse> {
  const implied = [500];
  if (!route.public) implied.push(400, 401, 503, ...(hasLimits ? [402, 429] : []));
  if (route.body) implied.push(400, 413, 415);
  if (route.query) implied.push(400);
  if (route.path.includes(":")) implied.push(400, 404);
  const all: Record<number, RouteResponse> = { ...errors(...implied), ...route.responses };
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => Number(a) - Number(b)));
}

/** Writes a field's default even where zod leaves it out (a default around a preprocessed value, such as `limit`). */
function keepDefault(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const def = (ctx.zodSchema as { _zod?: { def?: { type?: string; defaultValue?: unknown } } })._zod?.def;
  if (def?.type === "default" && ctx.jsonSchema.default === undefined) ctx.jsonSchema.default = def.defaultValue;
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (!value || typeof value !== "object") return value;
  const out: Schema = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === "id" && typeof inner === "string") continue;
    out[key] = key === "$ref" && typeof inner === "string" ? inner.replace("#/$defs/", "#/components/schemas/") : rewriteRefs(inner);
  }
  return out;
}

function operationId(route: Route): string {
  const words = route.path
    .split("/")
    .filter(Boolean)
    .map((w) => (w.startsWith(":") ? `by_${w.slice(1).replace(/\W/g, "_")}` : w));
  return [route.method.toLowerCase(), ...words].join("_");
}

/** `GET /openapi.json`: the document of `routes` and of this route itself, built on first request. */
export function openApiRoute(routes: readonly Route[]): Route {
  let document: Schema | undefined;
  const self: Route = defineRoute({
    method: "GET",
    path: "/openapi.json",
    summary: "This document.",
    public: true,
    responses: { 200: { description: "An OpenAPI 3.1 document." } },
    async handle(_input, ctx) {
      document ??= buildOpenApiDocument([...routes, self], ctx);
      return json(document);
    },
  });
  return self;
}
