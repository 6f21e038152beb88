import * as oauth from "oauth4webapi";
import type { HandlerContext } from "../context/context.js";
import type { OAuth2Scheme } from "../credentials/auth-schemes.js";
import { oauthEndpoints } from "../toolkits/oauth-endpoints.js";

/** What oauth4webapi needs to talk to one toolkit's authorization server. */
export interface OAuthClient {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  /** Options for every oauth4webapi request: the handler's fetch, a timeout, loopback http. */
  // biome-ignore lint/suspicious/noExplicitAny: each oauth4webapi call narrows the request options to its own method and body.
  options(signal?: AbortSignal): any;
}

/**
 * Builds the oauth4webapi objects from a toolkit's scheme. Plain http is allowed only for
 * loopback addresses (local development and tests); anything else must be https.
 */
export function oauthClient(ctx: HandlerContext, scheme: OAuth2Scheme): OAuthClient {
  const as: oauth.AuthorizationServer = {
    // oauth4webapi needs an issuer; without a configured one, the authorization URL's origin
    // stands in, and the `iss` checks only apply when the server sends `iss`.
    issuer: scheme.issuer ?? new URL(scheme.authorizationUrl).origin,
    authorization_endpoint: scheme.authorizationUrl,
    token_endpoint: scheme.tokenUrl,
    ...(scheme.userInfoUrl ? { userinfo_endpoint: scheme.userInfoUrl } : {}),
    ...(scheme.revocationUrl ? { revocation_endpoint: scheme.revocationUrl } : {}),
    ...(scheme.issuer ? { authorization_response_iss_parameter_supported: true } : {}),
  };
  const method = scheme.tokenEndpointAuthMethod ?? (scheme.clientSecret ? "client_secret_basic" : "none");
  const clientAuth =
    method === "none" || !scheme.clientSecret
      ? oauth.None()
      : method === "client_secret_post"
        ? oauth.ClientSecretPost(scheme.clientSecret)
        : oauth.ClientSecretBasic(scheme.clientSecret);
  // defineToolkit allowed plain http only on loopback addresses; oauth4webapi must be told.
  const insecure = oauthEndpoints(scheme).some((u) => new URL(u).protocol === "http:");
  return {
    as,
    client: { client_id: scheme.clientId },
    clientAuth,
    options(signal) {
      return {
        [oauth.customFetch]: (url: string, init: RequestInit) => ctx.fetch(url, init),
        ...(insecure ? { [oauth.allowInsecureRequests]: true } : {}),
        signal: signal ?? AbortSignal.timeout(ctx.timeouts.proxyMs),
      };
    },
  };
}
