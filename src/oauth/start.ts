import * as oauth from "oauth4webapi";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import type { AgentPrincipal } from "../core/principal.js";
import type { DiscoveredAuthorization, OAuth2Scheme } from "../credentials/auth-schemes.js";
import type { Toolkit } from "../toolkits/define.js";
import { randomBytes, randomId, sha256Hex, toBase64Url } from "../util/encoding.js";
import { oauthClient } from "./client.js";

/** How long a started authorization waits for its callback. */
export const AUTHORIZATION_TTL_MS = 10 * 60 * 1000;

/** Secrets of a pending authorization, stored encrypted with the authorization id as associated data. */
export interface AuthorizationSecrets {
  codeVerifier: string;
  nonce?: string;
  /** The connection's config (a shop, a tenant), which the callback needs for the token URL. */
  config?: Record<string, string>;
  /**
   * The connect link this sign-in continues (its page asked for the inputs): the callback reports
   * its outcome on that authorization too, the one the agent waits on.
   */
  linkedTo?: string;
  /** A remote MCP server's discovered endpoints and client, which the callback and then the connection use. */
  discovered?: DiscoveredAuthorization;
}

/** The exact redirect_uri: `publicUrl`'s origin, then basePath, then `/auth/callback`. */
export function redirectUri(ctx: HandlerContext): string {
  if (!ctx.publicUrl) {
    throw new ToolsError(
      "invalid_request",
      "This server cannot start OAuth: its publicUrl is not configured. Ask its operator to set the publicUrl option.",
    );
  }
  return new URL(`${ctx.basePath}/auth/callback`, ctx.publicUrl.origin).href;
}

/** Whether a return URL's origin is the app's own or one of `allowedReturnOrigins`. */
export function isAllowedReturnUrl(ctx: HandlerContext, returnUrl: string): boolean {
  // An opaque origin ("null") is neither: publicUrl and allowedReturnOrigins are validated http(s) origins.
  const origin = new URL(returnUrl).origin;
  return origin === ctx.publicUrl?.origin || ctx.allowedReturnOrigins.includes(origin);
}

/**
 * Starts an authorization-code flow with PKCE (S256, unless the scheme turns it off): stores a
 * single-use state (only its hash) bound to the agent, toolkit, label, return URL and config, with
 * an expiry, and returns the URL the user opens in a browser. A provider whose client the deployer
 * has not configured is a 400 that says what to set.
 */
export async function startAuthorization(
  ctx: HandlerContext,
  agent: Pick<AgentPrincipal, "workspaceId" | "agentId">,
  toolkit: Toolkit,
  scheme: OAuth2Scheme,
  request: {
    label?: string | null;
    returnUrl?: string | null;
    config?: Record<string, string>;
    linkedTo?: string;
    /** What a remote MCP server's discovery settled; `scheme` is then the mode with it applied. */
    discovered?: DiscoveredAuthorization;
  },
): Promise<{ authorizationId: string; authorizationUrl: string; expiresAt: string }> {
  if (scheme.unconfigured) throw new ToolsError("invalid_request", scheme.unconfigured);
  if (scheme.discovery && !request.discovered) {
    throw new ToolsError(
      "invalid_request",
      `Toolkit "${toolkit.slug}" is a remote MCP server: connect it with POST /auth {"toolkit":"${toolkit.slug}"}, which discovers its authorization server.`,
    );
  }
  const callback = redirectUri(ctx);
  if (request.returnUrl && !isAllowedReturnUrl(ctx, request.returnUrl)) {
    throw new ToolsError("invalid_request", "returnUrl must be on this app's origin or one of its allowedReturnOrigins.");
  }
  const config = request.config ?? {};
  const secrets: AuthorizationSecrets = {
    codeVerifier: oauth.generateRandomCodeVerifier(),
    ...(Object.keys(config).length ? { config } : {}),
    ...(request.linkedTo ? { linkedTo: request.linkedTo } : {}),
    ...(request.discovered ? { discovered: request.discovered } : {}),
  };
  if (scheme.scopes.includes("openid")) secrets.nonce = oauth.generateRandomNonce();
  const { id, state, expiresAt } = await storePendingAuthorization(ctx, agent, toolkit, request, secrets, AUTHORIZATION_TTL_MS);

  // The library's own parameters, including those it leaves out (undefined): a toolkit's
  // authorizationParams can neither override nor add any of them.
  const own: Record<string, string | undefined> = {
    response_type: "code",
    [scheme.clientIdParam ?? "client_id"]: scheme.clientId,
    redirect_uri: callback,
    scope: scheme.scopes.length ? scheme.scopes.join(scheme.scopeSeparator ?? " ") : undefined,
    state,
    code_challenge: scheme.pkce === false ? undefined : await oauth.calculatePKCECodeChallenge(secrets.codeVerifier),
    code_challenge_method: scheme.pkce === false ? undefined : "S256",
    nonce: secrets.nonce,
    ...(scheme.userScopes?.length
      ? { [scheme.userScopesParam ?? "user_scope"]: scheme.userScopes.join(scheme.scopeSeparator ?? " ") }
      : {}),
  };
  const url = new URL(oauthClient(ctx, scheme, config).as.authorization_endpoint!);
  for (const [name, value] of Object.entries(scheme.authorizationParams ?? {}))
    if (!Object.hasOwn(own, name)) url.searchParams.set(name, value);
  for (const [name, value] of Object.entries(own)) if (value !== undefined) url.searchParams.set(name, value);
  return { authorizationId: id, authorizationUrl: url.href, expiresAt: expiresAt.toISOString() };
}

/**
 * Stores a pending authorization (an OAuth sign-in or a connect link): a new id, a random
 * single-use state kept only as its hash, bound to the agent, toolkit, label and return URL, its
 * secrets encrypted with the id as associated data, expiring after `ttlMs`. Returns the state,
 * which goes only into the URL the person opens.
 */
export async function storePendingAuthorization(
  ctx: HandlerContext,
  agent: Pick<AgentPrincipal, "workspaceId" | "agentId">,
  toolkit: Pick<Toolkit, "slug">,
  request: { label?: string | null; returnUrl?: string | null },
  secrets: object,
  ttlMs: number,
): Promise<{ id: string; state: string; expiresAt: Date }> {
  const state = toBase64Url(randomBytes(32));
  const id = randomId("auth_");
  const now = new Date();
  const expiresAt = new Date(now.getTime() + ttlMs);
  await ctx.store.createAuthorization({
    id,
    stateHash: await sha256Hex(state),
    workspaceId: agent.workspaceId,
    agentId: agent.agentId,
    toolkit: toolkit.slug,
    label: request.label ?? null,
    returnUrl: request.returnUrl ?? null,
    secrets: await ctx.cipher.encrypt(JSON.stringify(secrets), id),
    status: "pending",
    connectionId: null,
    error: null,
    createdAt: now,
    expiresAt,
    consumedAt: null,
  });
  return { id, state, expiresAt };
}
