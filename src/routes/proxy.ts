import type { z } from "zod";
import { ProxyBodySchema, ProxyResultSchema } from "../api/execution.js";
import type { BlobObject } from "../blob/types.js";
import { ToolsError } from "../core/errors.js";
import { json } from "../core/http.js";
import { requireAgent } from "../core/principal.js";
import { type CallOutcome, runCall } from "../execution/call.js";
import { type ProxyResult, upstreamResult } from "../execution/upstream-result.js";
import type { OutboundInit } from "../outbound/fetch.js";
import { requireToolkit } from "../toolkits/registry.js";
import { openStagedBlob, uploadAgainHint } from "../uploads/staging.js";
import { defineRoute } from "./route.js";
import { errors } from "./schemas.js";

export const proxyRoutes = [
  defineRoute({
    method: "POST",
    path: "/proxy",
    summary: "Send an HTTP request to the toolkit's own API with the connection's credential added.",
    body: ProxyBodySchema,
    responses: { 200: { description: "The upstream answer.", schema: ProxyResultSchema }, ...errors(400, 401, 402, 404, 409, 429, 503) },
    async handle({ body, principal, request }, ctx) {
      const agent = requireAgent(principal);
      const toolkit = await requireToolkit(ctx.registry, body.toolkit, ctx.basePath);
      checkBodyFields(body);
      const file = body.bodyFile === undefined ? null : await openStagedBlob(ctx, agent, body.bodyFile);
      if (body.bodyFile !== undefined && !file) {
        throw new ToolsError(
          "invalid_request",
          `bodyFile: no staged file "${body.bodyFile}" for this agent (unknown or expired); ${uploadAgainHint(ctx.basePath)}.`,
        );
      }
      const init = file ? fileInit(body.headers ?? {}, file) : encodeBody(body.headers ?? {}, body.body);
      let outcome: CallOutcome<ProxyResult>;
      try {
        outcome = await runCall(ctx, {
          kind: "proxy",
          name: toolkit.slug,
          agent,
          toolkit,
          connectionId: body.connection_id,
          timeoutMs: toolkit.timeoutMs ?? ctx.timeouts.proxyMs,
          signal: request.signal,
          run: async ({ fetch, signal, secrets }) =>
            upstreamResult(ctx, agent, await fetch(body.url, { method: body.method, ...init }), secrets(), signal, toolkit.rateLimit),
        });
      } finally {
        void file?.body.cancel().catch(() => {}); // Frees the blob when nothing read it (a refused URL).
      }
      const result: ProxyResult = outcome.ok ? outcome.value : { ...outcome.failure, status: null, headers: {} };
      ctx.emit("proxy.requested", {
        principal: agent,
        toolkit: toolkit.slug,
        connectionId: outcome.connection?.id ?? null,
        method: body.method,
        host: safeHost(body.url),
        status: result.status,
        durationMs: outcome.durationMs,
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
    throw new ToolsError(
      "invalid_request",
      `A ${body.method} request cannot carry a body; send it with POST, PUT or PATCH, or drop "${field}".`,
    );
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
