import { toBase64 } from "../util/encoding.js";
import { type GrantCredential, type GrantScheme, isGrantType, keyFileSecrets } from "./grant-schemes.js";
import {
  type DeployerValue,
  type Placed,
  type PlacedCredential,
  placedSecrets,
  placementProblem,
  placesBesideToken,
  type SecretField,
  type ValuePlacement,
} from "./placements.js";

export type {
  AppInstallationScheme,
  ClientCredentialsScheme,
  GrantCredential,
  GrantScheme,
  JwtBearerScheme,
  TokenExchangeScheme,
} from "./grant-schemes.js";
export type { DeployerValue, SecretField, ValuePlacement } from "./placements.js";

/**
 * Where a token or key goes on each API request. Default for OAuth and bearer tokens:
 * `Authorization: Bearer <token>`; e.g. Shopify's `{ in: "header", name: "X-Shopify-Access-Token" }`.
 */
export type CredentialPlacement = { in: "header"; name: string; prefix?: string } | { in: "query"; name: string };

/**
 * A value read from an answer, kept on the connection's `config` (non-secret) and usable in URL
 * templates: a dotted path (`team.id`, `0.id`), or the path with a regular expression whose first
 * capture group is kept (e.g. the label of Salesforce's `instance_url`).
 */
export type ValueRule = string | { path: string; pattern: string };

/**
 * A "who am I" request made with a new credential, where there is no userinfo endpoint or ID
 * token: it names the account (`remoteUser`) and can read values for the connection's `config`.
 * For an API key or token it also verifies the credential: an answer of 401 or 403 refuses it.
 */
export interface AccountLookup {
  /** A path under the toolkit's first base URL (`/user`), or an absolute https URL. `{config}` placeholders are filled. */
  url: string;
  method?: "GET" | "POST";
  /** Extra headers of this request only. */
  headers?: Record<string, string>;
  /** A JSON body, sent with POST (a GraphQL query such as Linear's `{ viewer { id email } }`). */
  body?: unknown;
  /** Dotted path in the JSON answer that names the account, e.g. `login` or `user.email`. */
  remoteUser?: string;
  /** Values kept on the connection's config: name to rule. */
  config?: Record<string, ValueRule>;
}

/**
 * A revocation request that is not RFC 7009: its method, how it authenticates (`bearer`: the token
 * itself; `client_basic`: the client's id and secret as HTTP Basic; `client_post`: the same as
 * `client_id` and `client_secret` fields of the body, as HubSpot's revoke takes them; `none`) and
 * its body, where `{accessToken}`, `{refreshToken}` and `{clientId}` are replaced.
 */
export interface RevocationRequest {
  /** Default: the scheme's `revocationUrl`. A path under the toolkit's first base URL, or absolute. */
  url?: string;
  method: "POST" | "DELETE" | "GET";
  auth: "bearer" | "client_basic" | "client_post" | "none";
  body?: Record<string, string>;
  format?: "form" | "json";
}

/**
 * A token request the provider makes its own way (Instagram's long-lived token exchange and
 * refresh): a `url` (absolute, or a path under the toolkit's first base URL), its `method`
 * (default POST: `params` in a form body; GET: in the query), and `params` where `{accessToken}`,
 * `{refreshToken}`, `{clientId}` and `{clientSecret}` are filled. Its answer is read as a token
 * endpoint's.
 */
export interface TokenRequestTemplate {
  url: string;
  method?: "GET" | "POST";
  params: Record<string, string>;
}

/** What every scheme may say about itself, for people choosing and connecting it. */
export interface SchemeCommon {
  /**
   * This way of connecting's id within its toolkit, what `POST /auth { mode }` takes (default: its
   * `type`). Needed only when a toolkit has two ways of one type, e.g. `"apiKey"` and `"legacyKey"`.
   */
  mode?: string;
  /** How this way of connecting is called, e.g. "Personal access token". */
  label?: string;
  /** Where the provider explains or shows this credential (a connect page links to it). */
  helpUrl?: string;
  /** Pages of the provider's documentation this scheme follows. */
  sources?: string[];
}

/** Where a remote MCP server's authorization is discovered, and what it may point at. */
export interface McpDiscovery {
  /** The MCP server's URL: the protected resource (RFC 9728) and the `resource` parameter (RFC 8707). */
  resource: string;
  /** Origins of authorization servers allowed besides the MCP server's own origin. */
  authorizationServers?: string[];
}

/**
 * What a remote MCP server's discovery and client registration settled for one connection: kept
 * with the pending authorization and then sealed in the connection's credential, so that the
 * callback, refresh and revocation need neither the network nor a process cache.
 */
export interface DiscoveredAuthorization {
  /** The protected resource's identifier, sent as `resource` (RFC 8707). */
  resource: string;
  issuer: string;
  authorizationUrl: string;
  tokenUrl: string;
  revocationUrl?: string;
  clientId: string;
  /** The secret the authorization server issued at registration (or the deployer's), when there is one. */
  clientSecret?: string;
  tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "none";
  scopes: string[];
}

/** OAuth 2 authorization-code flow with PKCE (S256) and refresh. */
export interface OAuth2Scheme extends SchemeCommon {
  type: "oauth2";
  authorizationUrl: string;
  tokenUrl: string;
  clientId: string;
  /** Omit for a public client. */
  clientSecret?: string;
  scopes: string[];
  /** RFC 7009 endpoint; when set, deleting a connection revokes its token there first. */
  revocationUrl?: string;
  /**
   * A remote MCP server's authorization (see `mcpOAuthMode`): the endpoints and the client are
   * discovered from the server's protected resource metadata when a connection starts, and the
   * static URLs and client id above are unused.
   */
  discovery?: McpDiscovery;
  /** How revocation is asked for when it is not RFC 7009 (GitHub, Slack, Dropbox). */
  revocation?: RevocationRequest;
  /** Userinfo endpoint; the account's `remoteUserField` becomes the connection's `remoteUser`. */
  userInfoUrl?: string;
  /** Field of the userinfo answer (or ID token) used as `remoteUser` (default `sub`). */
  remoteUserField?: string;
  /**
   * The authorization server's issuer identifier. When set, the `iss` of the authorization
   * response and of an ID token must equal it (RFC 9207).
   */
  issuer?: string;
  /** How the client authenticates at the token endpoint (default `client_secret_basic`, or `none` without a secret). */
  tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "none";
  /**
   * How `client_secret_basic` writes the client's id and secret before base64 (see
   * `clientBasicAuthorization`): `raw` (default), `base64(id:secret)` as providers' documentation
   * shows it (Notion, GitHub, Zoom), or `form`, each form-encoded first as RFC 6749 2.3.1 says, for
   * a server that decodes them (needed when the secret holds `%` or `+`, or the id a `:`).
   */
  clientBasicEncoding?: "raw" | "form";
  /** The token request's body: `form` (RFC 6749, default) or `json` (Notion). */
  tokenRequestFormat?: "form" | "json";
  /** Extra authorization request parameters, e.g. `{ access_type: "offline", prompt: "consent" }`. */
  authorizationParams?: Record<string, string>;
  /** Extra parameters of the code exchange. */
  tokenParams?: Record<string, string>;
  /** Extra parameters of a refresh. */
  refreshParams?: Record<string, string>;
  /**
   * Sends the handler's `redirect_uri` (the one the authorization used) in each refresh request
   * too, for servers whose refresh asks for it (Gusto, Kommo). Default false, as RFC 6749 6 has it.
   */
  refreshRedirectUri?: boolean;
  /** Where refreshes go when not to `tokenUrl`. */
  refreshUrl?: string;
  /**
   * A request made right after the code exchange whose tokens replace the exchange's (Instagram's
   * short-lived token for a 60-day one, `grant_type=ig_exchange_token`).
   */
  tokenUpgrade?: TokenRequestTemplate;
  /**
   * The provider's own refresh, made instead of RFC 6749's (Instagram's `ig_refresh_token`, which
   * renews the access token itself: no refresh token is needed).
   */
  refreshRequest?: TokenRequestTemplate;
  /** Joins `scopes` in the authorization request (default a space; Slack, Linear, Zoom use a comma). */
  scopeSeparator?: string;
  /** Scopes granted to the user beside the app's (Slack), sent as `userScopesParam`. */
  userScopes?: string[];
  /** The parameter `userScopes` go in (default `user_scope`). */
  userScopesParam?: string;
  /** PKCE (S256) on the authorization request (default true); off for providers that refuse it. */
  pkce?: boolean;
  /**
   * Further tokens of the token answer kept on the connection beside the access token, by name:
   * a dotted path each, e.g. Slack's `{ "user": "authed_user.access_token" }`. Sealed and redacted
   * like the access token; a request uses one when it names it (`x-tools-proxy-token: user`, or a
   * tool's `credential`).
   */
  extraTokens?: Record<string, string>;
  /** Dotted path of the object holding the tokens in the token answer, e.g. Slack's `authed_user`. */
  tokensAt?: string;
  /** Values of the token answer kept on the connection's config, e.g. `{ teamId: "team.id" }`. */
  tokenConfig?: Record<string, ValueRule>;
  /** Values of the callback's query kept on the connection's config, e.g. QuickBooks `{ realmId: "realmId" }`. */
  callbackConfig?: Record<string, ValueRule>;
  /** Where the access token goes on API requests (default `Authorization: Bearer`). */
  placement?: CredentialPlacement;
  /**
   * The deployer's values sent on every API request beside the token (Google Ads' developer
   * token), read from their `env` variables; missing, `POST /auth` answers 400 naming them.
   */
  values?: DeployerValue[];
  /**
   * Headers and query parameters every API request carries beside the token (Twitch's `Client-Id:
   * {clientId}`), their templates naming `{clientId}` and the deployer's `values` (see `placements.ts`).
   */
  placements?: ValuePlacement[];
  /**
   * The name of the client id's parameter in the authorization, token, refresh and revocation
   * requests (default `client_id`; TikTok's `client_key`).
   */
  clientIdParam?: string;
  /**
   * Identifies the upstream account when neither userinfo nor an ID token does: a function
   * given the new access token, or one or more "who am I" requests, made in order.
   */
  identify?: ((tokens: { accessToken: string; fetch: typeof fetch }) => Promise<string>) | AccountLookup | AccountLookup[];
  /**
   * Set when the deployer has not configured this provider's client yet: the sentence `POST /auth`
   * answers (400), naming what to set. Search shows the toolkit with `configured: false`.
   */
  unconfigured?: string;
}

/**
 * Several secrets, the deployer's values, and where each goes (see `placements.ts`), for the
 * schemes whose credential a person types. With `placements`, they replace the scheme's default
 * placement: exactly what they list is set on every request.
 */
interface SchemeValues {
  /** Secrets the person types beside the scheme's own (Datadog's `applicationKey`). */
  fields?: SecretField[];
  /** Values the deployer gives once (Trello's app `key`). */
  values?: DeployerValue[];
  /** Where each value goes: headers, query parameters, a base URL path segment, Basic halves. */
  placements?: ValuePlacement[];
  /** Set when a deployer value is missing: the sentence `POST /auth` answers (400), naming the variable to set. */
  unconfigured?: string;
}

/** An API key the user pastes, sent in a header or a query parameter (or as `placements` say). */
export interface ApiKeyScheme extends SchemeCommon, SchemeValues {
  type: "apiKey";
  /** Where the key goes; may be left out when `placements` say it. */
  in?: "header" | "query";
  /** Header or query parameter name, e.g. `x-api-key` or `api_key`. */
  name?: string;
  /** Put before the key in the header, e.g. `"Token "`. */
  prefix?: string;
  /** A "who am I" request that verifies the key and names the account. */
  identify?: AccountLookup | AccountLookup[];
}

/** A bearer token the user pastes, sent as `Authorization: Bearer <token>` unless `placement` says otherwise. */
export interface BearerScheme extends SchemeCommon, SchemeValues {
  type: "bearer";
  placement?: CredentialPlacement;
  /** A "who am I" request that verifies the token and names the account. */
  identify?: AccountLookup | AccountLookup[];
}

/** A username and password, sent as `Authorization: Basic ...`. */
export interface BasicScheme extends SchemeCommon, SchemeValues {
  type: "basic";
  /** A "who am I" request that verifies the credential and names the account. */
  identify?: AccountLookup | AccountLookup[];
}

/** No credential: the toolkit's API is public or its tools run locally. */
export interface NoneScheme extends SchemeCommon {
  type: "none";
}

/** How a toolkit authenticates to its external application. */
export type AuthScheme = OAuth2Scheme | ApiKeyScheme | BearerScheme | BasicScheme | NoneScheme | GrantScheme;
export type AuthSchemeType = AuthScheme["type"];

/** What a mode id may be: a letter, then letters, digits, `_` or `-` (at most 64). */
export const MODE_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** A scheme's mode id within its toolkit: its `mode`, else its `type`. */
export function modeId(scheme: Pick<AuthScheme, "type" | "mode">): string {
  return scheme.mode ?? scheme.type;
}

/** Declares OAuth 2 (authorization code + PKCE) for a toolkit. */
export function oauth2(options: Omit<OAuth2Scheme, "type" | "scopes"> & { scopes?: string[] }): OAuth2Scheme {
  return { type: "oauth2", ...options, scopes: options.scopes ?? [] };
}

/** Declares an API key sent in the header or query parameter `name`. */
export function apiKey(options: Omit<ApiKeyScheme, "type">): ApiKeyScheme {
  return { type: "apiKey", ...options };
}

/** Declares a bearer token. */
export function bearer(options: Omit<BearerScheme, "type"> = {}): BearerScheme {
  return { type: "bearer", ...options };
}

/** Declares HTTP basic authentication. */
export function basic(options: Omit<BasicScheme, "type"> = {}): BasicScheme {
  return { type: "basic", ...options };
}

/** Declares that the toolkit needs no credential. */
export function none(): NoneScheme {
  return { type: "none" };
}

/**
 * The decrypted credential of a connection, by scheme. `mode` is the mode id it was made with when
 * that is not its `type` (a toolkit with two ways of one type), so that the same way sends it.
 */
export type Credential = CredentialOfType & { mode?: string };

/** A credential's secrets, by scheme type. */
export type CredentialOfType =
  | {
      type: "oauth2";
      accessToken: string;
      refreshToken?: string;
      tokenType?: string;
      idToken?: string;
      /** The access token's lifetime in seconds, as the provider gave it (`expires_in`); sets how early it is refreshed. */
      expiresIn?: number;
      /** The further tokens the scheme's `extraTokens` keep (Slack's `user` token), by name. */
      tokens?: Record<string, string>;
      /** A remote MCP server's discovered endpoints and client, which its refresh and revocation use. */
      authorizationServer?: DiscoveredAuthorization;
    }
  | { type: "apiKey"; apiKey: string; fields?: Record<string, string> }
  | { type: "bearer"; token: string; fields?: Record<string, string> }
  | { type: "basic"; username: string; password: string; fields?: Record<string, string> }
  | { type: "none" }
  | GrantCredential;

/**
 * Every secret string inside a credential, for redaction. Given the scheme it is used with, also
 * what its placements make of them (extra fields, the deployer's values, a Basic header's base64).
 */
export function credentialSecrets(credential: Credential, scheme?: AuthScheme): string[] {
  const own = ownSecrets(credential);
  const extra = Object.values("fields" in credential ? (credential.fields ?? {}) : "tokens" in credential ? (credential.tokens ?? {}) : {});
  const placed = scheme && scheme.type === credential.type ? placedSecrets(scheme as Placed, credential as PlacedCredential) : [];
  return [...new Set([...own, ...extra, ...placed])];
}

function ownSecrets(credential: Credential): string[] {
  if (isGrantType(credential.type)) {
    const grant = credential as GrantCredential;
    return [grant.accessToken, ...Object.values(grant.secrets), ...keyFileSecrets(grant)].filter((s): s is string => !!s);
  }
  switch (credential.type) {
    case "oauth2":
      return [credential.accessToken, credential.refreshToken, credential.idToken, credential.authorizationServer?.clientSecret].filter(
        (s): s is string => !!s,
      );
    case "apiKey":
      return [credential.apiKey];
    case "bearer":
      return [credential.token];
    case "basic": {
      return [credential.password, basicAuthorization(credential.username, credential.password).slice("Basic ".length)];
    }
    case "none":
      return [];
    default:
      return [];
  }
}

/** The `Authorization` header value of HTTP basic authentication (RFC 7617, UTF-8). */
export function basicAuthorization(username: string, password: string): string {
  return `Basic ${toBase64(`${username}:${password}`)}`;
}

/**
 * The `Authorization` header of an OAuth client's HTTP Basic authentication (token exchange,
 * refresh, revocation). `raw` is `base64(id:secret)` as it stands, what providers document; `form`
 * form-encodes the id and the secret first (RFC 6749 2.3.1, every character but letters and
 * digits escaped, a space as `+`), byte for byte what oauth4webapi's `ClientSecretBasic` sends.
 */
export function clientBasicAuthorization(clientId: string, clientSecret: string, encoding: "raw" | "form" = "raw"): string {
  return encoding === "form"
    ? basicAuthorization(formEncode(clientId), formEncode(clientSecret))
    : basicAuthorization(clientId, clientSecret);
}

/** application/x-www-form-urlencoded as RFC 6749 Appendix B reads it, with the unreserved marks escaped too. */
function formEncode(text: string): string {
  return encodeURIComponent(text)
    .replace(/[-_.!~*'()]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
    .replaceAll("%20", "+");
}

// What an HTTP header value may hold (RFC 9110 5.5, as Node and undici enforce it): visible
// ASCII, space, tab and obs-text; no CR, LF, NUL or other control character, nothing past Latin-1.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Why this credential cannot be sent the way the scheme sends it, or null when it can: a value
 * that goes into a header must be a valid header value without surrounding whitespace (fetch
 * would trim it, so a different credential would go out), and a basic username has no `:`
 * (RFC 7617). `field` names the credential's field, e.g. `apiKey`.
 */
export function credentialProblem(scheme: AuthScheme, credential: Credential): { field: string; reason: string } | null {
  const placed = scheme.type === credential.type && "placements" in scheme && scheme.placements;
  if (placed && !placesBesideToken(scheme.type)) return placementProblem(scheme, credential as PlacedCredential);
  // Beside a token, the token is checked first, then the values placed with it.
  const token = tokenProblem(scheme, credential);
  return token ?? (placed ? placementProblem(scheme as Placed, credential as PlacedCredential) : null);
}

function tokenProblem(scheme: AuthScheme, credential: Credential): { field: string; reason: string } | null {
  const headerValue = (field: string, value: string) => {
    if (!HEADER_VALUE.test(value))
      return {
        field,
        reason: "contains a line break, a control character or a character beyond Latin-1, so it cannot be sent in an HTTP header",
      };
    if (value !== value.trim()) return { field, reason: "starts or ends with whitespace; send it without" };
    return null;
  };
  if (isGrantType(credential.type)) return headerValue("accessToken", (credential as GrantCredential).accessToken ?? "");
  switch (credential.type) {
    case "apiKey":
      return scheme.type === "apiKey" && scheme.in === "header" ? headerValue("apiKey", credential.apiKey) : null;
    case "bearer":
      return headerValue("token", credential.token);
    case "oauth2":
      return headerValue("accessToken", credential.accessToken);
    case "basic":
      return credential.username.includes(":")
        ? { field: "username", reason: 'contains ":", which HTTP basic authentication cannot carry in a username' }
        : null;
    default:
      return null;
  }
}
