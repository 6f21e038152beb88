import { isIP } from "node:net";
import type { z } from "zod";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { cut } from "../core/http.js";
import { hostProblem, refusalReason } from "../outbound/guarded-fetch.js";
import { addressProblem } from "../outbound/origin-policy.js";
import { plainHttpAllowed } from "../toolkits/oauth-endpoints.js";
import { BodyTooLargeError, readBytes } from "../util/bytes.js";

/** The largest metadata document (or registration answer) read, in bytes: real ones are a few KiB. */
export const METADATA_MAX_BYTES = 64 * 1024;
/** Redirects followed for one metadata document, each re-checked. */
export const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Checks a URL that a remote MCP server's metadata named (`what` says which, for the message).
 * On an origin the deployer named (`trusted`: the MCP server's and its listed authorization
 * servers') it only has to be https, or http on a loopback address, as any OAuth endpoint (its
 * address is checked by `discoveryFetch` at each connection); anywhere else it must be https on a
 * host that resolves only to public addresses, unless the handler allows private networks (then
 * http on loopback too). Never user information or a fragment. A refusal is a 400 naming the URL and why.
 */
export async function checkDiscoveredUrl(ctx: HandlerContext, value: string, what: string, trusted: Set<string>): Promise<URL> {
  const refuse = (why: string) =>
    new ToolsError(
      "invalid_request",
      `The ${what} "${cut(value, 200)}" ${why}, so tools-proxy will not use it. Ask the MCP server's operator.`,
    );
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse("is not an absolute URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw refuse("is not an http(s) URL");
  if (url.username || url.password) throw refuse("holds a user name or password");
  if (value.includes("#")) throw refuse("has a fragment");
  // The spec serves every authorization server endpoint over HTTPS; in clear, the code, the
  // verifier, a client secret and the tokens would cross the network.
  if (url.protocol === "http:" && !plainHttpAllowed(url)) throw refuse("is not https (plain http is used only on loopback addresses)");
  if (trusted.has(url.origin) || ctx.origins.allowPrivateNetworks) return url;
  if (url.protocol !== "https:") throw refuse("is not https (outside the origins the toolkit names, only https is used)");
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  const why = isIP(literal) !== 0 ? addressProblem(literal) : await hostProblem(url.hostname, ctx.origins.lookup);
  if (why) throw refuse(`is not on a public address (it ${isIP(literal) !== 0 ? `is ${why}` : why})`);
  return url;
}

/**
 * The fetch for every request of a discovery (the MCP server's and every authorization server's,
 * trusted origins included): the address-checking one, which checks each new connection's
 * addresses (so a name rebound to a private address is caught), unless private networks are allowed.
 */
export function discoveryFetch(ctx: HandlerContext): typeof fetch {
  return ctx.origins.allowPrivateNetworks ? ctx.fetch : ctx.origins.originFetch;
}

/** A JSON document's answer: the status, and the parsed body when it was a 2xx. */
export interface MetadataAnswer {
  status: number;
  url: URL;
  json?: unknown;
}

/**
 * GETs a metadata document: each URL (the first and every redirect's) checked first, at most
 * `MAX_REDIRECTS` redirects, the body read up to `METADATA_MAX_BYTES`, a 2xx parsed as JSON.
 * A status other than 2xx is returned for the caller to judge (a 404 tries the next well-known
 * URL). An unreachable server is a 503; an oversized or malformed 2xx body a 400.
 */
export async function getMetadata(ctx: HandlerContext, start: string, what: string, trusted: Set<string>): Promise<MetadataAnswer> {
  let url = await checkDiscoveredUrl(ctx, start, what, trusted);
  for (let hop = 0; ; hop++) {
    const response = await send(ctx, url, what, { method: "GET", headers: { accept: "application/json" } });
    const location = response.headers.get("location");
    if (REDIRECTS.has(response.status) && location) {
      await response.body?.cancel().catch(() => {});
      if (hop >= MAX_REDIRECTS)
        throw new ToolsError("invalid_request", `The ${what} at ${url.origin} redirects more than ${MAX_REDIRECTS} times.`);
      url = await checkDiscoveredUrl(ctx, new URL(location, url).href, `${what}'s redirect target`, trusted);
      continue;
    }
    if (response.status < 200 || response.status >= 300) {
      await response.body?.cancel().catch(() => {});
      return { status: response.status, url };
    }
    return { status: response.status, url, json: await readJsonBody(response, what, url) };
  }
}

/** Sends one request of the discovery (no redirect followed), with the proxy's timeout; an unreachable server is a 503. */
export async function send(ctx: HandlerContext, url: URL, what: string, init: RequestInit): Promise<Response> {
  try {
    return await discoveryFetch(ctx)(url.href, {
      ...init,
      redirect: "manual",
      signal: AbortSignal.timeout(ctx.timeouts.proxyMs),
    });
  } catch (error) {
    const why = refusalReason(error);
    if (why) {
      throw new ToolsError(
        "invalid_request",
        `The ${what} at ${url.origin} is not on a public address (${url.hostname} ${why}), so tools-proxy will not use it; ` +
          "it connects remote MCP servers and their authorization servers only on public addresses, unless the deployer sets allowPrivateNetworks.",
      );
    }
    throw new ToolsError("unavailable", `The ${what} at ${url.origin} could not be reached; retry shortly.`, { retryAfter: 5 });
  }
}

/** A response body as JSON, read up to `METADATA_MAX_BYTES`; too large or not JSON is a 400. */
export async function readJsonBody(response: Response, what: string, url: URL): Promise<unknown> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > METADATA_MAX_BYTES) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(what, url);
  }
  let bytes: Uint8Array;
  try {
    bytes = await readBytes(response.body, METADATA_MAX_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw tooLarge(what, url);
    throw new ToolsError("unavailable", `The ${what} at ${url.origin} stopped answering midway; retry shortly.`, { retryAfter: 5 });
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new ToolsError("invalid_request", `The ${what} at ${url.origin} is not JSON, so the MCP server cannot be connected with OAuth.`);
  }
}

function tooLarge(what: string, url: URL): ToolsError {
  return new ToolsError(
    "invalid_request",
    `The ${what} at ${url.origin} is larger than ${METADATA_MAX_BYTES / 1024} KiB, so it was not read.`,
  );
}

/** Parses a document with its schema; a mismatch is a 400 naming the first field at fault. */
export function parseDocument<S extends z.ZodType>(schema: S, value: unknown, what: string, url: URL): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.length ? issue.path.map(String).join(".") : "the document";
  throw new ToolsError(
    "invalid_request",
    `The ${what} at ${url.origin} is malformed (${cut(field, 64)}: ${cut(issue?.message ?? "invalid", 120)}), so the MCP server cannot be connected with OAuth.`,
  );
}
