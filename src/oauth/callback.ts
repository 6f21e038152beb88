import * as oauth from "oauth4webapi";
import { createConnection } from "../connections/create.js";
import { fetchFor, type HandlerContext } from "../context/context.js";
import { errorResponse, ToolsError } from "../core/errors.js";
import { type Credential, credentialSecrets, type OAuth2Scheme } from "../credentials/auth-schemes.js";
import type { AuthorizationPatch, AuthorizationRecord, ConnectionRecord } from "../store/types.js";
import { oauthMode, type Toolkit } from "../toolkits/define.js";
import { matchesHostPattern } from "../toolkits/host-input.js";
import { sha256Hex } from "../util/encoding.js";
import { oauthClient } from "./client.js";
import { resolveOAuthMode } from "./discovered-mode.js";
import { resultPage } from "./page.js";
import { type AuthorizationSecrets, isAllowedReturnUrl, redirectUri } from "./start.js";
import type { TokenAnswer } from "./token-answer.js";
import { TokenTemplateError, templateTokenRequest } from "./token-template.js";
import { readPath, readValues, runLookups, ValueError } from "./values.js";

/** A failure of the callback, with a message safe to show in the browser and to the agent. */
class CallbackError extends Error {}

/**
 * Completes an authorization from the provider's redirect: takes the state exactly once, checks
 * the response (state, `iss`), exchanges the code with the PKCE verifier at the exact
 * redirect_uri, identifies the account, and stores the connection with its tokens encrypted.
 * Answers with a 303 to the return URL, or a small HTML page (JSON for non-browser clients).
 * Every failure ends without a connection.
 */
export async function completeAuthorization(ctx: HandlerContext, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const state = url.searchParams.get("state");
  const authorization = state ? await ctx.store.consumeAuthorization(await sha256Hex(state), new Date()) : null;
  if (!authorization) {
    const message = "This sign-in link is invalid, expired or already used. Start the connection again.";
    return wantsHtml(request) ? resultPage(400, "Connection failed", message) : errorResponse(new ToolsError("invalid_request", message));
  }

  // A sign-in continued from a connect page reports to the link's authorization as well.
  const linked = await linkedAuthorization(ctx, authorization);
  const report = async (patch: AuthorizationPatch) => {
    await ctx.store.updateAuthorization(authorization.id, patch);
    if (linked) await ctx.store.updateAuthorization(linked, patch);
  };
  let connection: ConnectionRecord;
  try {
    connection = await exchange(ctx, authorization, url);
  } catch (error) {
    const message = error instanceof CallbackError ? error.message : "The connection could not be completed. Start it again.";
    if (!(error instanceof CallbackError)) ctx.logger.log("error", "OAuth callback failed", { toolkit: authorization.toolkit, error });
    await report({ status: "failed", error: message });
    ctx.emit("auth.failed", {
      authorizationId: linked ?? authorization.id,
      toolkit: authorization.toolkit,
      agentId: authorization.agentId,
      error: message,
    });
    return finish(ctx, request, authorization, { status: "failed", error: message });
  }
  await report({ status: "connected", connectionId: connection.id });
  ctx.emit("auth.completed", {
    authorizationId: linked ?? authorization.id,
    toolkit: connection.toolkit,
    agentId: connection.agentId,
    connectionId: connection.id,
  });
  return finish(ctx, request, authorization, { status: "connected", connectionId: connection.id });
}

/** The connect link's authorization this one continues, if any. */
async function linkedAuthorization(ctx: HandlerContext, authorization: AuthorizationRecord): Promise<string | undefined> {
  try {
    const secrets = JSON.parse(await ctx.cipher.decrypt(authorization.secrets, authorization.id)) as AuthorizationSecrets;
    return secrets.linkedTo;
  } catch {
    return undefined; // the exchange reports an unreadable record
  }
}

async function exchange(ctx: HandlerContext, authorization: AuthorizationRecord, url: URL): Promise<ConnectionRecord> {
  const toolkit = await ctx.registry.get(authorization.toolkit);
  if (!toolkit || !oauthMode(toolkit)) throw new CallbackError(`The toolkit "${authorization.toolkit}" no longer uses OAuth.`);
  // Outside the exchange's try: a server without publicUrl is the operator's to fix, so it is logged.
  const callback = redirectUri(ctx);
  const secrets = JSON.parse(await ctx.cipher.decrypt(authorization.secrets, authorization.id)) as AuthorizationSecrets;
  // A connect link's state sent here instead of to its page: it has no code verifier to use.
  if (!secrets.codeVerifier) throw new CallbackError("This link belongs to a connect page, not to an OAuth sign-in.");
  const scheme = concreteMode(toolkit, secrets);
  const config = secrets.config ?? {};
  const { as, client, clientAuth, tokenOptions } = oauthClient(ctx, scheme, config);

  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(as, client, url.searchParams, url.searchParams.get("state")!);
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) {
      throw new CallbackError(
        error.error === "access_denied"
          ? "Access was denied at the provider, so no connection was made."
          : `The provider refused the authorization (${errorCode(error.error)}).`,
      );
    }
    throw new CallbackError("The provider's answer did not match this authorization (issuer or state), so it was refused.");
  }

  const answer: TokenAnswer = { raw: null };
  let tokens: oauth.TokenEndpointResponse;
  try {
    const verifier = scheme.pkce === false ? oauth.nopkce : secrets.codeVerifier;
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      callback,
      verifier,
      tokenOptions(answer, scheme.tokenParams),
    );
    tokens = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: secrets.nonce ?? oauth.expectNoNonce,
      requireIdToken: false,
    });
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError)
      throw new CallbackError(`The provider refused the code exchange (${errorCode(error.error)}). Start the connection again.`);
    // The connection's origin now resolves to a non-public address: say so, as the proxy would.
    if (error instanceof ToolsError && error.code === "upstream_unreachable") throw new CallbackError(error.message);
    throw new CallbackError("The code could not be exchanged for a token at the provider. Start the connection again.");
  }

  if (scheme.tokenUpgrade) tokens = await upgradeTokens(ctx, toolkit, scheme, tokens, config);

  const credential: Credential = {
    type: "oauth2",
    accessToken: tokens.access_token,
    ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
    tokenType: tokens.token_type,
    ...(tokens.id_token ? { idToken: tokens.id_token } : {}),
    expiresIn: tokens.expires_in, // left out of the sealed JSON when the provider gives none
    // A remote MCP server's endpoints and client travel with the tokens: refresh and revocation use them.
    ...(secrets.discovered ? { authorizationServer: secrets.discovered } : {}),
  };
  let values: Record<string, string>;
  try {
    values = {
      ...config,
      ...readValues(answer.raw, scheme.tokenConfig, "token answer"),
      ...readValues(Object.fromEntries(url.searchParams), scheme.callbackConfig, "redirect"),
    };
  } catch (error) {
    if (error instanceof ValueError) throw new CallbackError(`${error.message} No connection was made.`);
    throw error;
  }
  const foreign = foreignHost(toolkit, values);
  if (foreign) throw new CallbackError(foreign);
  const extra = readExtraTokens(answer.raw, scheme.extraTokens);
  if (typeof extra === "string") throw new CallbackError(extra);
  if (extra) Object.assign(credential, { tokens: extra });
  const account = await identify(ctx, toolkit, scheme, tokens, credential, values);
  const separator = scheme.scopeSeparator === "," ? /[\s,]+/ : /\s+/;
  return createConnection(ctx, {
    workspaceId: authorization.workspaceId,
    agentId: authorization.agentId,
    toolkit,
    label: authorization.label,
    remoteUser: account.remoteUser,
    credential,
    scopes: tokens.scope ? tokens.scope.split(separator).filter(Boolean) : scheme.scopes,
    params: { ...values, ...account.config },
    credentialsExpireAt: typeof tokens.expires_in === "number" ? new Date(Date.now() + tokens.expires_in * 1000) : null,
  });
}

/** The toolkit's OAuth mode with what a remote MCP server's discovery settled when the sign-in started. */
function concreteMode(toolkit: Toolkit, secrets: AuthorizationSecrets): OAuth2Scheme {
  try {
    return resolveOAuthMode(toolkit, secrets.discovered)!;
  } catch (error) {
    if (error instanceof ToolsError)
      throw new CallbackError("This sign-in started before the toolkit's authorization changed. Start the connection again.");
    throw error;
  }
}

/**
 * The tokens of the scheme's `tokenUpgrade` in place of the code exchange's (Instagram's 60-day
 * token for its one-hour one), the exchange's ID token kept. A refusal ends without a connection.
 */
async function upgradeTokens(
  ctx: HandlerContext,
  toolkit: Toolkit,
  scheme: OAuth2Scheme,
  tokens: oauth.TokenEndpointResponse,
  config: Record<string, string>,
): Promise<oauth.TokenEndpointResponse> {
  try {
    const upgraded = await templateTokenRequest(
      ctx,
      toolkit,
      scheme,
      scheme.tokenUpgrade!,
      { accessToken: tokens.access_token, refreshToken: tokens.refresh_token },
      config,
    );
    return { ...tokens, ...upgraded, token_type: "bearer" } as oauth.TokenEndpointResponse;
  } catch (error) {
    const secrets = [tokens.access_token, tokens.refresh_token, scheme.clientSecret].filter((s): s is string => !!s);
    ctx.logger.log("warn", "the token upgrade after the code exchange failed", { toolkit: toolkit.slug, error }, secrets);
    const refused = error instanceof TokenTemplateError ? ` (${error.error ?? error.status})` : "";
    throw new CallbackError(`The provider did not exchange its first token for a lasting one${refused}. Start the connection again.`);
  }
}

/**
 * Why a host the provider named (Wrike's `host` in its token answer) cannot be the connection's,
 * or undefined: each value of a `host` input must be one of the hosts the toolkit declares, since
 * it becomes the host every request of the connection goes to.
 */
function foreignHost(toolkit: Toolkit, values: Record<string, string>): string | undefined {
  for (const input of toolkit.inputs) {
    const value = values[input.name];
    if (input.type !== "host" || value === undefined || matchesHostPattern(value.toLowerCase(), input.hosts ?? [])) continue;
    return (
      `The provider named "${value}" as the ${input.label.toLowerCase()}, which is not one of the hosts ${toolkit.name} allows ` +
      `(${(input.hosts ?? []).join(", ")}). No connection was made.`
    );
  }
  return undefined;
}

/**
 * The further tokens the scheme keeps beside the access token (Slack's user token under
 * `authed_user.access_token`), by name, or a sentence naming one the answer lacks.
 */
function readExtraTokens(
  raw: Record<string, unknown> | null,
  rules: Record<string, string> | undefined,
): Record<string, string> | string | undefined {
  if (!rules || Object.keys(rules).length === 0) return undefined;
  const tokens: Record<string, string> = {};
  for (const [name, path] of Object.entries(rules)) {
    const value = raw ? readPath(raw, path) : undefined;
    if (typeof value !== "string" || value === "") {
      return `The provider's token answer did not hold "${path}", the ${name} token this toolkit keeps. No connection was made.`;
    }
    tokens[name] = value;
  }
  return tokens;
}

/**
 * The upstream account: the toolkit's own `identify` (a function, or "who am I" requests that
 * may also read config values), else userinfo, else the ID token's claims. A failure is logged
 * with the new tokens redacted: a toolkit's `identify` may quote its token.
 */
async function identify(
  ctx: HandlerContext,
  toolkit: Toolkit,
  scheme: OAuth2Scheme,
  tokens: oauth.TokenEndpointResponse,
  credential: Credential,
  config: Record<string, string>,
): Promise<{ remoteUser: string; config: Record<string, string> }> {
  const field = scheme.remoteUserField ?? "sub";
  const claims = oauth.getValidatedIdTokenClaims(tokens);
  try {
    if (typeof scheme.identify === "function") {
      return { remoteUser: String(await scheme.identify({ accessToken: tokens.access_token, fetch: fetchFor(ctx, toolkit) })), config: {} };
    }
    if (scheme.identify) {
      const account = await runLookups(ctx, toolkit, scheme, credential, scheme.identify, config);
      if (account.refused) throw new ValueError("The provider refused its own new token.");
      return { remoteUser: account.remoteUser ?? (claims ? String(claims[field] ?? claims.sub) : ""), config: account.config };
    }
    if (scheme.userInfoUrl) {
      const { as, client, options } = oauthClient(ctx, scheme, config);
      const response = await oauth.userInfoRequest(as, client, tokens.access_token, options());
      const info = await oauth.processUserInfoResponse(as, client, claims?.sub ?? oauth.skipSubjectCheck, response);
      return { remoteUser: String(info[field] ?? info.sub), config: {} };
    }
  } catch (error) {
    ctx.logger.log("warn", "could not identify the OAuth account", { error }, credentialSecrets(credential, scheme));
    throw new CallbackError("The provider did not say which account was connected, so no connection was made. Try again.");
  }
  return { remoteUser: claims ? String(claims[field] ?? claims.sub) : "", config: {} };
}

type Outcome = { status: "connected"; connectionId: string } | { status: "failed"; error: string };

function finish(ctx: HandlerContext, request: Request, authorization: AuthorizationRecord, outcome: Outcome): Response {
  // The return URL was checked when the flow started; it is checked again in case the allowed
  // origins changed since.
  if (authorization.returnUrl && isAllowedReturnUrl(ctx, authorization.returnUrl)) {
    const target = new URL(authorization.returnUrl);
    target.searchParams.set("status", outcome.status);
    if (outcome.status === "connected") target.searchParams.set("connection_id", outcome.connectionId);
    else target.searchParams.set("error", outcome.error);
    return new Response(null, { status: 303, headers: { location: target.href, "cache-control": "no-store" } });
  }
  if (outcome.status === "connected") {
    return wantsHtml(request)
      ? resultPage(200, "Connected", "The connection is ready. You can close this window.")
      : new Response(JSON.stringify({ status: "connected", connectionId: outcome.connectionId }), {
          headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
        });
  }
  return wantsHtml(request)
    ? resultPage(400, "Connection failed", outcome.error)
    : errorResponse(new ToolsError("invalid_request", outcome.error));
}

/**
 * The provider's `error` code in the characters RFC 6749 allows (printable ASCII but `"` and `\`),
 * at most 64: it comes from the browser's redirect, and is stored, shown and sent on.
 */
function errorCode(code: string): string {
  return code.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, "").slice(0, 64) || "unknown_error";
}

function wantsHtml(request: Request): boolean {
  return /text\/html/i.test(request.headers.get("accept") ?? "");
}
