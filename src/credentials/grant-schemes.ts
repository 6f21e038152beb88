import type { AccountLookup, CredentialPlacement, SchemeCommon, ValueRule } from "./auth-schemes.js";
import type { DeployerValue, ValuePlacement } from "./placements.js";

/**
 * The types of the modes whose access token comes from a request the handler makes itself (a
 * token grant), cached in the connection's sealed credential and renewed by `src/grants/`. A new
 * grant type is added here, as a scheme in `AuthScheme`, and as a function in `GRANTS`.
 */
export const GRANT_TYPES = ["clientCredentials", "tokenExchange", "jwtBearer", "appInstallation"] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

/** What every grant scheme says: where its token goes, and what the token answer or a lookup adds to the config. */
export interface GrantSchemeCommon extends SchemeCommon {
  /** Where the access token goes on API requests (default `Authorization: Bearer`). */
  placement?: CredentialPlacement;
  /** Values of the token answer kept on the connection's config (as OAuth's `tokenConfig`). */
  tokenConfig?: Record<string, ValueRule>;
  /** "Who am I" requests made with the first token, naming the account. */
  identify?: AccountLookup | AccountLookup[];
  /** The deployer's values sent on every API request beside the token (as OAuth 2's `values`). */
  values?: DeployerValue[];
  /** Headers and query parameters every API request carries beside the token (as OAuth 2's `placements`). */
  placements?: ValuePlacement[];
  /** Set when the deployer has not configured what the mode needs: the sentence `POST /auth` answers (400). */
  unconfigured?: string;
}

/**
 * OAuth 2 client credentials (RFC 6749 4.4): the token comes from `grant_type=client_credentials`
 * with a client id and secret, either typed by the person connecting (`client: "typed"`, the
 * default: fields `clientId` and `clientSecret`) or the deployer's (`client: "deployer"`: the
 * scheme's `clientId` and `clientSecret`, which the catalog reads from
 * `TOOLS_PROXY_<SLUG>_CLIENT_ID` and `..._CLIENT_SECRET`).
 */
export interface ClientCredentialsScheme extends GrantSchemeCommon {
  type: "clientCredentials";
  /** The token endpoint; `{input}` placeholders are filled from the connection's config (a Microsoft tenant). */
  tokenUrl: string;
  /** Who holds the client: the person connecting (default) or the deployer. */
  client?: "typed" | "deployer";
  /** The deployer's client, with `client: "deployer"`. */
  clientId?: string;
  clientSecret?: string;
  /** Sent as `scope`, joined by `scopeSeparator` (default a space); none sent when empty. */
  scopes?: string[];
  scopeSeparator?: string;
  /** Sent as `audience` (Auth0); `{input}` placeholders filled. */
  audience?: string;
  /** How the client authenticates: HTTP Basic (default) or `client_id`/`client_secret` in the body. */
  tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post";
  /** How Basic writes the id and secret before base64: `raw` (default) or form-encoded first (RFC 6749 2.3.1). */
  clientBasicEncoding?: "raw" | "form";
  /** The `grant_type` sent (default `client_credentials`; Zoom's server-to-server apps: `account_credentials`). */
  grantType?: string;
  /** Extra body parameters, `{name}` placeholders filled from the config and `fields` (Zoom: `{ "account_id": "{accountId}" }`). */
  tokenParams?: Record<string, string>;
  /** Values typed besides the client's id and secret, for `tokenParams` (Zoom's account ID). */
  fields?: ExchangeField[];
  /** Set when the deployer's client is missing: the sentence `POST /auth` answers (400). */
  unconfigured?: string;
}

/** A field the person types for a two-step exchange (an API key, a username and a password). */
export interface ExchangeField {
  name: string;
  label: string;
  /** Default true: hidden on the page, never shown or logged. */
  secret?: boolean;
  optional?: boolean;
}

/**
 * A two-step exchange: a request made with what the person typed (an API key, a personal access
 * token, a username and password) answers a short-lived token, read at JSON paths, renewed as a
 * refresh is. Placeholders `{name}` of `url`, `headers` and `body` are filled with the typed fields
 * and the connection's config.
 */
export interface TokenExchangeScheme extends GrantSchemeCommon {
  type: "tokenExchange";
  /** What the person types; each a key of `POST /auth { credentials }`. */
  fields: ExchangeField[];
  request: {
    /** Absolute, or a path under the toolkit's first base URL. */
    url: string;
    method?: "POST" | "PUT" | "GET";
    /** The body's encoding (default `json`). */
    format?: "form" | "json";
    headers?: Record<string, string>;
    /** A JSON value whose strings are templates, or (`form`) an object of strings. */
    body?: unknown;
  };
  /** Dotted path of the token in the JSON answer, e.g. `access_token` or `credentials.token`. */
  token: string;
  /** Dotted path of the token's lifetime in seconds. */
  expiresIn?: string;
  /** Dotted path of the token's expiry: an ISO 8601 date, or seconds since the epoch. */
  expiresAt?: string;
  /** The lifetime in seconds when the answer says none (Tableau: 240 minutes). */
  lifetime?: number;
}

/**
 * An access token granted for a signed JWT assertion (RFC 7523 section 2.1, `grant_type=
 * urn:ietf:params:oauth:grant-type:jwt-bearer`), asked for again before it expires. `signer` says
 * whose key signs: `serviceAccount`, a Google service account key file the person pastes (field
 * `serviceAccountKey`; its `client_email` is the issuer, its `token_uri` the audience), or
 * `deployer`, the deployer's own `issuer` and `privateKey` (Salesforce's connected app: its
 * consumer key and certificate's key).
 */
export interface JwtBearerScheme extends GrantSchemeCommon {
  type: "jwtBearer";
  signer: "serviceAccount" | "deployer";
  /** Where the assertion is posted. `{input}` placeholders are filled from the connection's config. */
  tokenUrl: string;
  /** `deployer`: the assertion's `iss` (Salesforce: the connected app's consumer key). */
  issuer?: string;
  /** `deployer`: the RSA private key that signs (RS256), PEM: PKCS#8 or PKCS#1. */
  privateKey?: string;
  /** The assertion's `aud`. Default: the key file's `token_uri` (service account), else `tokenUrl`. `{input}` placeholders are filled. */
  audience?: string;
  /** The `scope` claim, joined by a space; left out when empty. */
  scopes?: string[];
  /**
   * The `sub` claim, typed per connection as the field `subject`: the user a Google service
   * account acts for (domain-wide delegation, optional), the Salesforce username (required).
   * Without it the assertion has no `sub`.
   */
  subject?: { label: string; optional?: boolean };
  /** How long the assertion is valid, in seconds, at most 3600 (default 300). */
  assertionLifetime?: number;
  /** Set when the deployer's key is missing: the sentence `POST /auth` answers (400). */
  unconfigured?: string;
}

/**
 * A GitHub App installation token: the deployer's app signs a short JWT (RS256, `iss` the app's
 * id, `iat` 60 seconds in the past, `exp` at most 10 minutes on) and trades it at
 * `POST /app/installations/{installationId}/access_tokens` for an installation token (an hour).
 * The installation is chosen per connection (the field `installationId`).
 */
export interface AppInstallationScheme extends GrantSchemeCommon {
  type: "appInstallation";
  /** The app's id or client id: the app JWT's `iss`. Without it (or the key) the mode answers `unconfigured`. */
  appId?: string;
  /** The app's RSA private key, PEM: PKCS#1 as GitHub gives it, or PKCS#8. */
  privateKey?: string;
  /** Default `/app/installations/{installationId}/access_tokens`: a path under the toolkit's first base URL, or absolute. */
  tokenUrl?: string;
  /** Where a person installs the app, to learn the installation's id (`https://github.com/apps/<app>/installations/new`). */
  installUrl?: string;
  /** Set when the deployer's app id or key is missing: the sentence `POST /auth` answers (400). */
  unconfigured?: string;
}

/** A grant scheme, by type. */
export type GrantScheme = ClientCredentialsScheme | TokenExchangeScheme | JwtBearerScheme | AppInstallationScheme;

/**
 * The decrypted credential of a grant mode: what the person typed (`secrets`, empty when the
 * deployer provides them) and the token last granted, with its lifetime.
 */
export interface GrantCredential {
  type: GrantType;
  secrets: Record<string, string>;
  accessToken?: string;
  /** The token's lifetime in seconds as granted; sets how early it is renewed. */
  expiresIn?: number;
}

/** Whether a scheme or credential type is a token grant's. */
export function isGrantType(type: string): type is GrantType {
  return (GRANT_TYPES as readonly string[]).includes(type);
}

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;

function placeholderNames(template: unknown): string[] {
  if (typeof template === "string") return [...template.matchAll(PLACEHOLDER)].map((match) => match[1]!);
  if (Array.isArray(template)) return template.flatMap(placeholderNames);
  if (template !== null && typeof template === "object") return Object.values(template).flatMap(placeholderNames);
  return [];
}

/**
 * The placeholders of a grant scheme's token request that name connection inputs (`{tenant}` of
 * a token URL, `{accountId}` of Zoom's parameters, `{site}` of Tableau's body), apart from those
 * naming typed fields, which only a two-step exchange's headers and body may use.
 */
export function grantTemplates(scheme: { type: string }): { inputs: Set<string> } {
  if (isScheme<ClientCredentialsScheme>(scheme, "clientCredentials")) {
    const fields = new Set((scheme.fields ?? []).map((field) => field.name));
    const names = placeholderNames([scheme.tokenUrl, scheme.audience ?? "", scheme.tokenParams ?? {}]);
    return { inputs: new Set(names.filter((name) => !fields.has(name))) };
  }
  if (isScheme<TokenExchangeScheme>(scheme, "tokenExchange")) {
    const fields = new Set(scheme.fields.map((field) => field.name));
    const names = placeholderNames([scheme.request.url, scheme.request.headers ?? {}, scheme.request.body ?? null]);
    return { inputs: new Set(names.filter((name) => !fields.has(name))) };
  }
  if (isScheme<JwtBearerScheme>(scheme, "jwtBearer"))
    return { inputs: new Set(placeholderNames([scheme.tokenUrl, scheme.audience ?? ""])) };
  if (isScheme<AppInstallationScheme>(scheme, "appInstallation")) {
    return { inputs: new Set(placeholderNames(scheme.tokenUrl ?? "").filter((name) => name !== "installationId")) };
  }
  return { inputs: new Set() };
}

function isScheme<Scheme extends { type: string }>(scheme: { type: string }, type: Scheme["type"]): scheme is Scheme {
  return scheme.type === type;
}

/**
 * The private key inside a pasted service account key file (`secrets.serviceAccountKey`), in the
 * forms it may turn up in (see `pemSecrets`), for redaction beside the file's own text.
 */
export function keyFileSecrets(credential: GrantCredential): string[] {
  const file = credential.secrets.serviceAccountKey;
  if (credential.type !== "jwtBearer" || !file) return [];
  try {
    const key: unknown = (JSON.parse(file) as Record<string, unknown>)?.private_key;
    return typeof key === "string" ? pemSecrets(key) : [];
  } catch {
    return [];
  }
}

/**
 * The secrets of a PEM private key, for redaction: the PEM as it stands, and its base64 body on
 * one line (how a key turns up in JSON, a log, or an error quoting its DER).
 */
export function pemSecrets(pem: string): string[] {
  const body = pem.replace(/-----(BEGIN|END)[^-]*-----/g, "").replace(/\\n|\s/g, "");
  return body ? [pem, body] : [pem];
}
