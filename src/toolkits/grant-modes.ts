import type { AuthScheme } from "../credentials/auth-schemes.js";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** The absolute URLs a JWT bearer mode sends to or names (its token URL and audience); none for other modes. */
export function grantEndpoints(mode: AuthScheme): string[] {
  if (mode.type !== "jwtBearer") return [];
  return [mode.tokenUrl, mode.audience].filter((url): url is string => url !== undefined);
}

/**
 * Checks a JWT bearer or app installation mode when its toolkit is defined: a token URL that is
 * https (http only on loopback, for tests), an assertion lifetime of 1 to 3600 seconds (Google's
 * limit), a deployer-signed mode that is configured or says why not, and an installation token URL
 * that keeps `{installationId}` if it names one. Errors never quote a key.
 */
export function assertGrantMode(slug: string, mode: AuthScheme): void {
  const where = `Toolkit "${slug}": auth "${mode.type}"`;
  if (mode.type === "jwtBearer") {
    for (const endpoint of [mode.tokenUrl]) {
      const url = URL.canParse(endpoint.replace(/\{[A-Za-z0-9_]+\}/g, "placeholder"))
        ? new URL(endpoint.replace(/\{[A-Za-z0-9_]+\}/g, "placeholder"))
        : undefined;
      if (!url || !(url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.has(url.hostname)))) {
        throw new TypeError(`${where}: tokenUrl "${endpoint}" must be an absolute https URL (http only on loopback addresses).`);
      }
    }
    const lifetime = mode.assertionLifetime;
    if (lifetime !== undefined && !(Number.isInteger(lifetime) && lifetime >= 1 && lifetime <= 3600)) {
      throw new TypeError(`${where}: assertionLifetime must be a whole number of seconds from 1 to 3600.`);
    }
    if (mode.signer === "serviceAccount" && (mode.issuer !== undefined || mode.privateKey !== undefined)) {
      throw new TypeError(`${where}: a service account mode signs with the pasted key file; remove issuer and privateKey.`);
    }
  }
  if (
    mode.type === "appInstallation" &&
    mode.tokenUrl !== undefined &&
    !mode.tokenUrl.startsWith("/") &&
    !/^https?:\/\//.test(mode.tokenUrl)
  ) {
    throw new TypeError(`${where}: tokenUrl must be a path under the base URL or an absolute http(s) URL.`);
  }
}
