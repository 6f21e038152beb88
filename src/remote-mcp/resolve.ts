import type { HandlerContext } from "../context/context.js";
import type { DiscoveredAuthorization, OAuth2Scheme } from "../credentials/auth-schemes.js";
import { applyDiscovered } from "../oauth/discovered-mode.js";
import { redirectUri } from "../oauth/start.js";
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
