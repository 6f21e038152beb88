import { ToolsError } from "../core/errors.js";
import { type AuthScheme, basicAuthorization, type Credential, type CredentialPlacement } from "../credentials/auth-schemes.js";
import { type GrantCredential, type GrantScheme, isGrantType } from "../credentials/grant-schemes.js";
import { placedHeaderNames, placesBesideToken, type RenderedPlacement, renderPlacements } from "../credentials/placements.js";

// Headers a caller may never send upstream: hop-by-hop headers (RFC 9110 7.6.1, plus the h2c
// upgrade's), the proxy's own session and routing (`host`, `cookie`), and framing that fetch
// computes itself. `proxy-*` names are refused by prefix.
const FORBIDDEN = new Set([
  "connection",
  "keep-alive",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "http2-settings",
  "host",
  "cookie",
  "content-length",
  "expect",
]);

/**
 * The request header that names which of a connection's further tokens a request uses
 * (`x-tools-proxy-token: user`, Slack's user token beside its bot token). Read by the outbound
 * fetch and never sent upstream.
 */
export const TOKEN_HEADER = "x-tools-proxy-token";

/**
 * The credential a request uses: the connection's own, or, when the caller's headers name one with
 * `TOKEN_HEADER`, the further token of that name as the access token (without the header, the
 * `preferred` one where the connection keeps it). Returns the caller's headers without that
 * header. A name the header gives that the connection has no token for is a 400 listing its names.
 */
export function chooseToken(
  callerHeaders: HeadersInit | undefined,
  credential: Credential | null,
  preferred?: string,
): {
  headers: Array<[string, string]>;
  credential: Credential | null;
  chosen: string | undefined;
} {
  const entries = headerEntries(callerHeaders);
  const named = entries.filter(([name]) => name.toLowerCase() === TOKEN_HEADER).map(([, value]) => value.trim());
  const headers = entries.filter(([name]) => name.toLowerCase() !== TOKEN_HEADER);
  const tokens = credential?.type === "oauth2" ? (credential.tokens ?? {}) : {};
  if (named.length === 0) {
    if (preferred === undefined || !Object.hasOwn(tokens, preferred)) return { headers, credential, chosen: undefined };
    return { headers, credential: { type: "oauth2", accessToken: tokens[preferred]!, tokenType: "bearer" }, chosen: preferred };
  }
  const name = named[0]!;
  if (named.length > 1 || !Object.hasOwn(tokens, name)) {
    const known = Object.keys(tokens);
    throw new ToolsError(
      "invalid_request",
      `${TOKEN_HEADER} names a token this connection does not keep; ` +
        (known.length ? `its tokens: ${known.join(", ")}.` : "it keeps no further token, so leave the header out."),
    );
  }
  return { headers, credential: { type: "oauth2", accessToken: tokens[name]!, tokenType: "bearer" }, chosen: name };
}

/** Whether `name` is an HTTP token, as a header name must be. */
export function isHeaderName(name: string): boolean {
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name);
}

/** Whether `value` can be sent as a header value: no CR, LF, NUL or other control character (tab aside), nothing beyond Latin-1. */
export function isHeaderValue(value: string): boolean {
  return !/[^\t\x20-\x7e\x80-\xff]/.test(value);
}

/**
 * Whether a caller may never set the header `name` (lowercase): a forbidden or hop-by-hop header,
 * a `proxy-*` one, `authorization`, or `credentialHeaderName`, the header the connection's
 * credential goes in (see `credentialHeader`). The one rule for caller headers and a tool's
 * header arguments.
 */
export function isReservedHeader(name: string, credentialHeaderName: string | null | readonly string[]): boolean {
  const own = typeof credentialHeaderName === "string" ? name === credentialHeaderName : !!credentialHeaderName?.includes(name);
  return FORBIDDEN.has(name) || name.startsWith("proxy-") || name === "authorization" || own;
}

/**
 * The caller's headers as name-value pairs, read without `new Headers()`, which would throw a
 * TypeError on a value with CR or LF before the policy below could refuse it with a 400.
 */
function headerEntries(headers: HeadersInit | undefined): Array<[string, string]> {
  if (headers instanceof Headers) return [...headers];
  if (!Array.isArray(headers)) return Object.entries(headers ?? {});
  return headers.map((pair) => {
    if (pair.length !== 2) throw new ToolsError("invalid_request", "Each header in a list must be a [name, value] pair; fix the headers.");
    return [String(pair[0]), String(pair[1])];
  });
}

/**
 * Builds upstream request headers from the caller's. Every caller header is validated first: a
 * name that is not an HTTP token, or a value with CR, LF, NUL, another control character (tab
 * aside) or a character beyond Latin-1, is a `400 invalid_request`, even when the header would
 * have been dropped. The toolkit's default headers (`defaults`, e.g. `Notion-Version`) come first
 * and a caller's own value replaces them. Then forbidden headers, `proxy-*` headers, headers the
 * caller's `Connection` names, `authorization` and the scheme's own credential header (any case)
 * are dropped, and the credential is set last, so nothing the caller sends can override,
 * duplicate or remove it.
 */
export function buildUpstreamHeaders(
  callerHeaders: HeadersInit | undefined,
  scheme: AuthScheme,
  credential: Credential | null,
  defaults: Record<string, string> = {},
): Headers {
  const entries = headerEntries(callerHeaders);
  for (const [name, value] of entries) {
    if (!isHeaderName(name) || !isHeaderValue(value)) {
      throw new ToolsError(
        "invalid_request",
        `Header "${name.replace(/[^\x21-\x7e]/g, "?")}" has an invalid name, or a line break, ` +
          "control character or non-Latin-1 character in its value; remove it.",
      );
    }
  }
  const connectionListed = new Set<string>();
  for (const [name, value] of entries) {
    if (name.toLowerCase() === "connection") for (const listed of value.split(",")) connectionListed.add(listed.trim().toLowerCase());
  }
  const keyHeader = credentialHeaders(scheme);
  const headers = new Headers();
  const callerNames = new Set(entries.map(([name]) => name.toLowerCase()));
  // The same rule for the toolkit's defaults and the caller's headers; a caller's own header replaces a default.
  const dropped = (name: string) => connectionListed.has(name) || isReservedHeader(name, keyHeader);
  for (const [name, value] of Object.entries(defaults)) {
    const lower = name.toLowerCase();
    if (!callerNames.has(lower) && !dropped(lower)) headers.set(lower, value);
  }
  for (const [callerName, value] of entries) {
    const name = callerName.toLowerCase();
    if (!dropped(name)) headers.append(name, value);
  }
  for (const sent of credentialValues(scheme, credential)) if (sent.in === "header") headers.set(sent.name, sent.value);
  return headers;
}

/** Where a token of an OAuth or bearer scheme goes when the scheme does not say: `Authorization: Bearer`. */
const BEARER: CredentialPlacement = { in: "header", name: "authorization", prefix: "Bearer " };

/** Where the scheme puts its credential. */
function placementOf(scheme: AuthScheme): CredentialPlacement | null {
  if (isGrantType(scheme.type)) return (scheme as GrantScheme).placement ?? BEARER;
  switch (scheme.type) {
    case "oauth2":
    case "bearer":
      return scheme.placement ?? BEARER;
    case "apiKey":
      if (!scheme.name) return null;
      return scheme.in === "header" ? { in: "header", name: scheme.name, prefix: scheme.prefix ?? "" } : { in: "query", name: scheme.name };
    case "basic":
      return { in: "header", name: "authorization" };
    default:
      return null;
  }
}

/** The header the scheme's credential goes in, lowercased, or null when it goes in none (with placements: the first they set). */
export function credentialHeader(scheme: AuthScheme): string | null {
  return credentialHeaders(scheme)[0] ?? null;
}

/**
 * Every header the scheme's credential goes in, lowercased: one, none, or what its placements set
 * (beside a token's own header, for OAuth 2 and token grants).
 */
export function credentialHeaders(scheme: AuthScheme): string[] {
  const placement = placementOf(scheme);
  const own = placement?.in === "header" ? [placement.name.toLowerCase()] : [];
  if (!("placements" in scheme && scheme.placements)) return own;
  return placesBesideToken(scheme.type) ? [...own, ...placedHeaderNames(scheme)] : placedHeaderNames(scheme);
}

/** Whether any of the scheme's credential goes in the query string. */
export function placesInQuery(scheme: AuthScheme): boolean {
  const placed = "placements" in scheme && scheme.placements ? scheme.placements.some((p) => p.in === "query") : false;
  if (placed) return true;
  if ("placements" in scheme && scheme.placements && !placesBesideToken(scheme.type)) return false;
  return placementOf(scheme)?.in === "query";
}

/**
 * Every value the credential puts on a request: the scheme's placements filled in (headers, query
 * parameters, base URL path segments), or its one default placement; an OAuth 2 or token grant
 * mode's token first, then the values its placements put beside it (Twitch's `Client-Id`).
 */
export function credentialValues(scheme: AuthScheme, credential: Credential | null): RenderedPlacement[] {
  const sent = credentialValue(scheme, credential);
  if (credential && credential.type === scheme.type && "placements" in scheme && scheme.placements) {
    const placed = renderPlacements(scheme, credential);
    return placesBesideToken(scheme.type) && sent ? [sent, ...placed] : placed;
  }
  return sent ? [sent] : [];
}

/** The credential as the scheme sends it: a header or a query parameter, its name and value. */
export function credentialValue(
  scheme: AuthScheme,
  credential: Credential | null,
): { in: "header" | "query"; name: string; value: string } | null {
  if (!credential) return null;
  // A credential stored under another scheme (the toolkit's auth changed since) goes the way its
  // own type goes by default, never into the new scheme's key header or query parameter.
  const placement = placementOf(credential.type === scheme.type ? scheme : ({ type: credential.type } as AuthScheme));
  if (!placement || (credential.type === "apiKey" && scheme.type !== "apiKey")) return null;
  const prefix = placement.in === "header" ? (placement.prefix ?? "") : "";
  if (isGrantType(credential.type)) {
    const token = (credential as GrantCredential).accessToken;
    return token === undefined ? null : { in: placement.in, name: placement.name, value: prefix + token };
  }
  switch (credential.type) {
    case "oauth2":
      return { in: placement.in, name: placement.name, value: prefix + credential.accessToken };
    case "bearer":
      return { in: placement.in, name: placement.name, value: prefix + credential.token };
    case "apiKey":
      return { in: placement.in, name: placement.name, value: prefix + credential.apiKey };
    case "basic":
      return { in: "header", name: "authorization", value: basicAuthorization(credential.username, credential.password) };
    default:
      return null;
  }
}

/** Sets the query-string credential values on the URL (replacing any value the caller put there). */
export function applyCredentialQuery(url: URL, scheme: AuthScheme, credential: Credential | null): URL {
  const query = credentialValues(scheme, credential).filter((sent) => sent.in === "query");
  if (query.length === 0) return url;
  const withKey = new URL(url);
  for (const sent of query) withKey.searchParams.set(sent.name, sent.value);
  return withKey;
}
