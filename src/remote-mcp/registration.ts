import { z } from "zod";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { cut } from "../core/http.js";
import type { DiscoveredAuthorization, OAuth2Scheme } from "../credentials/auth-schemes.js";
import type { Toolkit } from "../toolkits/define.js";
import type { ServerMetadata } from "./discovery.js";
import { checkDiscoveredUrl, readJsonBody, send } from "./fetch-metadata.js";

/** The client a connection uses at a remote MCP server's authorization server. */
export type McpClient = Pick<DiscoveredAuthorization, "clientId" | "clientSecret" | "tokenEndpointAuthMethod">;

/** Registered clients kept per process, at most this many (the oldest dropped first). */
export const MAX_CLIENTS = 500;

/**
 * Clients registered in this process, by toolkit, authorization server and redirect URI: one
 * registration serves every later connection. A registration in flight is shared; a failed one is
 * forgotten. Nothing relies on this cache: each connection keeps its own client (sealed).
 */
const registered = new Map<string, Promise<McpClient>>();

/** The registration answer (RFC 7591 3.2.1), the fields used. */
const RegistrationSchema = z.object({
  client_id: z.string().min(1).max(1024),
  client_secret: z.string().min(1).max(4096).optional(),
  token_endpoint_auth_method: z.string().max(64).optional(),
});

const USABLE_METHODS = new Set(["none", "client_secret_basic", "client_secret_post"]);

/**
 * The client for a remote MCP server's authorization server: the deployer's (the mode's
 * `clientId`), else one registered dynamically (RFC 7591) once per toolkit, authorization server
 * and redirect URI in this process. A server with no registration endpoint, and no configured
 * client, is a 400 that says to register a client and configure it.
 */
export function mcpClient(
  ctx: HandlerContext,
  toolkit: Toolkit,
  mode: OAuth2Scheme,
  server: ServerMetadata,
  redirectUri: string,
  trusted: Set<string>,
): Promise<McpClient> {
  if (mode.clientId) {
    return Promise.resolve({
      clientId: mode.clientId,
      ...(mode.clientSecret ? { clientSecret: mode.clientSecret } : {}),
      ...(mode.tokenEndpointAuthMethod ? { tokenEndpointAuthMethod: mode.tokenEndpointAuthMethod } : {}),
    });
  }
  if (!server.registration_endpoint) {
    return Promise.reject(
      new ToolsError(
        "invalid_request",
        `The authorization server ${cut(server.issuer, 200)} of "${toolkit.slug}" offers no dynamic client registration. ` +
          `Register a client there with the redirect URI ${redirectUri}, then configure its clientId (and clientSecret) on the toolkit.`,
      ),
    );
  }
  const key = JSON.stringify([toolkit.slug, server.issuer, redirectUri]);
  let client = registered.get(key);
  if (!client) {
    client = register(ctx, toolkit, server, redirectUri, trusted);
    client.catch(() => registered.delete(key));
    if (registered.size >= MAX_CLIENTS) registered.delete(registered.keys().next().value!);
    registered.set(key, client);
  }
  return client;
}

/**
 * Registers a client (RFC 7591): a public client (`token_endpoint_auth_method: "none"`) when the
 * server allows it, else one with a secret, for the authorization-code and refresh grants at our
 * callback URL. The secret the server issues, if any, is kept and used.
 */
async function register(
  ctx: HandlerContext,
  toolkit: Toolkit,
  server: ServerMetadata,
  redirectUri: string,
  trusted: Set<string>,
): Promise<McpClient> {
  const what = "authorization server's registration endpoint";
  const url = await checkDiscoveredUrl(ctx, server.registration_endpoint!, "registration endpoint", trusted);
  const response = await send(ctx, url, what, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({
      client_name: toolkit.name,
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: requestedMethod(server),
    }),
  });
  if (response.status !== 201 && response.status !== 200) {
    const body =
      response.status >= 400 && response.status < 500 ? await readJsonBody(response, what, url).catch(() => undefined) : undefined;
    await response.body?.cancel().catch(() => {});
    const code = typeof (body as { error?: unknown })?.error === "string" ? ` (${cut((body as { error: string }).error, 64)})` : "";
    if (response.status >= 500) {
      throw new ToolsError("unavailable", `The ${what} failed (${response.status}); retry shortly.`, { retryAfter: 5 });
    }
    throw new ToolsError(
      "invalid_request",
      `The ${what} refused to register a client${code || ` (${response.status})`}. Register one there with the redirect URI ${redirectUri} and configure its clientId on the toolkit.`,
    );
  }
  const answer = RegistrationSchema.safeParse(await readJsonBody(response, what, url));
  if (!answer.success)
    throw new ToolsError("invalid_request", `The ${what} answered without a usable client_id, so no client was registered.`);
  const method = answer.data.token_endpoint_auth_method ?? (answer.data.client_secret ? "client_secret_basic" : "none");
  if (!USABLE_METHODS.has(method)) {
    throw new ToolsError(
      "invalid_request",
      `The ${what} registered a client that authenticates with ${cut(method, 64)}, which tools-proxy does not support.`,
    );
  }
  return {
    clientId: answer.data.client_id,
    ...(answer.data.client_secret && method !== "none" ? { clientSecret: answer.data.client_secret } : {}),
    tokenEndpointAuthMethod: method as McpClient["tokenEndpointAuthMethod"],
  };
}

/** A public client where the server allows one (or does not say), else a client secret sent as it prefers. */
function requestedMethod(server: ServerMetadata): string {
  const supported = server.token_endpoint_auth_methods_supported;
  if (!supported || supported.includes("none")) return "none";
  return supported.includes("client_secret_basic") || !supported.includes("client_secret_post")
    ? "client_secret_basic"
    : "client_secret_post";
}
