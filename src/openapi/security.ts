/**
 * Security schemes → the toolkit's ways to connect: OAuth 2 authorization code → `oauth2` (its
 * URLs, and the scopes the imported operations ask for; the client's id and secret are `${NAME}`
 * references the deployer sets), apiKey in a header or the query → `apiKey`, HTTP bearer and basic
 * → `bearer` and `basic`. Anything else is left out with a warning.
 */
import type { Document } from "./load.js";
import { isRecord } from "./text.js";
import type { ImportedAuth } from "./types.js";

/** A security requirement: scheme name → scopes (all of them at once). */
export type Requirement = Record<string, string[]>;

/** Every requirement of a security list, as written (`[]` means no credential). */
export function requirementsOf(security: unknown): Requirement[] | undefined {
  if (!Array.isArray(security)) return undefined;
  return security
    .filter(isRecord)
    .map((requirement) =>
      Object.fromEntries(
        Object.entries(requirement).map(([name, scopes]) => [
          name,
          Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === "string") : [],
        ]),
      ),
    );
}

/** The environment variables that hold the OAuth client of a toolkit: `ACME_CLIENT_ID`, `ACME_CLIENT_SECRET`. */
export function clientVariables(slug: string): { id: string; secret: string } {
  const name = slug.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
  return { id: `${name}_CLIENT_ID`, secret: `${name}_CLIENT_SECRET` };
}

/** `header:x-api-key`, `query:key`: where the document's API keys go, lowercase, so that no tool asks for them. */
export function credentialPlaces(document: Document): Set<string> {
  const components = isRecord(document.components) ? document.components : {};
  const schemes = isRecord(components.securitySchemes) ? Object.values(components.securitySchemes) : [];
  return new Set(
    schemes
      .filter(isRecord)
      .flatMap((scheme) =>
        scheme.type === "apiKey" && typeof scheme.name === "string" ? [`${String(scheme.in)}:${scheme.name}`.toLowerCase()] : [],
      ),
  );
}

/**
 * The toolkit's auth from the schemes `requirements` name (those of the document and of each
 * imported operation), in the order they appear, one per type; `none` when nothing maps.
 */
export function authOf(
  document: Document,
  requirements: Requirement[],
  slug: string,
  baseUrl: string,
  warn: (message: string) => void,
): { auth: ImportedAuth[]; oauthScheme?: string } {
  const components = isRecord(document.components) ? document.components : {};
  const schemes = isRecord(components.securitySchemes) ? components.securitySchemes : {};
  const named = new Set(requirements.flatMap((requirement) => Object.keys(requirement)));
  for (const requirement of requirements) {
    const names = Object.keys(requirement);
    if (names.length > 1) warn(`a requirement needs ${names.join(" and ")} together; the toolkit offers each way to connect alone.`);
  }
  const auth: ImportedAuth[] = [];
  let oauthScheme: string | undefined;
  for (const name of named.size > 0 ? named : Object.keys(schemes)) {
    const scheme = schemes[name];
    if (!isRecord(scheme)) continue;
    const scopes = [...new Set(requirements.flatMap((requirement) => requirement[name] ?? []))];
    const mapped = mapScheme(name, scheme, scopes, slug, baseUrl, warn);
    if (mapped === undefined) continue;
    if (auth.some((other) => other.type === mapped.type)) {
      warn(`the security scheme "${name}" is a second ${mapped.type} scheme; the toolkit keeps the first.`);
      continue;
    }
    if (mapped.type === "oauth2") oauthScheme = name;
    auth.push(mapped);
  }
  return { auth: auth.length > 0 ? auth : [{ type: "none" }], ...(oauthScheme ? { oauthScheme } : {}) };
}

function mapScheme(
  name: string,
  scheme: Record<string, unknown>,
  scopes: string[],
  slug: string,
  baseUrl: string,
  warn: (message: string) => void,
): ImportedAuth | undefined {
  const unsupported = (why: string): undefined => {
    warn(`the security scheme "${name}" is left out: ${why}`);
  };
  switch (scheme.type) {
    case "apiKey":
      if ((scheme.in === "header" || scheme.in === "query") && typeof scheme.name === "string" && scheme.name) {
        return { type: "apiKey", in: scheme.in, name: scheme.name };
      }
      return unsupported(`an API key in a ${String(scheme.in)} is not supported (only in a header or the query).`);
    case "http": {
      const kind = String(scheme.scheme).toLowerCase();
      if (kind === "bearer" || kind === "basic") return { type: kind };
      return unsupported(`HTTP "${kind}" authentication is not supported (only bearer and basic).`);
    }
    case "oauth2": {
      const flow = isRecord(scheme.flows) && isRecord(scheme.flows.authorizationCode) ? scheme.flows.authorizationCode : undefined;
      if (flow === undefined) return unsupported("only the OAuth 2 authorization code flow is supported.");
      const authorizationUrl = absolute(flow.authorizationUrl, baseUrl);
      const tokenUrl = absolute(flow.tokenUrl, baseUrl);
      if (!authorizationUrl || !tokenUrl) return unsupported("its authorization or token URL is not a valid URL.");
      const refreshUrl = absolute(flow.refreshUrl, baseUrl);
      const client = clientVariables(slug);
      return {
        type: "oauth2",
        authorizationUrl,
        tokenUrl,
        ...(refreshUrl && refreshUrl !== tokenUrl ? { refreshUrl } : {}),
        clientId: `\${${client.id}}`,
        clientSecret: `\${${client.secret}}`,
        scopes,
      };
    }
    default:
      return unsupported(`the type "${String(scheme.type)}" is not supported.`);
  }
}

/** An http(s) URL, a relative one resolved against the base URL; undefined otherwise. */
function absolute(value: unknown, baseUrl: string): string | undefined {
  if (typeof value !== "string" || value === "" || /\{[^}]*\}/.test(value)) return undefined;
  try {
    const url = new URL(value, baseUrl.replace(/\{[^}]*\}/g, "placeholder"));
    return /^https?:$/.test(url.protocol) && !url.hostname.includes("placeholder") ? url.href : undefined;
  } catch {
    return undefined;
  }
}
