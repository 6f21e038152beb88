import * as oauth from "oauth4webapi";
import { fetchFor, type HandlerContext } from "../context/context.js";
import { type Credential, clientBasicAuthorization, type OAuth2Scheme } from "../credentials/auth-schemes.js";
import { openCredential } from "../credentials/sealing.js";
import { buildUpstreamHeaders } from "../outbound/headers.js";
import type { ConnectionRecord } from "../store/types.js";
import { oauthMode, type Toolkit } from "../toolkits/define.js";
import { oauthClient } from "./client.js";
import { resolveOAuthMode } from "./discovered-mode.js";
import { definitionUrl, fillHeaders } from "./values.js";

type OAuthCredential = Extract<Credential, { type: "oauth2" }>;

/**
 * Revokes the connection's tokens at the provider when its toolkit says how: RFC 7009 at its
 * revocation endpoint (the refresh token first, which ends the grant at most providers, then the
 * access token), or the provider's own request (`revocation`: GitHub's token deletion, Slack's
 * `auth.revoke`, Dropbox's token revoke). Never throws: a failure is logged, and the caller
 * deletes the connection locally either way.
 */
export async function revokeAtProvider(ctx: HandlerContext, toolkit: Toolkit | null, connection: ConnectionRecord): Promise<void> {
  const mode = toolkit ? oauthMode(toolkit) : undefined;
  // A remote MCP server's revocation endpoint was discovered: it is sealed with the tokens.
  if (!toolkit || !mode || !(mode.revocationUrl || mode.revocation || mode.discovery)) return;
  let tokens: string[] = [];
  let scheme = mode;
  try {
    const credential = await openCredential(ctx, connection);
    if (credential.type !== "oauth2") return;
    scheme = resolveOAuthMode(toolkit, credential.authorizationServer)!;
    if (!(scheme.revocationUrl || scheme.revocation)) return;
    // The further tokens the connection keeps (Slack's user token) are revoked after its own.
    const extra = Object.values(credential.tokens ?? {});
    tokens = [credential.refreshToken, credential.accessToken, ...extra].filter((t): t is string => !!t);
    if (scheme.revocation) {
      await revokeByRequest(ctx, toolkit, scheme, credential, connection.params);
      if (scheme.revocation.auth !== "bearer") return;
      for (const token of extra) {
        await revokeByRequest(ctx, toolkit, scheme, { type: "oauth2", accessToken: token }, connection.params);
      }
      return;
    }
    const { as, client, clientAuth, options } = oauthClient(ctx, scheme, connection.params);
    for (const [index, token] of tokens.entries()) {
      try {
        await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, token, options()));
      } catch (error) {
        // Revoking the refresh token ended the grant (RFC 7009 2.1): Google and Salesforce then
        // refuse its access token with 400 invalid_token, as already gone, which is no failure.
        const alreadyGone = index > 0 && error instanceof oauth.ResponseBodyError && error.error === "invalid_token";
        if (!alreadyGone) throw error;
      }
    }
  } catch (error) {
    ctx.logger.log("warn", "token revocation failed; the connection is deleted locally anyway", { connectionId: connection.id, error }, [
      ...tokens,
      ...(scheme.clientSecret ? [scheme.clientSecret] : []),
    ]);
  }
}

/** Sends the provider's own revocation request; a status other than 2xx or 404 (already gone) is an error. */
async function revokeByRequest(
  ctx: HandlerContext,
  toolkit: Toolkit,
  scheme: OAuth2Scheme,
  credential: OAuthCredential,
  config: Record<string, string>,
): Promise<void> {
  const request = scheme.revocation!;
  const fill = (text: string) =>
    text.replace(/\{(accessToken|refreshToken|clientId)\}/g, (_, name: string) =>
      name === "clientId" ? scheme.clientId : name === "accessToken" ? credential.accessToken : (credential.refreshToken ?? ""),
    );
  const template = request.url ?? scheme.revocationUrl!;
  // A token filler in a URL path (HubSpot's v1 DELETE /oauth/v1/refresh-tokens/{refreshToken} had one) is encoded as one segment.
  const path = template.replace(/\{(accessToken|refreshToken|clientId)\}/g, (placeholder) => encodeURIComponent(fill(placeholder)));
  const url = definitionUrl(toolkit, path, config);
  const defaults = fillHeaders(toolkit.headers, config);
  const headers =
    request.auth === "bearer"
      ? buildUpstreamHeaders({}, scheme, credential, defaults)
      : buildUpstreamHeaders({}, { type: "none" }, null, defaults);
  if (request.auth === "client_basic")
    headers.set("authorization", clientBasicAuthorization(scheme.clientId, scheme.clientSecret ?? "", scheme.clientBasicEncoding));
  let body: string | undefined;
  if (request.body || request.auth === "client_post") {
    const fields: Record<string, string> = Object.fromEntries(
      Object.entries(request.body ?? {}).map(([name, value]) => [name, fill(value)]),
    );
    if (request.auth === "client_post")
      Object.assign(fields, { [scheme.clientIdParam ?? "client_id"]: scheme.clientId, client_secret: scheme.clientSecret ?? "" });
    if (request.format === "json") {
      headers.set("content-type", "application/json");
      body = JSON.stringify(fields);
    } else {
      headers.set("content-type", "application/x-www-form-urlencoded");
      body = new URLSearchParams(fields).toString();
    }
  }
  const response = await fetchFor(ctx, toolkit)(url, {
    method: request.method,
    headers,
    body,
    signal: AbortSignal.timeout(ctx.timeouts.proxyMs),
  });
  const text = await response.text().catch(() => "");
  const slackRefusal = /"ok"\s*:\s*false/.test(text);
  if ((!response.ok && response.status !== 404) || slackRefusal) {
    throw new Error(`the provider's revocation request answered ${response.status}${slackRefusal ? " with ok: false" : ""}`);
  }
}
