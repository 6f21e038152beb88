import { ToolsError } from "../core/errors.js";
import { type AuthScheme, basicAuthorization, type Credential } from "../credentials/auth-schemes.js";

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
 * have been dropped. Then forbidden headers, `proxy-*` headers, headers the caller's `Connection`
 * names, `authorization` and the scheme's own credential header (any case) are dropped, and the
 * credential is set last, so nothing the caller sends can override, duplicate or remove it.
 */
export function buildUpstreamHeaders(callerHeaders: HeadersInit | undefined, scheme: AuthScheme, credential: Credential | null): Headers {
  const entries = headerEntries(callerHeaders);
  for (const [name, value] of entries) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[^\t\x20-\x7e\x80-\xff]/.test(value)) {
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
  const keyHeader = apiKeyHeader(scheme);
  const headers = new Headers();
  for (const [callerName, value] of entries) {
    const name = callerName.toLowerCase();
    if (FORBIDDEN.has(name) || name.startsWith("proxy-") || connectionListed.has(name)) continue;
    if (name === "authorization" || name === keyHeader) continue;
    headers.append(name, value);
  }
  applyCredentialHeader(headers, keyHeader, credential);
  return headers;
}

/** The header an API key goes in, lowercased, or null when the scheme puts none in a header. */
function apiKeyHeader(scheme: AuthScheme): string | null {
  return scheme.type === "apiKey" && scheme.in === "header" ? scheme.name.toLowerCase() : null;
}

function applyCredentialHeader(headers: Headers, keyHeader: string | null, credential: Credential | null): void {
  if (!credential) return;
  switch (credential.type) {
    case "oauth2":
      headers.set("authorization", `Bearer ${credential.accessToken}`);
      break;
    case "bearer":
      headers.set("authorization", `Bearer ${credential.token}`);
      break;
    case "basic":
      headers.set("authorization", basicAuthorization(credential.username, credential.password));
      break;
    case "apiKey":
      if (keyHeader) headers.set(keyHeader, credential.apiKey);
      break;
  }
}

/** Sets a query-string API key on the URL (replacing any value the caller put there). */
export function applyCredentialQuery(url: URL, scheme: AuthScheme, credential: Credential | null): URL {
  if (credential?.type === "apiKey" && scheme.type === "apiKey" && scheme.in === "query") {
    const withKey = new URL(url);
    withKey.searchParams.set(scheme.name, credential.apiKey);
    return withKey;
  }
  return url;
}
