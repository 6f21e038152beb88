import type { McpDiscovery, OAuth2Scheme } from "../credentials/auth-schemes.js";

/**
 * A remote MCP server as a toolkit's entry gives it (`mcp`): its URL, or the URL with options.
 * The server's origin becomes the toolkit's base URL.
 */
export type RemoteMcpEntry = string | RemoteMcpOptions;

export interface RemoteMcpOptions {
  url: string;
  /** `streamable-http` (default), or `sse` for a server that only has the older HTTP+SSE transport. */
  transport?: "streamable-http" | "sse";
  /** Origins of authorization servers allowed besides the MCP server's own origin. */
  authorizationServers?: string[];
}

/** The remote MCP server of a toolkit, as `defineToolkit` resolved it. */
export interface RemoteMcp {
  url: string;
  transport: "streamable-http" | "sse";
  authorizationServers: string[];
}

/** What a remote MCP toolkit's entry may say about its authorization. */
export interface McpAuthorizationOptions {
  /** Origins of authorization servers allowed besides the MCP server's own origin. */
  authorizationServers?: string[];
  /** A client the deployer registered; without one, a client is registered dynamically (RFC 7591). */
  clientId?: string;
  clientSecret?: string;
  /** Scopes to ask for; without them, those the server's metadata advertises. */
  scopes?: string[];
}

/**
 * The OAuth 2 mode of a remote MCP server that declares no `auth`: the MCP authorization spec's
 * discovery, registration and PKCE code flow with the `resource` parameter.
 */
export function mcpOAuthMode(resource: string, options: McpAuthorizationOptions = {}): OAuth2Scheme {
  const discovery: McpDiscovery = {
    resource,
    ...(options.authorizationServers ? { authorizationServers: options.authorizationServers } : {}),
  };
  return {
    type: "oauth2",
    mode: "oauth2",
    label: "Sign in (MCP authorization)",
    // Discovered when a connection starts.
    authorizationUrl: "",
    tokenUrl: "",
    clientId: options.clientId ?? "",
    ...(options.clientSecret ? { clientSecret: options.clientSecret } : {}),
    scopes: options.scopes ?? [],
    pkce: true,
    discovery,
  };
}
