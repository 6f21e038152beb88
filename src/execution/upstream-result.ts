import type { z } from "zod";
import type { ProxyResultSchema } from "../api/execution.js";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { parseAnswerJson } from "../core/json-depth.js";
import type { AgentPrincipal } from "../core/principal.js";
import { type RateLimitHeaders, retryHintOf } from "../core/rate-limit-headers.js";
import { redact, redactData, secretForms } from "../core/redact.js";
import { ToolRunError } from "../core/tool-error.js";
import { isWholeWithin, takeWholeBody } from "../core/whole-bodies.js";
import { newStagingKey, ownerMetadata, stageMasked } from "../uploads/staging.js";
import { BodyTooLargeError, limitBytes, readBytes } from "../util/bytes.js";

/** One decoder for every answer: decoding without `stream` keeps no state between calls. */
const decoder = new TextDecoder();

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
 * The upstream headers a caller gets back (`filterResponseHeaders`), with the call's secrets
 * redacted: an upstream that echoes the request (its URL with a query key, in a Location) must
 * not hand the connection's credential to the agent. `forms`: the secrets' forms, when the caller
 * has them already.
 */
export function passedHeaders(headers: Headers, secrets: string[], forms = secretForms(secrets)): Record<string, string> {
  return redactData(filterResponseHeaders(headers), forms) as Record<string, string>;
}

/** A proxy call's ExecutionResult: the upstream status (null when no answer came) and filtered headers. */
export type ProxyResult = z.output<typeof ProxyResultSchema>;

/**
 * The ExecutionResult of an upstream answer, with the connection's secrets redacted from its
 * headers and its JSON or text data, and masked in a body it stages: `successful` below
 * status 400, otherwise an
 * `upstream_error` with `upstreamStatus`, `retryable` and `retryAfterMs` (`retryHintOf`: the
 * Retry-After delay, or the reset of the toolkit's declared `rateLimit` headers). A body past
 * `ctx.maxResponseBytes` is `response_too_large`; one that breaks off is `upstream_unreachable`.
 */
export async function upstreamResult(
  ctx: HandlerContext,
  agent: AgentPrincipal,
  response: Response,
  secrets: string[],
  signal: AbortSignal,
  rateLimit?: RateLimitHeaders,
): Promise<ProxyResult> {
  // An upstream that echoes the request (its URL with a query key, in a Location or an error
  // page) must not hand the connection's credential to the agent.
  const forms = secretForms(secrets);
  const answer = { status: response.status, headers: passedHeaders(response.headers, secrets, forms) };
  let data: unknown;
  try {
    data = redactData(await readUpstreamData(ctx, agent, response, forms, signal), forms);
  } catch (error) {
    if (error instanceof ToolsError) throw error; // the blob store is down: a 503, not an upstream fault
    const tooLarge = error instanceof BodyTooLargeError;
    return {
      data: null,
      error: tooLarge ? `The upstream response is larger than ${ctx.maxResponseBytes} bytes.` : "The upstream response was cut off.",
      successful: false,
      code: tooLarge ? "response_too_large" : "upstream_unreachable",
      retryable: !tooLarge,
      upstreamStatus: response.status,
      ...answer,
    };
  }
  if (response.status < 400) return { data, error: null, successful: true, ...answer };
  const { retryable, retryAfterMs } = retryHintOf(response, rateLimit);
  return {
    data,
    error: redact(`Upstream answered ${response.status}${response.statusText ? ` ${response.statusText}` : ""}.`, secrets),
    successful: false,
    code: "upstream_error",
    retryable,
    retryAfterMs, // JSON leaves it out when undefined
    upstreamStatus: response.status,
    ...answer,
  };
}

/**
 * The upstream body as result data, never holding more than `ctx.maxResponseBytes`: JSON parsed,
 * text as a string (both for the caller to redact), anything else streamed into the blob store for
 * the calling agent with the secrets' `forms` masked (`stageMasked`) and returned as
 * `{ stagingKey, contentType, size, expiresAt }`. An empty body is null. Throws
 * `BodyTooLargeError` as soon as the declared or counted size passes the limit (nothing is
 * staged), or the stream's error when the body breaks off.
 */
export async function readUpstreamData(
  ctx: HandlerContext,
  agent: AgentPrincipal,
  response: Response,
  forms: readonly string[],
  signal: AbortSignal,
): Promise<unknown> {
  const maxBytes = ctx.maxResponseBytes;
  // An answer read whole already (`createUndiciFetch`): its bytes, without a stream around them.
  const whole = takeWholeBody(response);
  if (whole && whole.byteLength > maxBytes) throw new BodyTooLargeError(maxBytes);
  // A 304 (or 204) has no body whatever length it declares: RFC 9110 lets a 304 carry the length of the 200.
  const body = whole ? null : response.body;
  if (!whole && !body) return null;
  // No Content-Length is Number(null), 0; one that is not a number is NaN: neither is over the cap.
  if (Number(response.headers.get("content-length")) > maxBytes) {
    await body?.cancel().catch(() => {});
    throw new BodyTooLargeError(maxBytes);
  }
  const bytes = () => (whole ? Promise.resolve(whole) : readBytes(body, maxBytes));
  const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "application/json" || type.endsWith("+json")) {
    const text = decoder.decode(await bytes());
    return text === "" ? null : parseAnswerJson(text);
  }
  if (isTextual(type)) return decoder.decode(await bytes()) || null;
  const stream = whole ? new Blob([whole as Uint8Array<ArrayBuffer>]).stream() : body!.pipeThrough(limitBytes(maxBytes));
  return stageStream(ctx, agent, stream, type, forms, signal);
}

/** Streams a body into the blob store as a staged file of the agent, its secrets masked; null when it was empty. */
async function stageStream(
  ctx: HandlerContext,
  agent: AgentPrincipal,
  body: ReadableStream<Uint8Array>,
  contentType: string,
  forms: readonly string[],
  signal: AbortSignal,
) {
  const stagingKey = newStagingKey();
  const expiresAt = new Date(Date.now() + ctx.uploads.ttlMs);
  const info = await ctx.blobStore.put(stagingKey, stageMasked(ctx, body, contentType, forms), {
    contentType,
    metadata: ownerMetadata(agent),
    expiresAt,
    signal,
  });
  if (info.size === 0) {
    await ctx.blobStore.delete(stagingKey);
    return null;
  }
  return { stagingKey, contentType: info.contentType, size: info.size, expiresAt: info.expiresAt.toISOString() };
}

/**
 * The same response with a body that errors with a `ToolRunError` (code `response_too_large`)
 * once more than `maxBytes` have been read, so a tool cannot pull an unbounded body into memory.
 * A declared Content-Length over the limit fails the same way at the first read.
 */
export function capResponseBody(response: Response, maxBytes: number): Response {
  // An answer read whole already (`createUndiciFetch`) within the limit needs no cap.
  if (isWholeWithin(response, maxBytes)) return response;
  if (!response.body) return response;
  const tooLarge = () =>
    new ToolRunError(`The upstream response is larger than ${maxBytes} bytes.`, {
      code: "response_too_large",
      upstreamStatus: response.status,
    });
  const body =
    Number(response.headers.get("content-length")) > maxBytes // no header: Number(null), 0
      ? failingStream(response.body, tooLarge())
      : response.body.pipeThrough(limitBytes(maxBytes, tooLarge));
  const capped = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  Object.defineProperty(capped, "url", { value: response.url });
  return capped;
}

function failingStream(source: ReadableStream<Uint8Array>, error: Error): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      source.cancel().catch(() => {});
      controller.error(error);
    },
  });
}

function isTextual(type: string): boolean {
  return (
    type === "" ||
    type.startsWith("text/") ||
    type.endsWith("+xml") ||
    ["application/xml", "application/javascript", "application/x-www-form-urlencoded", "application/graphql"].includes(type)
  );
}
