import { z } from "zod";
import { accessConnection } from "../connections/access.js";
import { resolveConnection } from "../connections/resolve.js";
import { ToolsError } from "../errors.js";
import { withTimeout } from "../execution/result.js";
import { json } from "../http.js";
import { redact } from "../logger.js";
import { createOutboundFetch, describeFetchFailure } from "../outbound/fetch.js";
import { bodyToData, filterResponseHeaders } from "../outbound/response.js";
import { BodyTooLargeError, readBytes } from "../util/bytes.js";
import { ToolRunError, isRetryableStatus, parseRetryAfter } from "../toolkits/tool-error.js";
import { requireAgent } from "./agent.js";
import { defineRoute } from "./route.js";
import { ExecutionResultSchema, errors, idParam } from "./schemas.js";

const ProxyBodySchema = z.object({
  toolkit: idParam,
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]),
  url: z
    .string()
    .max(8192)
    .refine((url) => URL.canParse(url), "must be a full URL such as https://api.example.com/v1/items")
    .meta({ description: "Full URL; must fall under one of the toolkit's base URLs." }),
  headers: z.record(z.string().max(256), z.string().max(8192)).optional(),
  body: z.unknown().optional().meta({ description: "JSON value sent as the body (POST, PUT, PATCH). A string is sent as text unless Content-Type says JSON." }),
  connection_id: idParam.optional(),
});

const ProxyResultSchema = ExecutionResultSchema.extend({
  status: z.number().nullable().meta({ description: "Upstream HTTP status; null when no answer came." }),
  headers: z.record(z.string(), z.string()).meta({ description: "A filtered set of upstream response headers." }),
}).meta({ id: "ProxyResult" });

export const proxyRoutes = [
  defineRoute({
    method: "POST",
    path: "/proxy",
    summary: "Send an HTTP request to the toolkit's own API with the connection's credential added.",
    body: ProxyBodySchema,
    responses: { 200: { description: "The upstream answer.", schema: ProxyResultSchema }, ...errors(400, 401, 402, 404, 409, 429, 503) },
    async handle({ body, principal, request }, ctx) {
      const agent = requireAgent(principal);
      const toolkit = await ctx.registry.get(body.toolkit);
      if (!toolkit) throw new ToolsError("not_found", `No toolkit "${body.toolkit}". Find toolkits with GET ${ctx.basePath}/search?keywords=...`);
      if (body.body !== undefined && (body.method === "GET" || body.method === "DELETE")) {
        throw new ToolsError("invalid_request", `A ${body.method} request cannot carry a body; send it with POST, PUT or PATCH, or drop "body".`);
      }
      const connection = await resolveConnection(ctx, agent, toolkit, body.connection_id);
      const access = await accessConnection(ctx, toolkit, connection);
      const { headers, payload } = encodeBody(body.headers ?? {}, body.body);

      const started = performance.now();
      // On a timeout, withTimeout rejects at once (handled in the catch below) and whatever the
      // callback returns later is ignored; inside it, failures are never timeouts.
      const result = await withTimeout(toolkit.timeoutMs ?? ctx.timeouts.proxyMs, request.signal, async (signal) => {
        const outbound = createOutboundFetch({ fetch: ctx.fetch, toolkit, credential: access.credential, refreshAfterUnauthorized: access.refreshAfterUnauthorized, params: connection?.params ?? {}, signal });
        let response: Response;
        try {
          response = await outbound(body.url, { method: body.method, headers, body: payload });
        } catch (error) {
          if (error instanceof ToolsError) throw error; // A refused URL or header is the caller's error: a 400.
          const failure = describeFetchFailure(error, false);
          ctx.logger.log("warn", "proxy request failed", { toolkit: toolkit.slug, error }, access.secrets());
          return { data: null, error: failure.message, successful: false, code: failure.code, retryable: failure.retryable, status: null, headers: {} };
        }
        const responseHeaders = filterResponseHeaders(response.headers);
        let bytes: Uint8Array;
        try {
          bytes = await readBytes(response.body, ctx.maxResponseBytes);
        } catch (error) {
          const tooLarge = error instanceof BodyTooLargeError;
          return {
            data: null,
            error: tooLarge ? `The upstream response is larger than ${ctx.maxResponseBytes} bytes.` : "The upstream response was cut off.",
            successful: false,
            code: tooLarge ? "response_too_large" : "upstream_unreachable",
            retryable: !tooLarge,
            upstreamStatus: response.status,
            status: response.status,
            headers: responseHeaders,
          };
        }
        const data = await bodyToData(ctx, agent, bytes, response.headers.get("content-type") ?? "");
        if (response.status < 400) return { data, error: null, successful: true, status: response.status, headers: responseHeaders };
        const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
        return {
          data,
          error: redact(`Upstream answered ${response.status}${response.statusText ? ` ${response.statusText}` : ""}.`, access.secrets()),
          successful: false,
          code: "upstream_error",
          retryable: isRetryableStatus(response.status),
          ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
          upstreamStatus: response.status,
          status: response.status,
          headers: responseHeaders,
        };
      }).catch((error: unknown) => {
        if (error instanceof ToolsError) throw error;
        const failure = describeFetchFailure(error, error instanceof ToolRunError && error.code === "timeout");
        return { data: null, error: failure.message, successful: false, code: failure.code, retryable: failure.retryable, status: null, headers: {} };
      });

      ctx.emit("proxy.requested", {
        principal: agent,
        toolkit: toolkit.slug,
        connectionId: connection?.id ?? null,
        method: body.method,
        host: safeHost(body.url),
        status: result.status,
        durationMs: performance.now() - started,
      });
      return json(result);
    },
  }),
];

/** JSON values go as JSON; a string goes as text unless the caller's Content-Type says JSON. */
function encodeBody(callerHeaders: Record<string, string>, body: unknown): { headers: Record<string, string>; payload: string | undefined } {
  if (body === undefined) return { headers: callerHeaders, payload: undefined };
  const headers = { ...callerHeaders };
  const typeName = Object.keys(headers).find((name) => name.toLowerCase() === "content-type");
  const type = typeName ? headers[typeName]! : undefined;
  if (typeof body === "string" && !(type && /json/i.test(type))) {
    if (!typeName) headers["content-type"] = "text/plain; charset=utf-8";
    return { headers, payload: body };
  }
  if (!typeName) headers["content-type"] = "application/json";
  return { headers, payload: JSON.stringify(body) };
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}
