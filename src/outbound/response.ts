import type { HandlerContext } from "../context.js";
import type { Principal } from "../store/types.js";
import { newStagingKey, ownerMetadata } from "../uploads/staging.js";

// Upstream headers worth passing back: metadata an agent can act on, never cookies or auth challenges.
const PASSED_HEADERS = new Set([
  "content-type",
  "content-length",
  "content-language",
  "content-disposition",
  "etag",
  "last-modified",
  "cache-control",
  "location",
  "link",
  "retry-after",
  "date",
  "x-request-id",
]);

/** Upstream response headers passed back in a proxy result. */
export function filterResponseHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    if (PASSED_HEADERS.has(name) || name.startsWith("x-ratelimit-") || name.startsWith("ratelimit")) out[name] = value;
  }
  return out;
}

/**
 * The upstream body as result data: JSON parsed, text as a string, anything else staged in the
 * blob store for the calling agent and returned as `{ stagingKey, contentType, size, expiresAt }`.
 */
export async function bodyToData(ctx: HandlerContext, principal: Principal, bytes: Uint8Array, contentType: string): Promise<unknown> {
  if (bytes.byteLength === 0) return null;
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (type === "application/json" || type.endsWith("+json")) {
    const text = new TextDecoder().decode(bytes);
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  if (isTextual(type)) return new TextDecoder().decode(bytes);
  return stageBytes(ctx, principal as Principal & { agentId: string }, bytes, type);
}

/** Stores bytes as a staged file of the agent and returns its reference. */
async function stageBytes(ctx: HandlerContext, principal: Principal & { agentId: string }, bytes: Uint8Array, contentType: string) {
  const stagingKey = newStagingKey();
  const expiresAt = new Date(Date.now() + ctx.uploads.ttlMs);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
  const info = await ctx.blobStore.put(stagingKey, body, { contentType, metadata: ownerMetadata(principal), expiresAt });
  return { stagingKey, contentType: info.contentType, size: info.size, expiresAt: info.expiresAt.toISOString() };
}

function isTextual(type: string): boolean {
  return (
    type === "" ||
    type.startsWith("text/") ||
    type.endsWith("+xml") ||
    ["application/xml", "application/javascript", "application/x-www-form-urlencoded", "application/graphql"].includes(type)
  );
}
