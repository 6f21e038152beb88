import type { z } from "zod";
import { accessConnection, outboundFetchFor } from "../execution/access.js";
import { resolveConnection } from "../connections/resolve.js";
import { ToolsError } from "../core/errors.js";
import { failureFromError, withTimeout } from "../execution/result.js";
import { json } from "../core/http.js";
import type { BlobObject } from "../blob/types.js";
import type { OutboundInit } from "../outbound/fetch.js";
import { upstreamResult, type ProxyResult } from "../execution/upstream-result.js";
import { ToolRunError } from "../core/tool-error.js";
import { openStagedBlob } from "../uploads/staging.js";
import { requireAgent } from "../core/principal.js";
import { defineRoute } from "./route.js";
import { errors } from "./schemas.js";
import { ProxyBodySchema, ProxyResultSchema } from "../api/execution.js";

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
      checkBodyFields(body);
      const connection = await resolveConnection(ctx, agent, toolkit, body.connection_id);
      const access = await accessConnection(ctx, toolkit, connection);
      const file = body.bodyFile === undefined ? null : await openStagedBlob(ctx, agent, body.bodyFile);
      if (body.bodyFile !== undefined && !file) {
        throw new ToolsError("invalid_request", `bodyFile: no staged file "${body.bodyFile}" for this agent (unknown or expired); upload it with POST ${ctx.basePath}/upload.`);
      }
      const init = file ? fileInit(body.headers ?? {}, file) : encodeBody(body.headers ?? {}, body.body);

      const started = performance.now();
      const timeoutMs = toolkit.timeoutMs ?? ctx.timeouts.proxyMs;
      // On a timeout, withTimeout rejects at once and whatever the callback does later is ignored.
      const result: ProxyResult = await withTimeout(timeoutMs, request.signal, async (signal) => {
        const outbound = outboundFetchFor(ctx, toolkit, connection, access, { signal, deadline: started + timeoutMs });
        const response = await outbound(body.url, { method: body.method, ...init });
        return upstreamResult(ctx, agent, response, access.secrets(), signal);
      })
        .catch((error: unknown): ProxyResult => {
          // A refused URL or header is the caller's 400; a store that is down, a 503.
          if (error instanceof ToolsError) throw error;
          const timedOut = error instanceof ToolRunError && error.code === "timeout";
          if (!timedOut) ctx.logger.log("warn", "proxy request failed", { toolkit: toolkit.slug, error }, access.secrets());
          return { ...failureFromError(error, access.secrets()), status: null, headers: {} };
        })
        .finally(() => file?.body.cancel().catch(() => {})); // Frees the blob when nothing read it (a refused URL).

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

/** `body` and `bodyFile` exclude each other, and only POST, PUT and PATCH carry either. */
function checkBodyFields(body: z.output<typeof ProxyBodySchema>): void {
  if (body.body !== undefined && body.bodyFile !== undefined) {
    throw new ToolsError("invalid_request", 'Send either "body" (a JSON value or text) or "bodyFile" (a staging key), not both.');
  }
  const field = body.bodyFile !== undefined ? "bodyFile" : body.body !== undefined ? "body" : null;
  if (field && (body.method === "GET" || body.method === "DELETE")) {
    throw new ToolsError("invalid_request", `A ${body.method} request cannot carry a body; send it with POST, PUT or PATCH, or drop "${field}".`);
  }
}

/** A staged file as the raw body: its bytes streamed, its length, and its type unless the caller set one. */
function fileInit(callerHeaders: Record<string, string>, file: BlobObject): OutboundInit {
  const hasType = Object.keys(callerHeaders).some((name) => name.toLowerCase() === "content-type");
  return {
    headers: hasType ? callerHeaders : { ...callerHeaders, "content-type": file.contentType },
    body: file.body,
    contentLength: file.size,
  };
}

/** JSON values go as JSON; a string goes as text unless the caller's Content-Type says JSON. */
function encodeBody(callerHeaders: Record<string, string>, body: unknown): { headers: Record<string, string>; body?: string } {
  if (body === undefined) return { headers: callerHeaders };
  const headers = { ...callerHeaders };
  const typeName = Object.keys(headers).find((name) => name.toLowerCase() === "content-type");
  const type = typeName ? headers[typeName]! : undefined;
  if (typeof body === "string" && !(type && /json/i.test(type))) {
    if (!typeName) headers["content-type"] = "text/plain; charset=utf-8";
    return { headers, body };
  }
  if (!typeName) headers["content-type"] = "application/json";
  return { headers, body: JSON.stringify(body) };
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}
