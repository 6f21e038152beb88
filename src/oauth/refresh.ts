import * as oauth from "oauth4webapi";
import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import type { Credential, OAuth2Scheme } from "../credentials/auth-schemes.js";
import { openCredential, sealCredential } from "../credentials/sealing.js";
import type { ConnectionRecord } from "../store/types.js";
import { oauthMode, type Toolkit } from "../toolkits/define.js";
import { randomId } from "../util/encoding.js";
import { oauthClient } from "./client.js";
import { resolveOAuthMode } from "./discovered-mode.js";
import { redirectUri } from "./start.js";
import { type TemplateTokens, TokenTemplateError, templateTokenRequest } from "./token-template.js";

/** An access token this close to expiry is refreshed before use, at most (see `refreshMargin`). */
export const REFRESH_MARGIN_MS = 60_000;
/** How long a refresh lease is held at most by default (`refreshLeaseMs`); a crashed holder's lease frees itself after this. */
export const REFRESH_LEASE_MS = 60_000;
/** The token request's own timeout, at most: well inside the lease, so a lease never outlives its holder's work. */
const REFRESH_REQUEST_MS = 20_000;
/** How long a caller waits for another process's refresh before giving up with a 503. */
const REFRESH_WAIT_MS = 30_000;

type OAuthCredential = Extract<Credential, { type: "oauth2" }>;

/** A connection with its usable credential. */
export interface FreshCredential {
  connection: ConnectionRecord;
  credential: Credential;
}

/**
 * The connection's credential, refreshed first when it is an OAuth token within
 * `REFRESH_MARGIN_MS` of expiry, or when `staleAccessToken` (a token the upstream just refused
 * with 401) is still the stored one. Never returns an expired connection's credential.
 */
export async function freshCredential(
  ctx: HandlerContext,
  toolkit: Toolkit,
  connection: ConnectionRecord,
  staleAccessToken?: string,
): Promise<FreshCredential> {
  return freshOAuthCredential(ctx, toolkit, connection, await openCredential(ctx, connection), staleAccessToken);
}

/** `freshCredential` of a credential already opened. */
export async function freshOAuthCredential(
  ctx: HandlerContext,
  toolkit: Toolkit,
  connection: ConnectionRecord,
  credential: Credential,
  staleAccessToken?: string,
): Promise<FreshCredential> {
  if (credential.type !== "oauth2" || !oauthMode(toolkit)) return { connection, credential };
  // A remote MCP server's mode takes the endpoints and client sealed with the tokens.
  const scheme = resolveOAuthMode(toolkit, credential.authorizationServer)!;
  const renewal: Renewal = {
    needed: (current, opened) => needsRefresh(current, opened as OAuthCredential, staleAccessToken),
    renew: (shared, latest, opened) => refreshNow(shared, toolkit, scheme, latest, opened as OAuthCredential),
  };
  if (!renewal.needed(connection, credential)) return { connection, credential };
  return renewOnce(ctx, connection.id, renewal);
}

/**
 * How a connection's credential is renewed: whether it must be (given the stored row and its
 * opened credential), and the request that renews it and saves the result (`saveRenewed`).
 */
export interface Renewal {
  needed(connection: ConnectionRecord, credential: Credential): boolean;
  renew(ctx: HandlerContext, connection: ConnectionRecord, credential: Credential): Promise<FreshCredential>;
}

/**
 * Renews a connection's credential once: callers in this handler share one renewal, and across
 * processes the refresh lease lets one holder renew while the others wait and use what it saved.
 * OAuth refreshes and token grants (`src/grants/`) both go through here.
 */
export function renewOnce(ctx: HandlerContext, connectionId: string, renewal: Renewal): Promise<FreshCredential> {
  let renewing = ctx.refreshes.get(connectionId);
  if (!renewing) {
    // Shared by every caller that comes meanwhile: the first caller going away must not stop it.
    const shared = { ...ctx, store: ctx.sharedStore };
    renewing = renewUnderLease(shared, connectionId, renewal).finally(() => ctx.refreshes.delete(connectionId));
    ctx.refreshes.set(connectionId, renewing);
  }
  return renewing;
}

function needsRefresh(connection: ConnectionRecord, credential: OAuthCredential, staleAccessToken: string | undefined): boolean {
  if (staleAccessToken !== undefined && credential.accessToken === staleAccessToken) return true;
  return expiresWithin(connection, credential.expiresIn);
}

/** Whether the connection's token expires within its refresh margin (never, without an expiry). */
export function expiresWithin(connection: ConnectionRecord, lifetimeSeconds: number | undefined): boolean {
  return connection.credentialsExpireAt !== null && connection.credentialsExpireAt.getTime() - Date.now() < refreshMargin(lifetimeSeconds);
}

/**
 * How long before expiry a token is refreshed: a quarter of its lifetime, at most
 * `REFRESH_MARGIN_MS`. A fixed margin longer than the lifetime (a 60 s margin for a 30 s token)
 * would make every call refresh, and every waiter refresh again after the holder. Tokens saved
 * without their lifetime get the full margin.
 */
export function refreshMargin(lifetimeSeconds: number | undefined): number {
  if (lifetimeSeconds === undefined) return REFRESH_MARGIN_MS;
  return Math.min(REFRESH_MARGIN_MS, Math.max(0, lifetimeSeconds * 250));
}

/**
 * One renewal across every process sharing the leases (the store's, or the `leases` option): the
 * lease holder renews; the others wait, re-reading the store, and use the credential the holder saved.
 */
async function renewUnderLease(ctx: HandlerContext, connectionId: string, renewal: Renewal): Promise<FreshCredential> {
  const lease = `oauth-refresh:${connectionId}`;
  // One holder id per refresh, not per process: two handlers in one process must not share a lease.
  const holder = randomId("holder_");
  const deadline = Date.now() + REFRESH_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    const current = await readActive(ctx, connectionId);
    const credential = await openCredential(ctx, current);
    if (!renewal.needed(current, credential)) return { connection: current, credential };
    if (await ctx.leases.acquire(lease, holder, ctx.refreshLeaseMs)) {
      try {
        // Read again under the lease: another holder may have finished just before we took it.
        const latest = await readActive(ctx, connectionId);
        const latestCredential = await openCredential(ctx, latest);
        if (!renewal.needed(latest, latestCredential)) return { connection: latest, credential: latestCredential };
        return await renewal.renew(ctx, latest, latestCredential);
      } finally {
        // A release that fails must not hide the refreshed token: the lease then expires by itself.
        await Promise.resolve()
          .then(() => ctx.leases.release(lease, holder))
          .catch((error: unknown) => ctx.logger.log("warn", "refresh lease release failed; it expires by itself", { connectionId, error }));
      }
    }
    if (Date.now() > deadline) {
      throw new ToolsError("unavailable", "The connection's token is being refreshed elsewhere and it is taking long; retry shortly.", {
        retryAfter: 5,
      });
    }
    await sleep(Math.min(25 * 2 ** attempt, 400) * (0.5 + Math.random()));
  }
}

/** How long a renewal's own request may take at most: well inside the lease, so a lease never outlives its holder's work. */
export function renewalTimeout(ctx: HandlerContext): AbortSignal {
  return AbortSignal.timeout(Math.min(REFRESH_REQUEST_MS, Math.floor(ctx.refreshLeaseMs * 0.75)));
}

/** The refresh request's extra parameters: the scheme's own, and the redirect URI where the provider asks for it. */
function refreshParams(ctx: HandlerContext, scheme: OAuth2Scheme): Record<string, string> | undefined {
  return scheme.refreshRedirectUri ? { ...scheme.refreshParams, redirect_uri: redirectUri(ctx) } : scheme.refreshParams;
}

/** Calls the token endpoint and saves the new tokens before anyone uses them. */
async function refreshNow(
  ctx: HandlerContext,
  toolkit: Toolkit,
  scheme: OAuth2Scheme,
  connection: ConnectionRecord,
  credential: OAuthCredential,
): Promise<FreshCredential> {
  if (scheme.refreshRequest)
    return saveRefreshed(ctx, scheme, connection, credential, await refreshByRequest(ctx, toolkit, scheme, connection, credential));
  if (!credential.refreshToken) {
    return expire(ctx, connection, "The provider gave no refresh token and the access token expired.");
  }
  let tokens: oauth.TokenEndpointResponse;
  try {
    // The connection's config fills a templated token URL (a Shopify shop, a Microsoft tenant).
    const { as, client, clientAuth, tokenOptions } = oauthClient(ctx, scheme, connection.params, "refresh");
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      clientAuth,
      credential.refreshToken,
      tokenOptions({ raw: null }, refreshParams(ctx, scheme), renewalTimeout(ctx)),
    );
    tokens = await oauth.processRefreshTokenResponse(as, client, response);
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError && error.error === "invalid_grant") {
      return expire(
        ctx,
        connection,
        `The provider refused the refresh token (invalid_grant${error.error_description ? `: ${error.error_description}` : ""}).`,
      );
    }
    ctx.logger.log("warn", "token refresh failed", { connectionId: connection.id, error }, [
      credential.refreshToken,
      credential.accessToken,
    ]);
    throw new ToolsError("unavailable", "The provider's token endpoint could not refresh the connection's token; retry shortly.", {
      retryAfter: 5,
    });
  }

  return saveRefreshed(ctx, scheme, connection, credential, tokens);
}

/**
 * The provider's own refresh (`refreshRequest`, Instagram's `ig_refresh_token`). A refusal (400,
 * 401, `invalid_grant`) expires the connection; another failure is a 503 to retry.
 */
async function refreshByRequest(
  ctx: HandlerContext,
  toolkit: Toolkit,
  scheme: OAuth2Scheme,
  connection: ConnectionRecord,
  credential: OAuthCredential,
): Promise<TemplateTokens> {
  try {
    return await templateTokenRequest(ctx, toolkit, scheme, scheme.refreshRequest!, credential, connection.params, renewalTimeout(ctx));
  } catch (error) {
    if (error instanceof TokenTemplateError && (error.status === 400 || error.status === 401 || error.error === "invalid_grant")) {
      return expire(ctx, connection, `The provider refused to renew the token (${error.error ?? error.status}).`);
    }
    const secrets = [credential.refreshToken, credential.accessToken, scheme.clientSecret].filter((s): s is string => !!s);
    ctx.logger.log("warn", "token refresh failed", { connectionId: connection.id, error }, secrets);
    throw new ToolsError("unavailable", "The provider's token endpoint could not refresh the connection's token; retry shortly.", {
      retryAfter: 5,
    });
  }
}

/** Saves a refresh's tokens before anyone uses them (see `saveRenewed`), and reports it. */
async function saveRefreshed(
  ctx: HandlerContext,
  scheme: OAuth2Scheme,
  connection: ConnectionRecord,
  credential: OAuthCredential,
  tokens: TemplateTokens & { id_token?: string },
): Promise<FreshCredential> {
  const next: OAuthCredential = {
    type: "oauth2",
    accessToken: tokens.access_token,
    // A provider that rotates sends a new refresh token; one that does not keeps the old valid.
    refreshToken: tokens.refresh_token ?? credential.refreshToken,
    tokenType: tokens.token_type,
    ...((tokens.id_token ?? credential.idToken) ? { idToken: tokens.id_token ?? credential.idToken } : {}),
    expiresIn: tokens.expires_in, // left out of the sealed JSON when the provider gives none
    // The further tokens (Slack's user token) are not the refreshed one's: they are kept as they were.
    ...(credential.tokens ? { tokens: credential.tokens } : {}),
    ...(credential.authorizationServer ? { authorizationServer: credential.authorizationServer } : {}),
  };
  const expiresAt = typeof tokens.expires_in === "number" ? new Date(Date.now() + tokens.expires_in * 1000) : null;
  const patch = {
    credentials: await sealCredential(ctx, connection.id, next),
    credentialsExpireAt: expiresAt,
    updatedAt: new Date(),
    ...(tokens.scope ? { scopes: tokens.scope.split(scheme.scopeSeparator === "," ? /[\s,]+/ : /\s+/).filter(Boolean) } : {}),
  };
  const { saved, ours } = await saveRenewed(ctx, connection, patch);
  if (!ours) return keptInstead(ctx, saved);
  ctx.emit("token.refreshed", {
    connectionId: connection.id,
    toolkit: connection.toolkit,
    expiresAt,
    rotated: !!tokens.refresh_token && tokens.refresh_token !== credential.refreshToken,
  });
  return { connection: saved, credential: next };
}

/** The newer row saved while a renewal was out, used instead of what the renewal got. */
export async function keptInstead(ctx: HandlerContext, saved: ConnectionRecord): Promise<FreshCredential> {
  ctx.logger.log("warn", "a newer credential was saved while this refresh was out; it is kept and this refresh dropped", {
    connectionId: saved.id,
  });
  if (saved.status !== "active") throw expiredError(saved);
  return { connection: saved, credential: await openCredential(ctx, saved) };
}

/**
 * Saves with compare-and-set on the row read under the lease, and the first save wins. A conflict
 * with an edit of another field (a label) is retried on the newer version, keeping both. A conflict
 * with a newer credential or status (a holder that took the lease after this one's ran out and
 * saved first, a reconnection, an expiry) keeps that row: `ours` is then false, and nothing of this
 * refresh is stored.
 */
export async function saveRenewed(
  ctx: HandlerContext,
  connection: ConnectionRecord,
  patch: Parameters<HandlerContext["store"]["updateConnection"]>[1],
): Promise<{ saved: ConnectionRecord; ours: boolean }> {
  let version = connection.version;
  for (let attempt = 0; attempt < 5; attempt++) {
    const saved = await ctx.store.updateConnection(connection.id, patch, version);
    if (saved) return { saved, ours: true };
    const latest = await ctx.store.getConnection(connection.id);
    if (!latest) throw new ToolsError("not_found", `Connection "${connection.id}" was deleted while its token was being refreshed.`);
    if (latest.credentials !== connection.credentials || latest.status !== connection.status) return { saved: latest, ours: false };
    version = latest.version;
  }
  throw new ToolsError("unavailable", "The refreshed token could not be saved; retry shortly.", { retryAfter: 1 });
}

async function readActive(ctx: HandlerContext, connectionId: string): Promise<ConnectionRecord> {
  const connection = await ctx.store.getConnection(connectionId);
  if (!connection) throw new ToolsError("not_found", `Connection "${connectionId}" no longer exists.`);
  if (connection.status !== "active") throw expiredError(connection);
  return connection;
}

/** Marks the connection expired with the reason, reports it, and refuses the call. */
export async function expire(ctx: HandlerContext, connection: ConnectionRecord, reason: string): Promise<never> {
  await ctx.store.updateConnection(connection.id, { status: "expired", statusReason: reason, updatedAt: new Date() });
  ctx.emit("connection.expired", { connectionId: connection.id, toolkit: connection.toolkit, reason });
  throw expiredError({ ...connection, status: "expired", statusReason: reason });
}

function expiredError(connection: ConnectionRecord): ToolsError {
  const reason = connection.statusReason ? ` ${connection.statusReason}` : "";
  return new ToolsError(
    "connection_required",
    `Connection "${connection.id}" is ${connection.status}.${reason} Reconnect it with POST /auth {"toolkit":"${connection.toolkit}"}.`,
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
