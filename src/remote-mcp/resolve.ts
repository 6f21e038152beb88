import { isIP } from "node:net";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import type { DiscoveredAuthorization, OAuth2Scheme } from "../credentials/auth-schemes.js";
import { applyDiscovered } from "../oauth/discovered-mode.js";
import { redirectUri } from "../oauth/start.js";
import { hostProblem } from "../outbound/guarded-fetch.js";
import { addressProblem } from "../outbound/origin-policy.js";
import type { Toolkit } from "../toolkits/define.js";
import { discoverAuthorization } from "./discovery.js";
import { mcpClient } from "./registration.js";

/** A remote MCP server's OAuth mode made concrete for one sign-in, and what to keep for its connection. */
export interface ResolvedMcpAuthorization {
  scheme: OAuth2Scheme;
  discovered: DiscoveredAuthorization;
}

/**
 * Resolves a remote MCP server's OAuth mode (one with `discovery`) when a connection starts:
 * discovers its authorization server, takes the deployer's client or registers one, and returns
 * the mode with the endpoints, issuer, client, scopes (the mode's, else those of the server's
 * 401 challenge, else those its metadata advertises) and `resource` parameter, beside the record the callback, refresh and
 * revocation use (`discovered`, kept encrypted).
 */
export async function resolveMcpAuthorization(
  ctx: HandlerContext,
  toolkit: Toolkit,
  mode: OAuth2Scheme,
): Promise<ResolvedMcpAuthorization> {
  await assertPublicServer(ctx, toolkit);
  const callback = redirectUri(ctx);
  const { resource, challengeScopes, server, trusted } = await discoverAuthorization(ctx, mode.discovery!);
  const client = await mcpClient(ctx, toolkit, mode, server, callback, trusted);
  const discovered: DiscoveredAuthorization = {
    resource: resource.resource,
    issuer: server.issuer,
    authorizationUrl: server.authorization_endpoint,
    tokenUrl: server.token_endpoint,
    ...(server.revocation_endpoint ? { revocationUrl: server.revocation_endpoint } : {}),
    ...client,
    scopes: mode.scopes.length ? mode.scopes : challengeScopes.length ? challengeScopes : (resource.scopes_supported ?? []),
  };
  return { scheme: applyDiscovered(mode, discovered), discovered };
}

/**
 * A remote MCP toolkit's server is address-checked as its calls are (`fetchFor`): without
 * `allowPrivateNetworks`, a server on a non-public address is refused before discovery sends it
 * anything, rather than after the person has signed in to a connection no call could use.
 */
async function assertPublicServer(ctx: HandlerContext, toolkit: Toolkit): Promise<void> {
  if (!toolkit.remote || ctx.origins.allowPrivateNetworks) return;
  const { hostname } = new URL(toolkit.remote.url);
  const literal = hostname.replace(/^\[|\]$/g, "");
  const why = isIP(literal) !== 0 ? addressProblem(literal) : await hostProblem(hostname, ctx.origins.lookup);
  if (!why) return;
  throw new ToolsError(
    "invalid_request",
    `${toolkit.name}'s MCP server ${hostname} is not on a public address (it ${isIP(literal) !== 0 ? `is ${why}` : why}); ` +
      "tools-proxy connects remote MCP servers only on public addresses, unless the deployer sets allowPrivateNetworks.",
  );
}
