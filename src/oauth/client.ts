import * as oauth from "oauth4webapi";
import type { HandlerContext } from "../context/context.js";
import { clientBasicAuthorization, type OAuth2Scheme } from "../credentials/auth-schemes.js";
import { fillBaseUrl, ORIGIN_PLACEHOLDER } from "../outbound/url-policy.js";
import { oauthEndpoints } from "../toolkits/oauth-endpoints.js";
import { normalizeTokenAnswer, type TokenAnswer } from "./token-answer.js";

/** What oauth4webapi needs to talk to one toolkit's authorization server. */
export interface OAuthClient {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  /** Options for every oauth4webapi request: the handler's fetch, a timeout, loopback http. */
  // biome-ignore lint/suspicious/noExplicitAny: each oauth4webapi call narrows the request options to its own method and body.
  options(signal?: AbortSignal): any;
  /**
   * Options for a token request (code exchange or refresh): the body as the provider wants it
   * (form or JSON) with the scheme's extra parameters, and its answer made RFC 6749-shaped
   * before oauth4webapi reads it. `answer.raw` then holds the answer as the provider sent it.
   */
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  tokenOptions(answer: TokenAnswer, extra: Record<string, string> | undefined, signal?: AbortSignal): any;
}

/**
 * Builds the oauth4webapi objects from a toolkit's scheme, its `{placeholders}` filled from the
 * connection's config (a Shopify shop, a Microsoft tenant). Plain http is allowed only for
 * loopback addresses (local development and tests); anything else must be https.
 */
export function oauthClient(
  ctx: HandlerContext,
  scheme: OAuth2Scheme,
  config: Record<string, string> = {},
  purpose: "exchange" | "refresh" = "exchange",
): OAuthClient {
  // An endpoint's whole host may be a placeholder: defineToolkit allowed that only for a `host`
  // input, whose value checkConfig matched against the input's hosts (Salesforce's login host).
  const fill = (url: string) => (url.includes("{") ? fillBaseUrl(url, config, { wholeHost: true }) : url);
  const authorizationUrl = fill(scheme.authorizationUrl);
  const as: oauth.AuthorizationServer = {
    // oauth4webapi needs an issuer; without a configured one, the authorization URL's origin
    // stands in, and the `iss` checks only apply when the server sends `iss`.
    issuer: scheme.issuer ?? new URL(authorizationUrl).origin,
    authorization_endpoint: authorizationUrl,
    token_endpoint: fill(purpose === "refresh" && scheme.refreshUrl ? scheme.refreshUrl : scheme.tokenUrl),
    ...(scheme.userInfoUrl ? { userinfo_endpoint: fill(scheme.userInfoUrl) } : {}),
    ...(scheme.revocationUrl ? { revocation_endpoint: fill(scheme.revocationUrl) } : {}),
    ...(scheme.issuer ? { authorization_response_iss_parameter_supported: true } : {}),
  };
  const method = scheme.tokenEndpointAuthMethod ?? (scheme.clientSecret ? "client_secret_basic" : "none");
  const secret = scheme.clientSecret;
  const clientAuth: oauth.ClientAuth =
    method === "none" || !secret
      ? oauth.None()
      : method === "client_secret_post"
        ? oauth.ClientSecretPost(secret)
        : // oauth4webapi's ClientSecretBasic always form-encodes the pair (a UUID's `-` becomes %2D),
          // which servers that read it raw, as their documentation builds it, refuse.
          (_as, client, _body, headers) =>
            headers.set("authorization", clientBasicAuthorization(client.client_id, secret, scheme.clientBasicEncoding));
  // defineToolkit allowed plain http only on loopback addresses; oauth4webapi must be told.
  const insecure = oauthEndpoints(scheme).some((u) => new URL(fill(u)).protocol === "http:");
  // Endpoints under an origin input go to a host the connection chose: through the address check.
  // So do all of a remote MCP server's discovered endpoints, on the origins the deployer named too:
  // its address must be public, checked at each connection (a name rebound to a private address
  // after discovery is refused), as the MCP server's own calls are.
  const checked = [...oauthEndpoints(scheme), scheme.refreshUrl ?? ""].some((u) => ORIGIN_PLACEHOLDER.test(u)) || !!scheme.discovery;
  const fetchVia = checked && !ctx.origins.allowPrivateNetworks ? ctx.origins.originFetch : ctx.fetch;
  const rename = scheme.clientIdParam && scheme.clientIdParam !== "client_id" ? scheme.clientIdParam : undefined;
  const send = (url: string, init: RequestInit) => fetchVia(url, rename ? renamedClientId(init, rename) : init);
  const base = (signal: AbortSignal | undefined, fetch: (url: string, init: RequestInit) => Promise<Response>) => ({
    [oauth.customFetch]: fetch,
    ...(insecure ? { [oauth.allowInsecureRequests]: true } : {}),
    signal: signal ?? AbortSignal.timeout(ctx.timeouts.proxyMs),
  });
  return {
    as,
    client: { client_id: scheme.clientId },
    clientAuth,
    options: (signal) => base(signal, (url, init) => send(url, init)),
    tokenOptions: (answer, extra, signal) => ({
      ...base(signal, async (url, init) => {
        const renamed = rename ? renamedClientId(init, rename) : init;
        const response = await send(url, scheme.tokenRequestFormat === "json" ? asJsonBody(renamed) : renamed);
        return normalizeTokenAnswer(response, scheme, answer);
      }),
      ...(extra && Object.keys(extra).length ? { additionalParameters: extra } : {}),
    }),
  };
}

/**
 * The same request with the form body's `client_id` named `name` (TikTok's `client_key`), in its
 * place: oauth4webapi writes `client_id` itself for a client authenticating in the body or not at all.
 */
function renamedClientId(init: RequestInit, name: string): RequestInit {
  if (!(init.body instanceof URLSearchParams) || !init.body.has("client_id")) return init;
  const body = new URLSearchParams([...init.body].map(([key, value]) => [key === "client_id" ? name : key, value]));
  return { ...init, body };
}

/** The same request with its form body sent as a JSON object (Notion's token endpoint). */
function asJsonBody(init: RequestInit): RequestInit {
  if (!(init.body instanceof URLSearchParams)) return init;
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/json");
  return { ...init, headers, body: JSON.stringify(Object.fromEntries(init.body)) };
}
