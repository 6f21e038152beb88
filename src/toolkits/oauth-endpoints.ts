import type { OAuth2Scheme } from "../credentials/auth-schemes.js";
import { ORIGIN_PLACEHOLDER } from "../outbound/url-policy.js";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Whether an OAuth endpoint may use plain http there: only on a loopback address (local development and tests). */
export function plainHttpAllowed(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK.has(url.hostname);
}

/** Every endpoint URL of the scheme. */
export function oauthEndpoints(scheme: OAuth2Scheme): string[] {
  return [scheme.authorizationUrl, scheme.tokenUrl, scheme.userInfoUrl, scheme.revocationUrl].filter((u): u is string => !!u);
}

/**
 * Throws unless every endpoint of the scheme is an absolute https URL, or http on a loopback
 * address (for local development and tests).
 */
export function assertOAuthEndpoints(toolkit: string, scheme: OAuth2Scheme): void {
  for (const endpoint of oauthEndpoints(scheme)) {
    let url: URL;
    try {
      // An endpoint under an origin input (`{instance}/oauth/token`) is checked with a stand-in https origin.
      url = new URL(endpoint.replace(ORIGIN_PLACEHOLDER, "https://origin.example").replace(/\{[A-Za-z0-9_]+\}/g, "placeholder"));
    } catch {
      throw new TypeError(`Toolkit "${toolkit}": OAuth endpoint "${endpoint}" is not an absolute URL.`);
    }
    // RFC 6749 3.1 and 3.2: an endpoint has no fragment. A hash-routed page (Apollo's
    // app.apollo.io/#/oauth/authorize) would get the request's parameters before its `#`. The text
    // is checked, not `url.hash`: an empty fragment (`/authorize#`) parses to an empty hash.
    if (endpoint.includes("#")) {
      throw new TypeError(`Toolkit "${toolkit}": OAuth endpoint "${endpoint}" has a fragment (#...), which OAuth endpoints may not have.`);
    }
    if (url.protocol !== "https:" && !plainHttpAllowed(url)) {
      throw new TypeError(
        `Toolkit "${toolkit}": OAuth endpoint "${endpoint}" must use https (http is allowed only on loopback addresses).`,
      );
    }
  }
}
