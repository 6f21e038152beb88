import { StagedUploadSchema } from "../api/files.js";
import { ToolsError } from "../core/errors.js";
import { json } from "../core/http.js";
import { requireAgent } from "../core/principal.js";
import { receiveUpload } from "../uploads/multipart.js";
import { newStagingKey, openStagedBlob, ownerMetadata, uploadAgainHint } from "../uploads/staging.js";
import { defineRoute, type Route } from "./route.js";
import { errors } from "./schemas.js";

/** `POST /upload` stages a file; `GET /files/:stagingKey` gives it back to the agent that staged it. */
export const fileRoutes: Route[] = [
  defineRoute({
    method: "POST",
    path: "/upload",
    summary: "Stage a file (multipart part `file`) for tools that take file input.",
    requestBody: {
      contentType: "multipart/form-data",
      schema: {
        type: "object",
        properties: { file: { type: "string", format: "binary", description: "The file. Other parts are ignored." } },
        required: ["file"],
      },
    },
    responses: {
      200: { description: "The file is staged.", schema: StagedUploadSchema },
      ...errors(400, 401, 413, 415, 503),
    },
    async handle({ request, principal }, ctx) {
      const agent = requireAgent(principal);
      const stagingKey = newStagingKey();
      const info = await receiveUpload(request, ctx, {
        key: stagingKey,
        metadata: ownerMetadata(agent),
        expiresAt: new Date(Date.now() + ctx.uploads.ttlMs),
      });
      ctx.emit("file.staged", { principal: agent, stagingKey, size: info.size, contentType: info.contentType });
      return json({ stagingKey, contentType: info.contentType, size: info.size, expiresAt: info.expiresAt.toISOString() });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/files/:stagingKey",
    summary: "Download a staged file; only the agent that staged it can.",
    responses: {
      200: { description: "The staged bytes, as an attachment.", contentType: "application/octet-stream" },
      ...errors(400, 401, 404, 503),
    },
    async handle({ params, principal }, ctx) {
      const agent = requireAgent(principal);
      const blob = await openStagedBlob(ctx, agent, params.stagingKey ?? "");
      if (!blob) {
        throw new ToolsError(
          "not_found",
          `No staged file with this key: it expired, was never uploaded, or belongs to another agent; ${uploadAgainHint(ctx.basePath)}.`,
        );
      }
      return new Response(blob.body, {
        headers: {
          "content-type": blob.contentType,
          "content-length": String(blob.size),
          "content-disposition": attachment(blob.filename ?? blob.key),
          "x-content-type-options": "nosniff",
          // The bytes are whatever an agent uploaded: never let a browser run them on our origin.
          "content-security-policy": "default-src 'none'; sandbox",
          "cache-control": "private, no-store",
        },
      });
    },
  }),
];

/**
 * `attachment` with an ASCII `filename` fallback and the exact name as RFC 5987 `filename*`
 * (RFC 6266), so no file name can break out of the header.
 */
export function attachment(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  let encoded: string;
  try {
    encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  } catch {
    encoded = encodeURIComponent(fallback); // a lone surrogate cannot be encoded
  }
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
