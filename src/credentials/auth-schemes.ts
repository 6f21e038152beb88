import { toBase64 } from "../util/encoding.js";

/** OAuth 2 authorization-code flow with PKCE (S256) and refresh. */
export interface OAuth2Scheme {
  type: "oauth2";
  authorizationUrl: string;
  tokenUrl: string;
  clientId: string;
  /** Omit for a public client. */
  clientSecret?: string;
  scopes: string[];
  /** RFC 7009 endpoint; when set, deleting a connection revokes its token there first. */
  revocationUrl?: string;
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
  /** Extra authorization request parameters, e.g. `{ access_type: "offline", prompt: "consent" }`. */
  authorizationParams?: Record<string, string>;
  /**
   * Identifies the upstream account when neither userinfo nor an ID token does, e.g. by calling
   * a "current user" endpoint with the new access token. Returns the `remoteUser` value.
   */
  identify?: (tokens: { accessToken: string; fetch: typeof fetch }) => Promise<string>;
}

/** An API key the user pastes, sent in a header or a query parameter. */
export interface ApiKeyScheme {
  type: "apiKey";
  in: "header" | "query";
  /** Header or query parameter name, e.g. `x-api-key` or `api_key`. */
  name: string;
}

/** A bearer token the user pastes, sent as `Authorization: Bearer <token>`. */
export interface BearerScheme {
  type: "bearer";
}

/** A username and password, sent as `Authorization: Basic ...`. */
export interface BasicScheme {
  type: "basic";
}

/** No credential: the toolkit's API is public or its tools run locally. */
export interface NoneScheme {
  type: "none";
}

/** How a toolkit authenticates to its external application. */
export type AuthScheme = OAuth2Scheme | ApiKeyScheme | BearerScheme | BasicScheme | NoneScheme;
export type AuthSchemeType = AuthScheme["type"];

/** Declares OAuth 2 (authorization code + PKCE) for a toolkit. */
export function oauth2(options: Omit<OAuth2Scheme, "type" | "scopes"> & { scopes?: string[] }): OAuth2Scheme {
  return { type: "oauth2", ...options, scopes: options.scopes ?? [] };
}

/** Declares an API key sent in the header or query parameter `name`. */
export function apiKey(options: { in: "header" | "query"; name: string }): ApiKeyScheme {
  return { type: "apiKey", in: options.in, name: options.name };
}

/** Declares a bearer token. */
export function bearer(): BearerScheme {
  return { type: "bearer" };
}

/** Declares HTTP basic authentication. */
export function basic(): BasicScheme {
  return { type: "basic" };
}

/** Declares that the toolkit needs no credential. */
export function none(): NoneScheme {
  return { type: "none" };
}

/** The decrypted credential of a connection, by scheme. */
export type Credential =
  | {
      type: "oauth2";
      accessToken: string;
      refreshToken?: string;
      tokenType?: string;
      idToken?: string;
      /** The access token's lifetime in seconds, as the provider gave it (`expires_in`); sets how early it is refreshed. */
      expiresIn?: number;
    }
  | { type: "apiKey"; apiKey: string }
  | { type: "bearer"; token: string }
  | { type: "basic"; username: string; password: string }
  | { type: "none" };

/** Every secret string inside a credential, for redaction. */
export function credentialSecrets(credential: Credential): string[] {
  switch (credential.type) {
    case "oauth2":
      return [credential.accessToken, credential.refreshToken, credential.idToken].filter((s): s is string => !!s);
    case "apiKey":
      return [credential.apiKey];
    case "bearer":
      return [credential.token];
    case "basic": {
      return [credential.password, basicAuthorization(credential.username, credential.password).slice("Basic ".length)];
    }
    case "none":
      return [];
  }
}

/** The `Authorization` header value of HTTP basic authentication (RFC 7617, UTF-8). */
export function basicAuthorization(username: string, password: string): string {
  return `Basic ${toBase64(`${username}:${password}`)}`;
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
  const headerValue = (field: string, value: string) => {
    if (!HEADER_VALUE.test(value))
      return {
        field,
        reason: "contains a line break, a control character or a character beyond Latin-1, so it cannot be sent in an HTTP header",
      };
    if (value !== value.trim()) return { field, reason: "starts or ends with whitespace; send it without" };
    return null;
  };
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
    case "none":
      return null;
  }
}
