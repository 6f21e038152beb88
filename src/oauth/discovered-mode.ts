import { ToolsError } from "../core/errors.js";
import type { DiscoveredAuthorization, McpDiscovery, OAuth2Scheme } from "../credentials/auth-schemes.js";
import { oauthMode, type Toolkit } from "../toolkits/define.js";

/**
 * The toolkit's OAuth mode, concrete: a mode discovered from a remote MCP server (`discovery`)
 * takes the endpoints and client that its discovery settled (`saved`, kept with the pending
 * authorization, then sealed in the connection's credential); any other mode is returned as it
 * is. A discovered mode without `saved` (a connection made before its toolkit became a remote MCP
 * server) is a `connection_required` that says to reconnect.
 */
export function resolveOAuthMode(
  toolkit: Pick<Toolkit, "authModes" | "slug">,
  saved: DiscoveredAuthorization | undefined,
): OAuth2Scheme | undefined {
  const mode = oauthMode(toolkit);
  if (!mode?.discovery) return mode;
  if (!saved) {
    throw new ToolsError(
      "connection_required",
      `The connection to "${toolkit.slug}" has no record of its MCP server's authorization server. Reconnect it with POST /auth {"toolkit":"${toolkit.slug}"}.`,
    );
  }
  return applyDiscovered(mode, saved);
}

/**
 * The mode with what discovery settled: its endpoints, issuer and client, and the `resource`
 * parameter (RFC 8707) on the authorization, token and refresh requests.
 */
export function applyDiscovered(mode: OAuth2Scheme, saved: DiscoveredAuthorization): OAuth2Scheme {
  const { revocationUrl: _revocation, clientSecret: _secret, tokenEndpointAuthMethod: _method, ...rest } = mode;
  const resource = { resource: saved.resource };
  return {
    ...rest,
    authorizationUrl: saved.authorizationUrl,
    tokenUrl: saved.tokenUrl,
    issuer: saved.issuer,
    clientId: saved.clientId,
    ...(saved.clientSecret ? { clientSecret: saved.clientSecret } : {}),
    ...(saved.tokenEndpointAuthMethod ? { tokenEndpointAuthMethod: saved.tokenEndpointAuthMethod } : {}),
    ...(saved.revocationUrl ? { revocationUrl: saved.revocationUrl } : {}),
    scopes: saved.scopes,
    authorizationParams: { ...mode.authorizationParams, ...resource },
    tokenParams: { ...mode.tokenParams, ...resource },
    refreshParams: { ...mode.refreshParams, ...resource },
  };
}

/**
 * The origins the deployer named for a remote MCP server: the server's own and those listed in
 * `authorizationServers`. They are trusted as a toolkit's base URL is; any other origin a metadata
 * document names must be https on a public address (unless the handler allows private networks).
 */
export function trustedOrigins(discovery: McpDiscovery): Set<string> {
  const origins = new Set<string>();
  for (const url of [discovery.resource, ...(discovery.authorizationServers ?? [])]) {
    const origin = URL.parse(url)?.origin;
    if (origin && origin !== "null") origins.add(origin);
  }
  return origins;
}
