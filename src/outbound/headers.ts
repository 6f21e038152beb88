import { ToolsError } from "../errors.js";
import { basicAuthorization, type AuthScheme, type Credential } from "../toolkits/auth-schemes.js";

// Headers a caller may never send upstream: they belong to the hop, identify the proxy's own
// session, or would let the caller smuggle a second request.
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "cookie",
  "content-length",
  "expect",
]);

/**
 * Builds upstream request headers from the caller's, minus forbidden ones, with the credential
 * set last so nothing the caller sent can override or remove it.
 */
export function buildUpstreamHeaders(callerHeaders: Record<string, string> | Headers | undefined, scheme: AuthScheme, credential: Credential | null): Headers {
  const headers = new Headers();
  const entries = callerHeaders instanceof Headers ? [...callerHeaders] : Object.entries(callerHeaders ?? {});
  const connectionListed = new Set<string>();
  for (const [name, value] of entries) {
    if (name.toLowerCase() === "connection") for (const listed of value.split(",")) connectionListed.add(listed.trim().toLowerCase());
  }
  const credentialHeader = credentialHeaderName(scheme);
  for (const [rawName, value] of entries) {
    const name = rawName.toLowerCase();
    if (HOP_BY_HOP.has(name) || name.startsWith("proxy-") || connectionListed.has(name)) continue;
    if (name === "authorization" || name === credentialHeader) continue;
    if (/[\r\n\0]/.test(value) || /[\r\n\0]/.test(name)) {
      throw new ToolsError("invalid_request", `Header "${rawName.replace(/[^\x21-\x7e]/g, "?")}" contains a line break or NUL; remove it.`);
    }
    try {
      headers.append(name, value);
    } catch {
      throw new ToolsError("invalid_request", `Header "${rawName.replace(/[^\x21-\x7e]/g, "?")}" is not a valid HTTP header.`);
    }
  }
  applyCredentialHeader(headers, scheme, credential);
  return headers;
}

/** The header that carries the credential for this scheme, lowercased, or null. */
export function credentialHeaderName(scheme: AuthScheme): string | null {
  if (scheme.type === "apiKey") return scheme.in === "header" ? scheme.name.toLowerCase() : null;
  if (scheme.type === "none") return null;
  return "authorization";
}

function applyCredentialHeader(headers: Headers, scheme: AuthScheme, credential: Credential | null): void {
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
      if (scheme.type === "apiKey" && scheme.in === "header") headers.set(scheme.name, credential.apiKey);
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
