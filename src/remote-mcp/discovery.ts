import { z } from "zod";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { cut } from "../core/http.js";
import type { McpDiscovery } from "../credentials/auth-schemes.js";
import { trustedOrigins } from "../oauth/discovered-mode.js";
import { checkDiscoveredUrl, getMetadata, type MetadataAnswer, parseDocument, send } from "./fetch-metadata.js";

const Url = z.string().min(1).max(2048);
const Strings = z.array(z.string().max(256)).max(200);

/** Protected resource metadata (RFC 9728), the fields used. */
const ResourceMetadataSchema = z.object({
  resource: Url,
  authorization_servers: z.array(Url).min(1).max(20),
  scopes_supported: Strings.optional(),
});

/** Authorization server metadata (RFC 8414, or OpenID Connect discovery), the fields used. */
const ServerMetadataSchema = z.object({
  issuer: Url,
  authorization_endpoint: Url,
  token_endpoint: Url,
  registration_endpoint: Url.optional(),
  revocation_endpoint: Url.optional(),
  code_challenge_methods_supported: Strings.optional(),
  token_endpoint_auth_methods_supported: Strings.optional(),
  scopes_supported: Strings.optional(),
});

export type ResourceMetadata = z.output<typeof ResourceMetadataSchema>;
export type ServerMetadata = z.output<typeof ServerMetadataSchema>;

/** What discovery found for a remote MCP server: its metadata and its authorization server's, every endpoint checked. */
export interface Discovered {
  resource: ResourceMetadata;
  /** The scopes the server's 401 challenge asked for (`scope`), which come before `scopes_supported`. */
  challengeScopes: string[];
  server: ServerMetadata;
  /** The origins the deployer named (the server's and its listed authorization servers'). */
  trusted: Set<string>;
}

/**
 * Discovers a remote MCP server's authorization as the MCP authorization spec says: its protected
 * resource metadata (RFC 9728), then its authorization server's metadata (RFC 8414, then OpenID
 * Connect discovery). The authorization server must be on the MCP server's own origin or one
 * the toolkit lists; the metadata's `resource` must be the server's URL, the `issuer` the one
 * asked for, PKCE with S256 supported; every endpoint passes `checkDiscoveredUrl`. Any failure is
 * a 400 (or a 503 for a server that did not answer) that says what was wrong.
 */
export async function discoverAuthorization(ctx: HandlerContext, discovery: McpDiscovery): Promise<Discovered> {
  const trusted = trustedOrigins(discovery);
  const { metadata: resource, challengeScopes } = await resourceMetadata(ctx, discovery.resource, trusted);
  const issuer = allowedIssuer(resource, discovery, trusted);
  const server = await serverMetadata(ctx, issuer, trusted);
  return { resource, challengeScopes, server, trusted };
}

/**
 * The protected resource metadata: at the URL of the `resource_metadata` parameter of the
 * server's 401 challenge to an unauthenticated request, else at the well-known URL with the
 * server's path, then at the root. Its `resource` must be the server's URL (RFC 9728 3.3 and 7.3).
 */
export async function resourceMetadata(
  ctx: HandlerContext,
  serverUrl: string,
  trusted: Set<string>,
): Promise<{ metadata: ResourceMetadata; challengeScopes: string[] }> {
  const what = "MCP server's protected resource metadata";
  const server = new URL(serverUrl);
  const challenge = await unauthenticatedChallenge(ctx, server);
  const announced = challengeParameter(challenge, "resource_metadata");
  const candidates = announced ? [announced] : wellKnownUrls(server, "oauth-protected-resource", false);
  let answer: MetadataAnswer | undefined;
  for (const candidate of candidates) {
    answer = await getMetadata(ctx, candidate, what, trusted);
    if (answer.json !== undefined) break;
  }
  if (answer?.json === undefined) {
    if (answer && answer.status >= 500) {
      throw new ToolsError(
        "unavailable",
        `The MCP server at ${server.origin} failed to serve its ${what} (${answer.status}); retry shortly.`,
        {
          retryAfter: 5,
        },
      );
    }
    throw new ToolsError(
      "invalid_request",
      `The MCP server at ${cut(server.href, 200)} publishes no OAuth protected resource metadata (RFC 9728), so it cannot be connected with OAuth. ` +
        "If it takes a static token, give the toolkit an auth mode (bearer or apiKey).",
    );
  }
  const metadata = parseDocument(ResourceMetadataSchema, answer.json, what, answer.url);
  if (!sameResource(metadata.resource, server)) {
    throw new ToolsError(
      "invalid_request",
      `The ${what} names the resource "${cut(metadata.resource, 200)}", not the server's URL ${cut(server.href, 200)}, so it was refused.`,
    );
  }
  const scope = challengeParameter(challenge, "scope");
  return { metadata, challengeScopes: scope ? scope.split(" ").filter(Boolean).slice(0, 200) : [] };
}

/**
 * The `WWW-Authenticate` challenge of the server's 401 to an unauthenticated request (a JSON-RPC
 * ping), or "" when it answers otherwise.
 */
async function unauthenticatedChallenge(ctx: HandlerContext, server: URL): Promise<string> {
  const response = await send(ctx, server, "MCP server", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
  });
  await response.body?.cancel().catch(() => {});
  return response.status === 401 ? (response.headers.get("www-authenticate") ?? "") : "";
}

/** A parameter of a `WWW-Authenticate` Bearer challenge (quoted or a token), or undefined. */
export function challengeParameter(header: string, name: string): string | undefined {
  const pattern = new RegExp(`(?:^|[\\s,])${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^\\s,"]+))`, "i");
  const match = pattern.exec(header.slice(0, 8192));
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, "$1") : match[2];
}

/**
 * The well-known URLs of a URL for `suffix`, in the order to try: the path inserted after the
 * well-known segment (RFC 8414 3.1, RFC 9728 3.1), then the root; for OpenID discovery also the
 * path followed by the well-known segment (`appended`).
 */
export function wellKnownUrls(url: URL, suffix: string, appended: boolean): string[] {
  const path = url.pathname.replace(/\/+$/, "");
  const root = `${url.origin}/.well-known/${suffix}`;
  if (!path) return [root];
  return appended ? [`${root}${path}`, `${url.origin}${path}/.well-known/${suffix}`] : [`${root}${path}`, root];
}

/** Whether the metadata's `resource` is the server's URL (a lone trailing slash aside). */
function sameResource(resource: string, server: URL): boolean {
  const parsed = URL.parse(resource);
  if (!parsed) return false;
  const bare = (url: URL) => `${url.origin}${url.pathname.replace(/\/+$/, "")}${url.search}`;
  return bare(parsed) === bare(server) && !parsed.hash;
}

/**
 * The first authorization server of the metadata on an origin the deployer named (the MCP
 * server's own, or one of `authorizationServers`). Any other is refused: a server must not send
 * the person's sign-in, and the proxy's requests, to an origin nobody chose.
 */
function allowedIssuer(metadata: ResourceMetadata, discovery: McpDiscovery, trusted: Set<string>): string {
  const allowed = metadata.authorization_servers.find((issuer) => trusted.has(URL.parse(issuer)?.origin ?? ""));
  if (allowed) return allowed;
  const named = metadata.authorization_servers.map((issuer) => URL.parse(issuer)?.origin ?? cut(issuer, 100)).join(", ");
  throw new ToolsError(
    "invalid_request",
    `The MCP server ${new URL(discovery.resource).origin} names its authorization server at ${cut(named, 300)}, another origin than its own. ` +
      "If you trust it, list that origin in the toolkit's mcp.authorizationServers.",
  );
}

/**
 * The authorization server's metadata: RFC 8414 at the well-known URL with the issuer's path
 * inserted, then OpenID Connect discovery (path inserted, then appended). The `issuer` must be
 * exactly the one asked for (RFC 8414 3.3), S256 PKCE must be advertised (the MCP spec refuses a
 * server that does not say), and each endpoint must pass `checkDiscoveredUrl`.
 */
export async function serverMetadata(ctx: HandlerContext, issuer: string, trusted: Set<string>): Promise<ServerMetadata> {
  const what = "authorization server's metadata";
  const url = new URL(issuer);
  const candidates = [
    ...wellKnownUrls(url, "oauth-authorization-server", false).slice(0, 1),
    ...wellKnownUrls(url, "openid-configuration", true),
  ];
  let answer: MetadataAnswer | undefined;
  let failed = false;
  for (const candidate of candidates) {
    answer = await getMetadata(ctx, candidate, what, trusted);
    if (answer.json !== undefined) break;
    failed ||= answer.status >= 500;
  }
  if (answer?.json === undefined) {
    if (failed)
      throw new ToolsError("unavailable", `The authorization server at ${url.origin} failed to serve its metadata; retry shortly.`, {
        retryAfter: 5,
      });
    throw new ToolsError(
      "invalid_request",
      `The authorization server ${cut(issuer, 200)} publishes no metadata (RFC 8414 or OpenID Connect discovery), so the MCP server cannot be connected with OAuth.`,
    );
  }
  const metadata = parseDocument(ServerMetadataSchema, answer.json, what, answer.url);
  if (metadata.issuer !== issuer) {
    throw new ToolsError(
      "invalid_request",
      `The ${what} names the issuer "${cut(metadata.issuer, 200)}", not "${cut(issuer, 200)}" where it was found, so it was refused (RFC 8414 3.3).`,
    );
  }
  if (!metadata.code_challenge_methods_supported?.includes("S256")) {
    throw new ToolsError(
      "invalid_request",
      `The authorization server ${cut(issuer, 200)} does not say it supports PKCE with S256 (code_challenge_methods_supported), which the MCP authorization spec requires; it cannot be connected.`,
    );
  }
  await checkDiscoveredUrl(ctx, metadata.authorization_endpoint, "authorization endpoint", trusted);
  await checkDiscoveredUrl(ctx, metadata.token_endpoint, "token endpoint", trusted);
  if (metadata.registration_endpoint) await checkDiscoveredUrl(ctx, metadata.registration_endpoint, "registration endpoint", trusted);
  if (metadata.revocation_endpoint) await checkDiscoveredUrl(ctx, metadata.revocation_endpoint, "revocation endpoint", trusted);
  return metadata;
}
