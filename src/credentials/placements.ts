import { toBase64 } from "../util/encoding.js";
import { isGrantType } from "./grant-schemes.js";

/**
 * Several secrets and where each goes, as data: a scheme's extra `fields` (secrets a person types
 * beside the main one, Datadog's application key), the deployer's `values` (Trello's app key, the
 * same on every connection) and `placements` (each value's place on every request). A placement's
 * `value` is a template: `{name}` stands for a credential field (`apiKey`, `token`, `username`,
 * `password`, or an extra field) or a deployer value; other characters are sent as written.
 *
 * An OAuth 2 or token grant mode's placements go beside its token, which keeps its own placement
 * (`Authorization: Bearer`): headers and query parameters only, whose templates name the deployer's
 * values and `{clientId}`, the OAuth client's id (Twitch's `Client-Id`, Etsy's `x-api-key`). The
 * other schemes' placements replace the credential's default placement.
 */

/** A secret a person types beside the scheme's own (`apiKey`, `token`, or `username` and `password`). */
export interface SecretField {
  /** The key of `POST /auth { credentials }` and of the connect form, e.g. `applicationKey`. */
  name: string;
  label: string;
  /** Default true: sealed, redacted and never shown again. */
  secret?: boolean;
}

/**
 * A value the deployer gives once, sent on every connection's requests (Trello's application key):
 * from the environment variable `env`, unless the deployer's entry gives `value` itself.
 */
export interface DeployerValue {
  name: string;
  label?: string;
  /** The environment variable that holds it, e.g. `TOOLS_PROXY_TRELLO_KEY`. */
  env?: string;
  /** The value, once the deployer's configuration is read. */
  value?: string;
}

/**
 * Where a value goes on every request: a header, a query parameter, a `{name}` segment of the
 * base URL's path (Telegram's `https://api.telegram.org/bot{token}`), or HTTP Basic built from two
 * templates (Freshdesk's API key as the username and `X` as the password).
 */
export type ValuePlacement =
  | { in: "header"; name: string; value: string }
  | { in: "query"; name: string; value: string }
  | { in: "path"; name: string; value: string }
  | { in: "basic"; username: string; password: string };

/** What a scheme declares about its values; every field optional. */
export interface Placed {
  type: string;
  /** The OAuth client's id, `{clientId}` of an OAuth 2 or token grant mode's templates. */
  clientId?: string;
  fields?: SecretField[];
  values?: DeployerValue[];
  placements?: ValuePlacement[];
}

/** The values a credential holds by name: its own (`apiKey`...) and its extra fields. */
export interface PlacedCredential {
  type: string;
  apiKey?: string;
  token?: string;
  username?: string;
  password?: string;
  fields?: Record<string, string>;
  /** A token grant's typed values (a client-credentials client the person types: `clientId`). */
  secrets?: Record<string, string>;
}

/** The names a scheme's own credential holds, before any extra field. */
export function ownFieldNames(type: string): string[] {
  if (type === "apiKey") return ["apiKey"];
  if (type === "bearer") return ["token"];
  if (type === "basic") return ["username", "password"];
  return [];
}

/**
 * Whether a scheme's placements go beside its token rather than replace its credential: OAuth 2
 * and token grants, whose token is the provider's answer, not a value a template could name.
 */
export function placesBesideToken(type: string): boolean {
  return type === "oauth2" || isGrantType(type);
}

/** The names a scheme's templates may use beside its fields and values: `{clientId}` beside a token. */
function schemeNames(type: string): string[] {
  return placesBesideToken(type) ? ["clientId"] : ownFieldNames(type);
}

const TEMPLATE = /\{([A-Za-z][A-Za-z0-9_]{0,63})\}/g;

/** The `{names}` a template uses. */
export function templateNames(template: string): string[] {
  return [...template.matchAll(TEMPLATE)].map((match) => match[1]!);
}

/** Every template of a placement. */
function templatesOf(placement: ValuePlacement): string[] {
  return placement.in === "basic" ? [placement.username, placement.password] : [placement.value];
}

/** The values a scheme's templates may name, for one credential: its fields, then the deployer's values. */
function valuesOf(scheme: Placed, credential: PlacedCredential): Record<string, string | undefined> {
  const own: Record<string, string | undefined> = {
    apiKey: credential.apiKey,
    token: credential.token,
    username: credential.username,
    password: credential.password,
  };
  const values: Record<string, string | undefined> = {};
  for (const name of ownFieldNames(scheme.type)) values[name] = own[name];
  if (placesBesideToken(scheme.type)) values.clientId = scheme.clientId || credential.secrets?.clientId || undefined;
  for (const field of scheme.fields ?? []) values[field.name] = credential.fields?.[field.name];
  for (const value of scheme.values ?? []) values[value.name] = value.value;
  return values;
}

function render(template: string, values: Record<string, string | undefined>): string {
  return template.replace(TEMPLATE, (_, name: string) => values[name] ?? "");
}

/** A placed value, rendered: where it goes and what is sent. */
export type RenderedPlacement = { in: "header" | "query" | "path"; name: string; value: string };

/**
 * The scheme's placements with the credential's and the deployer's values filled in; Basic becomes
 * the `authorization` header. Call `placementProblem` first: this fills what it is given.
 */
export function renderPlacements(scheme: Placed, credential: PlacedCredential): RenderedPlacement[] {
  const values = valuesOf(scheme, credential);
  return (scheme.placements ?? []).map((placement) =>
    placement.in === "basic"
      ? {
          in: "header",
          name: "authorization",
          value: `Basic ${toBase64(`${render(placement.username, values)}:${render(placement.password, values)}`)}`,
        }
      : {
          in: placement.in,
          name: placement.in === "header" ? placement.name.toLowerCase() : placement.name,
          value: render(placement.value, values),
        },
  );
}

/** Every header name the scheme's placements set, lowercased. */
export function placedHeaderNames(scheme: Placed): string[] {
  return (scheme.placements ?? []).flatMap((p) => (p.in === "header" ? [p.name.toLowerCase()] : p.in === "basic" ? ["authorization"] : []));
}

/**
 * Every secret of the credential as the scheme places it, for redaction: its extra secret fields,
 * the deployer's values, and each Basic header's base64 (which holds the secrets in another form).
 */
export function placedSecrets(scheme: Placed, credential: PlacedCredential): string[] {
  const secrets = (scheme.fields ?? []).filter((f) => f.secret !== false).map((f) => credential.fields?.[f.name]);
  for (const value of scheme.values ?? []) secrets.push(value.value);
  for (const rendered of renderPlacements(scheme, credential)) {
    if (rendered.name === "authorization" && rendered.value.startsWith("Basic ")) secrets.push(rendered.value.slice("Basic ".length));
  }
  return secrets.filter((s): s is string => !!s);
}

// What an HTTP header value may hold (RFC 9110 5.5): visible ASCII, space, tab, obs-text.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
// One path segment's characters (RFC 3986 pchar) without `%`: nothing that ends, adds or escapes a segment.
const PATH_SEGMENT = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]+$/;

/**
 * Why a credential cannot be placed as the scheme says, or null: a value that goes into a header
 * (or Basic) must be a header value without surrounding whitespace, a Basic username holds no `:`,
 * a path value must be one path segment (no `/`, `%`, `?`, `#`, nothing but dots), and every
 * value a template names must be there. `field` names the credential's field (or the deployer's value).
 */
export function placementProblem(scheme: Placed, credential: PlacedCredential): { field: string; reason: string } | null {
  const values = valuesOf(scheme, credential);
  const deployer = new Set((scheme.values ?? []).map((v) => v.name));
  if (placesBesideToken(scheme.type)) deployer.add("clientId");
  for (const placement of scheme.placements ?? []) {
    for (const template of templatesOf(placement)) {
      for (const name of templateNames(template)) {
        const value = values[name];
        if (value === undefined || value === "") {
          return { field: name, reason: deployer.has(name) ? "is not configured on this server" : "is missing; send it" };
        }
        const problem = valueProblem(placement.in, value);
        if (problem) return { field: name, reason: problem };
      }
    }
    if (placement.in === "basic" && render(placement.username, values).includes(":")) {
      const field = templateNames(placement.username)[0] ?? "username";
      return { field, reason: 'contains ":", which HTTP basic authentication cannot carry in a username' };
    }
  }
  return null;
}

function valueProblem(place: ValuePlacement["in"], value: string): string | null {
  if (place === "query") return null;
  if (place === "path") {
    return PATH_SEGMENT.test(value) && !/^\.+$/.test(value)
      ? null
      : "must be one URL path segment: letters, digits and -._~!$&'()*+,;=:@, without /, %, ?, # or only dots";
  }
  if (!HEADER_VALUE.test(value))
    return "contains a line break, a control character or a character beyond Latin-1, so it cannot be sent in an HTTP header";
  if (value !== value.trim()) return "starts or ends with whitespace; send it without";
  return null;
}

/**
 * What is wrong with a scheme's declared fields, values and placements, as a sentence, or null:
 * each template names a field of the credential or a deployer value, a path placement names a
 * `{placeholder}` of a base URL's path (never its host), and names are not declared twice. Beside
 * a token (OAuth 2, token grants) only headers and query parameters are placed, never `tokenHeader`,
 * the header the token itself goes in.
 */
export function placementsDefinitionProblem(scheme: Placed, baseUrls: readonly string[], tokenHeader?: string | null): string | null {
  const beside = placesBesideToken(scheme.type);
  const known = new Set(schemeNames(scheme.type));
  // Beside a token, a typed field named clientId is the client id that {clientId} names (Workday's token exchange).
  const typedClientId = beside && (scheme.fields ?? []).some((field) => field.name === "clientId");
  if (typedClientId) known.delete("clientId");
  for (const name of [...(scheme.fields ?? []), ...(scheme.values ?? [])].map((f) => f.name)) {
    if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(name)) return `field or value name "${name}" must be letters, digits and _`;
    if (known.has(name)) return `"${name}" is declared twice among the credential's fields and the deployer's values`;
    known.add(name);
  }
  for (const placement of scheme.placements ?? []) {
    if (beside && placement.in !== "header" && placement.in !== "query") {
      return `a ${scheme.type} mode places only headers and query parameters beside its token, not "${placement.in}"`;
    }
    if (beside && placement.in === "header" && placement.name.toLowerCase() === tokenHeader) {
      return `placement header "${placement.name}" is where the token goes; name another header`;
    }
    for (const template of templatesOf(placement)) {
      const unknown = templateNames(template).find((name) => !known.has(name));
      if (unknown)
        return beside
          ? `placement template "${template}" names {${unknown}}, which is neither {clientId} nor a deployer value`
          : `placement template "${template}" names {${unknown}}, which is neither a field of the credential nor a deployer value`;
      if (!HEADER_VALUE.test(template)) return `placement template "${template}" holds a character a request cannot carry`;
    }
    if (placement.in === "header" && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(placement.name)) {
      return `placement header "${placement.name}" is not an HTTP header name`;
    }
    if (placement.in === "path") {
      const inPath = baseUrls.some((base) => pathOfTemplate(base).includes(`{${placement.name}}`));
      if (!inPath) return `path placement {${placement.name}} is not a placeholder in the path of a base URL`;
    }
  }
  return null;
}

/** The path part of a base URL template (after `scheme://host`). */
function pathOfTemplate(base: string): string {
  const match = /^https?:\/\/[^/]*(.*)$/i.exec(base);
  return match?.[1] ?? "";
}

/**
 * Fills the scheme's path placements into a base URL template (`https://api.telegram.org/bot{token}`),
 * leaving its other placeholders to the connection's inputs. The values were checked by
 * `placementProblem`, so each is one path segment.
 */
export function fillPathPlacements(base: string, rendered: readonly RenderedPlacement[]): string {
  const hostEnd = base.indexOf("/", base.indexOf("://") + 3);
  if (hostEnd === -1) return base;
  let path = base.slice(hostEnd);
  for (const placed of rendered) {
    if (placed.in === "path") path = path.replaceAll(`{${placed.name}}`, placed.value);
  }
  return base.slice(0, hostEnd) + path;
}

/**
 * The scheme with its deployer values read: each from `given[name]` (the deployer's entry), else
 * from the environment variable it names. When one is missing the scheme is kept, with
 * `unconfigured` saying which variable to set (`POST /auth` answers it as a 400).
 */
export function configureValues<S extends Placed & { unconfigured?: string }>(
  scheme: S,
  env: Record<string, string | undefined>,
  given: Record<string, string>,
  toolkitName: string,
): S {
  if (!scheme.values?.length) return scheme;
  const missing: string[] = [];
  const values = scheme.values.map((value) => {
    const found = given[value.name] || value.value || (value.env ? env[value.env] : undefined) || undefined;
    if (found === undefined) missing.push(value.env ?? `"${value.name}"`);
    return found === undefined ? { ...value } : { ...value, value: found };
  });
  if (missing.length === 0) return { ...scheme, values };
  const list = missing.length > 1 ? `${missing.slice(0, -1).join(", ")} and ${missing.at(-1)}` : missing[0];
  const what =
    missing.length > 1 ? "the values its deployer gives for every connection" : "the value its deployer gives for every connection";
  // A mode already unconfigured (an OAuth client not set) names both, in one answer.
  const unconfigured = scheme.unconfigured
    ? `${scheme.unconfigured} It also needs ${list} (${what}).`
    : `${toolkitName} is not configured on this server: its operator must set ${list} (${what}), then restart it.`;
  return { ...scheme, values, unconfigured };
}
