import { STAGING_KEY_PATTERN } from "../api/staged-file.js";
import type { BlobInfo, BlobObject } from "../blob/types.js";
import type { HandlerContext } from "../context/context.js";
import { maskStyleFor, mediaType } from "../core/body-kind.js";
import { ToolsError } from "../core/errors.js";
import type { AgentPrincipal, Principal } from "../core/principal.js";
import { redactStream } from "../core/redact-bytes.js";
import type { StagedFile, StagedFileReference } from "../toolkits/define.js";
import { limitBytes } from "../util/bytes.js";
import { randomId } from "../util/encoding.js";

/** The end of a message about a staged file that is not there. */
export function uploadAgainHint(basePath: string): string {
  return `upload it again with POST ${basePath}/upload`;
}

/** A new staging key: `stg_` and 256 random bits, URL-safe, unguessable. */
export function newStagingKey(): string {
  return randomId("stg_", 32);
}

/**
 * The blob metadata that records who staged a file. A staged file belongs to one agent of one
 * workspace: only a principal with the same `workspaceId` and `agentId` may read it.
 */
export function ownerMetadata(principal: AgentPrincipal): Record<string, string> {
  return { workspaceId: principal.workspaceId, agentId: principal.agentId };
}

/** Whether `principal` owns the blob, by the convention of `ownerMetadata`. */
export function isOwner(blob: Pick<BlobInfo, "metadata">, principal: Principal): boolean {
  return principal.agentId !== null && blob.metadata.workspaceId === principal.workspaceId && blob.metadata.agentId === principal.agentId;
}

/**
 * Opens the staged file `key` for reading by `principal`. Null when the key is malformed, unknown,
 * expired or belongs to someone else: callers cannot tell these apart, so a key never reveals
 * whether another agent's file exists.
 */
export async function openStagedBlob(ctx: HandlerContext, principal: Principal, key: string): Promise<BlobObject | null> {
  if (!STAGING_KEY_PATTERN.test(key)) return null;
  const blob = await ctx.blobStore.get(key);
  if (!blob) return null;
  if (!isOwner(blob, principal)) {
    await blob.body.cancel().catch(() => {});
    return null;
  }
  return blob;
}

/**
 * The staged file `key` as tools see it, or null for a malformed, unknown, expired or foreign key.
 * The bytes are not read until `stream()`, `bytes()` or `text()` is called; each call opens the
 * blob again, and throws `not_found` if it expired in between.
 */
export async function openStagedFile(ctx: HandlerContext, principal: Principal, key: string): Promise<StagedFile | null> {
  if (!STAGING_KEY_PATTERN.test(key)) return null;
  const info = await ctx.blobStore.head(key);
  if (!info || !isOwner(info, principal)) return null;

  const stream = async (): Promise<ReadableStream<Uint8Array>> => {
    const blob = await openStagedBlob(ctx, principal, key);
    if (!blob) throw new ToolsError("not_found", `The staged file ${key} has expired; ${uploadAgainHint(ctx.basePath)}.`);
    return blob.body;
  };
  const bytes = async () => new Uint8Array(await new Response(await stream()).arrayBuffer());
  return {
    stagingKey: key,
    name: info.filename ?? key,
    filename: info.filename,
    contentType: info.contentType,
    size: info.size,
    expiresAt: new Date(info.expiresAt),
    stream,
    bytes,
    text: async () => new TextDecoder().decode(await bytes()),
    toJSON: () => key,
  };
}

/**
 * A body about to be staged for an agent, with every form of the call's secrets (`forms`) masked
 * while it streams: a text type (JSON lines, multipart, `message/http`...) gets `[redacted]`, an
 * untyped one (`application/octet-stream`) is told by its first bytes, and a binary one keeps its
 * length, the secret's bytes overwritten with `*`. A file that comes from an upstream is never
 * handed out with the connection's credential in it; a binary one that was masked is logged, as
 * it is no longer what the upstream sent.
 */
export function stageMasked(
  ctx: HandlerContext,
  body: ReadableStream<Uint8Array>,
  contentType: string,
  forms: readonly string[],
): ReadableStream<Uint8Array> {
  return redactStream(body, forms, maskStyleFor(mediaType(contentType), true), ({ style, masked }) => {
    if (masked > 0 && style === "binary")
      ctx.logger.log("warn", "masked the connection's secret in a binary answer before staging it", { contentType, masked });
  });
}

/**
 * Stages bytes a tool produced as a file of `agent`, with the usual lifetime, at most the
 * handler's response size: a larger body fails with `response_too_large` and nothing is kept.
 * The call's secrets (`forms`) are masked in it (`stageMasked`).
 */
export async function stageToolFile(
  ctx: HandlerContext,
  agent: AgentPrincipal,
  body: ReadableStream<Uint8Array> | Uint8Array | string,
  options: { contentType: string; filename?: string },
  forms: readonly string[],
  signal: AbortSignal,
): Promise<StagedFileReference> {
  const stream = typeof body === "string" || body instanceof Uint8Array ? new Response(body as BodyInit).body! : body;
  const stagingKey = newStagingKey();
  const limited = stream.pipeThrough(limitBytes(ctx.maxResponseBytes));
  const info = await ctx.blobStore.put(stagingKey, stageMasked(ctx, limited, options.contentType, forms), {
    contentType: options.contentType,
    filename: options.filename ?? null,
    metadata: ownerMetadata(agent),
    expiresAt: new Date(Date.now() + ctx.uploads.ttlMs),
    signal,
  });
  ctx.emit("file.staged", { principal: agent, stagingKey, size: info.size, contentType: info.contentType });
  return {
    stagingKey,
    contentType: info.contentType,
    filename: info.filename,
    size: info.size,
    expiresAt: info.expiresAt.toISOString(),
  };
}
