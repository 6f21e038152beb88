import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import type { AgentPrincipal } from "../core/principal.js";
import { type AuthScheme, modeId } from "../credentials/auth-schemes.js";
import { isAllowedReturnUrl, redirectUri, storePendingAuthorization } from "../oauth/start.js";
import type { AuthorizationRecord } from "../store/types.js";
import type { Toolkit } from "../toolkits/define.js";
import { sha256Hex, timingSafeEqual } from "../util/encoding.js";

/** How long a connect link stays usable: long enough to find a key in the provider's settings. */
export const CONNECT_LINK_TTL_MS = 30 * 60 * 1000;

/** What a connect link's authorization keeps encrypted (with its id as associated data). */
export interface ConnectSecrets {
  connect: {
    /** The mode id of the scheme the person fills in (links made before mode ids hold its type, the same for those). */
    mode: string;
    /** Inputs the agent already gave; the page asks for the others. */
    config: Record<string, string>;
    remoteUser?: string;
  };
}

/** A pending connect link, found from its token. */
export interface OpenLink {
  authorization: AuthorizationRecord;
  /** The random part of the token, which only the link holds. */
  state: string;
  toolkit: Toolkit;
  scheme: AuthScheme;
  config: Record<string, string>;
  remoteUser: string | undefined;
}

/** Why a token opens nothing. Each says the same to the person: invalid, expired or used. */
export type ClosedLink = "unknown" | "used" | "expired";

/** The page's URL: `publicUrl`'s origin, basePath, `/connect/`, then the token. */
export function connectPageUrl(ctx: Pick<HandlerContext, "basePath" | "publicUrl">, token: string): string {
  return new URL(`${ctx.basePath}/connect/${token}`, ctx.publicUrl!.origin).href;
}

/**
 * Starts a connect link (for an apiKey, bearer or basic scheme, or an OAuth scheme whose inputs
 * the person gives first): stores an authorization (only the hash of its random state, single use,
 * expiring, bound to the agent, toolkit, label, return URL, mode and config) and returns the URL a
 * person opens to type the credential, in the shape `POST /auth` answers for OAuth.
 */
export async function startConnectLink(
  ctx: HandlerContext,
  agent: AgentPrincipal,
  toolkit: Toolkit,
  scheme: AuthScheme,
  request: { label?: string | undefined; returnUrl?: string | undefined; config: Record<string, string>; remoteUser?: string | undefined },
): Promise<{ authorizationId: string; authorizationUrl: string; expiresAt: string }> {
  // An OAuth sign-in continued from the page must be startable once the inputs are known.
  if (scheme.type === "oauth2") {
    if (scheme.unconfigured) throw new ToolsError("invalid_request", scheme.unconfigured);
    redirectUri(ctx);
  }
  if (!ctx.publicUrl) {
    throw new ToolsError(
      "invalid_request",
      "This server cannot make connect links: its publicUrl is not configured. Send the credentials in the request, or ask its operator to set the publicUrl option.",
    );
  }
  if (request.returnUrl && !isAllowedReturnUrl(ctx, request.returnUrl)) {
    throw new ToolsError("invalid_request", "returnUrl must be on this app's origin or one of its allowedReturnOrigins.");
  }
  const secrets: ConnectSecrets = {
    connect: { mode: modeId(scheme), config: request.config, ...(request.remoteUser ? { remoteUser: request.remoteUser } : {}) },
  };
  const { id, state, expiresAt } = await storePendingAuthorization(ctx, agent, toolkit, request, secrets, CONNECT_LINK_TTL_MS);
  return { authorizationId: id, authorizationUrl: connectPageUrl(ctx, `${id}.${state}`), expiresAt: expiresAt.toISOString() };
}

/**
 * The pending link a token names (`<authorization id>.<state>`), or why there is none. The state
 * is compared by its hash in constant time; a used, finished or expired link is closed.
 */
export async function openConnectLink(ctx: HandlerContext, token: string): Promise<OpenLink | ClosedLink> {
  const match = /^(auth_[A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return "unknown";
  const [, id, state] = match as unknown as [string, string, string];
  const authorization = await ctx.store.getAuthorization(id);
  if (!authorization || !timingSafeEqual(await sha256Hex(state), authorization.stateHash)) return "unknown";
  if (authorization.consumedAt || authorization.status !== "pending") return "used";
  if (authorization.expiresAt.getTime() <= Date.now()) return "expired";
  let secrets: Partial<ConnectSecrets>;
  try {
    secrets = JSON.parse(await ctx.cipher.decrypt(authorization.secrets, authorization.id)) as Partial<ConnectSecrets>;
  } catch {
    return "unknown";
  }
  // An OAuth authorization's state opens no page: it belongs to the provider's redirect.
  if (!secrets.connect) return "unknown";
  const toolkit = await ctx.registry.get(authorization.toolkit);
  const scheme = toolkit?.authModes.find((m) => modeId(m) === secrets.connect!.mode);
  if (!toolkit || !scheme) return "unknown";
  return { authorization, state, toolkit, scheme, config: secrets.connect.config, remoteUser: secrets.connect.remoteUser };
}

/** The form's anti-forgery field: an HMAC of the link's state under the handler's secret. */
export function formToken(ctx: HandlerContext, link: OpenLink): Promise<string> {
  return ctx.forms.sign(`connect ${link.authorization.id} ${link.state}`);
}

/** Whether a submitted anti-forgery field is the one this link's form carries (constant time). */
export function checkFormToken(ctx: HandlerContext, link: OpenLink, given: string): Promise<boolean> {
  return ctx.forms.verify(`connect ${link.authorization.id} ${link.state}`, given);
}
