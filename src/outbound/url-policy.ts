import { ToolsError } from "../core/errors.js";
import { originProblem } from "./origin-policy.js";

// `scheme://authority` exactly: `http:host`, `http:/host` and `http:///host` parse to the same
// URL as `http://host`, so only the plain form is taken.
const SCHEME_AND_AUTHORITY = /^(https?):\/\/([^/?#]*)/i;
// Slashes, backslashes, dots and NUL that a server could decode into path structure.
const ENCODED_SEPARATOR = /%(?:2f|5c|2e|00)/i;
// Characters Windows "best fit" code pages turn into `/` or `\`; NFKC leaves them alone.
const BEST_FIT_SEPARATORS = /[\u2044\u2215\u2216\u29f5\u29f8\u29f9]/;
const PERCENT_RUN = /(?:%[0-9a-f]{2})+/gi;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Checks that `target` falls under one of the toolkit's base URLs and returns it parsed; the
 * caller must send exactly this URL object, so what was checked is what goes out.
 *
 * Accepted: `http(s)://host[:port]/path...` where, after parsing with the URL standard, scheme,
 * host and port equal a base URL's and the path equals the base path or continues it after a
 * `/`. The host must be written as the URL standard writes it (ASCII case aside), so alternative
 * IP spellings (`2130706433`, `0x7f.1`, `[::ffff:7f00:1]`), percent-encoded, fullwidth or other
 * Unicode spellings and trailing dots are refused even when they name the same address. An
 * explicit default port (`:443` for https) is the same URL and is accepted.
 *
 * Refused outright, since servers disagree about them: userinfo (`@`), backslashes, control
 * characters, percent-encoded `/`, `\`, `.` or NUL in the path (also when double-encoded, as in
 * `%252f` or `%%32%66`), `%u` escapes, percent-encoded bytes that are not UTF-8 (overlong `%c0%ae`),
 * segments made only of dots (`..;`, `...`, `.. `), and characters that Unicode compatibility
 * mapping or Windows best-fit turns into ASCII (`．．／`). Plain `.` and `..` segments are
 * resolved by the parser first, so only those that climb out of the base are refused.
 *
 * `{placeholders}` in a base URL are filled from the connection's params ([A-Za-z0-9-], one
 * label) and the filled URL is matched exactly the same way.
 */
export function checkOutboundUrl(target: string | URL, baseUrls: string[], params: Record<string, string> = {}): URL {
  if (baseUrls.length === 0) throw new ToolsError("invalid_request", "This toolkit has no base URL, so it cannot make HTTP calls.");
  const bases = baseUrls.map((base) => fillBaseUrl(base, params));
  const raw = String(target);
  const refuse = (why: string) =>
    new ToolsError("invalid_request", `The URL is not allowed for this toolkit: ${why}. Use a URL under ${bases.join(" or ")}.`);

  if (/[\\\u0000-\u001f\u007f]/.test(raw)) throw refuse("it contains a backslash or a control character");
  // The URL parser drops them silently, so what would be checked is not what the caller wrote.
  if (raw !== raw.trim()) throw refuse("it starts or ends with whitespace");
  const written = SCHEME_AND_AUTHORITY.exec(raw);
  if (!written) throw refuse("it is not an absolute URL of the form http(s)://host/path");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse("it is not a valid URL");
  }
  const authority = written[2]!;
  // The authority as written ends where the parser's does, so any user information has an `@` in it.
  if (authority.includes("@")) throw refuse("it contains user information");
  if (!isCanonicalAuthority(authority, url)) throw refuse(`its host or port is not written in standard form (write it as ${url.host})`);
  const pathProblem = pathRefusal(url.pathname);
  if (pathProblem) throw refuse(pathProblem);

  for (const base of bases) {
    const allowed = new URL(base);
    if (url.protocol !== allowed.protocol || url.hostname !== allowed.hostname || url.port !== allowed.port) continue;
    const prefix = allowed.pathname.replace(/\/+$/, "");
    if (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)) return url;
  }
  throw refuse("its origin or path is outside the toolkit's base URL");
}

/**
 * Checks a redirect's `Location`, relative to the URL that answered, with the same policy. An
 * absolute or scheme-relative Location is checked as written (so `http://0x7f.1/` or `//evil` is
 * refused as it would be from a caller, and `http:evil` is never read as a relative path); one
 * with a backslash or a control character is refused; a path is resolved against `from` first.
 */
export function checkRedirectUrl(location: string, from: URL, baseUrls: string[], params: Record<string, string> = {}): URL {
  const written = /^[a-z][a-z0-9+.-]*:/i.test(location) || /[\\\u0000-\u001f\u007f]/.test(location);
  if (written) return checkOutboundUrl(location, baseUrls, params);
  if (location.startsWith("//")) return checkOutboundUrl(`${from.protocol}${location}`, baseUrls, params);
  return checkOutboundUrl(new URL(location, from).href, baseUrls, params);
}

/**
 * Resolves a tool's relative URL against the first base URL, keeping the base path. A URL with
 * leading or trailing whitespace or control characters is refused rather than read as relative
 * (`"  http://host/x"` would otherwise become `<base>/%20%20http://host/x`): the URL parser drops
 * them from an absolute URL, so the caller's intent is unclear.
 */
export function resolveAgainstBase(target: string | URL, baseUrls: string[], params: Record<string, string> = {}): string {
  const raw = String(target);
  if (/^[\s\u0000-\u001f]|[\s\u0000-\u001f]$/.test(raw)) {
    throw new ToolsError("invalid_request", "The URL starts or ends with whitespace or a control character; send it without.");
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || baseUrls.length === 0) return raw;
  const base = fillBaseUrl(baseUrls[0]!, params).replace(/\/+$/, "");
  return raw.startsWith("/") ? `${base}${raw}` : `${base}/${raw}`;
}

/**
 * Fills `{name}` placeholders of a base URL from a connection's params. A value is one label of
 * letters, digits and `-`, so it cannot add a port or a path; only a placeholder that begins the
 * host may hold several labels (Salesforce's sandbox instance `acme--dev.sandbox` before
 * `.my.salesforce.com`), since the labels after it stay fixed. In the host, a placeholder may fill
 * a subdomain but never the last label (a trailing dot aside), and the filled host must not be an
 * IP address: the connection can pick its tenant, not the server. With `wholeHost` (OAuth
 * endpoints, whose toolkit declared the placeholder a `host` input and checked its value against
 * the input's hosts), a placeholder may be the whole host, filled with a name of three labels or
 * more. A base URL with a placeholder must be written `http(s)://host/path`, so that the host
 * checked is the host parsed.
 */
export function fillBaseUrl(base: string, params: Record<string, string>, options: { wholeHost?: boolean } = {}): string {
  const origin = ORIGIN_PLACEHOLDER.exec(base);
  if (origin) return fillOrigin(origin[1]!, params) + fillPath(base.slice(origin[0].length), params);
  const hostAt = base.indexOf("://") + 3;
  const filled = base.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string, offset: number) => {
    const value = params[name];
    const shape = offset === hostAt ? HOST_LABELS : HOST_LABEL;
    if (!value || !shape.test(value)) {
      throw new ToolsError("invalid_request", `The connection has no valid value for the base URL placeholder {${name}}.`);
    }
    return value;
  });
  const host = templateHost(base);
  const whole = options.wholeHost === true && host !== undefined && /^\{[A-Za-z0-9_]+\}$/.test(host);
  const problem = whole
    ? isDomainName(filled) && new URL(filled).hostname.split(".").length >= 3
      ? undefined
      : WHOLE_HOST
    : (baseUrlTemplateProblem(base) ?? (host?.includes("{") && !isDomainName(filled) ? WHOLE_HOST : undefined));
  if (problem) throw new ToolsError("invalid_request", `This toolkit's base URL ${problem}`);
  return filled;
}

/**
 * A template that begins with `{name}` where a scheme would be: the whole origin comes from the
 * connection's origin input (`{instance}/api/v4`); defineToolkit allows it only for such an input.
 */
export const ORIGIN_PLACEHOLDER = /^\{([A-Za-z0-9_]+)\}(?=[/]|$)/;

/**
 * An origin input's value, checked again for its shape (`http(s)://host[:port]`, no path): the
 * connection's address policy was applied when it was made, and `guarded-fetch` applies it again
 * at every connection.
 */
function fillOrigin(name: string, params: Record<string, string>): string {
  const value = params[name];
  if (!value || originProblem(value, { allowPrivateNetworks: true }) !== undefined) {
    throw new ToolsError("invalid_request", `The connection has no valid origin for the base URL placeholder {${name}}.`);
  }
  return new URL(value).origin;
}

/** Fills the placeholders of a URL's path, each with one label. */
function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (!value || !HOST_LABEL.test(value)) {
      throw new ToolsError("invalid_request", `The connection has no valid value for the base URL placeholder {${name}}.`);
    }
    return value;
  });
}

const HOST_LABEL = /^[A-Za-z0-9-]{1,63}$/;
/** One DNS label or several, dot-separated, at most 253 characters in all. */
const HOST_LABELS = /^(?=.{1,253}$)[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*$/;

const WHOLE_HOST = "lets a connection choose its whole host; a placeholder may only fill a subdomain.";

/**
 * What is wrong with a base URL's placeholders, as the end of a sentence about the base URL, or
 * undefined: `defineToolkit` asks before a call is made, `fillBaseUrl` again on each call.
 */
export function baseUrlTemplateProblem(base: string): string | undefined {
  if (!/\{[A-Za-z0-9_]+\}/.test(base)) return undefined;
  // The whole origin is an origin input's (defineToolkit checked the rest with a stand-in origin).
  if (ORIGIN_PLACEHOLDER.test(base)) return undefined;
  const host = templateHost(base);
  if (host === undefined) return "has a placeholder but is not written as http(s)://host/path; write it in that form.";
  return /\{[^}]*\}[^.]*\.?$/.test(host) ? WHOLE_HOST : undefined;
}

/** The host of a base URL as written (`http(s)://host[:port]/...`), port cut, or undefined in another form. */
function templateHost(base: string): string | undefined {
  const authority = SCHEME_AND_AUTHORITY.exec(base)?.[2];
  return authority?.replace(/:[^\]]*$/, "");
}

/** Whether the URL parses with a domain name (not an IP address) as its host. */
function isDomainName(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const host = new URL(url).hostname;
  return !host.startsWith("[") && !/^[\d.]+$/.test(host);
}

/**
 * Whether `host[:port]` as written is exactly what the parser made of it (ASCII case aside): the
 * parser's host, then nothing or a port. The URL parsed, so a written port is digits in range; only
 * a leading zero or an empty port (`:`) spell it differently. An explicit default port (`:443`)
 * parses to no port and is accepted.
 */
function isCanonicalAuthority(authority: string, url: URL): boolean {
  const written = authority.replace(/[A-Z]/g, (c) => c.toLowerCase());
  if (!written.startsWith(url.hostname)) return false;
  const port = written.slice(url.hostname.length);
  return port === "" || /^:[1-9]/.test(port);
}

/**
 * Why a parsed path is refused, or null. Checked on the path as sent and on each decoding of it
 * (a server or a proxy in front of it may decode more than once), up to three decodings.
 */
function pathRefusal(pathname: string): string | null {
  let layer = pathname;
  for (let depth = 0; depth < 4; depth++) {
    const encoding = depth === 0 ? "an encoded" : "a double-encoded";
    if (ENCODED_SEPARATOR.test(layer)) return `its path contains ${encoding} slash, backslash, dot or NUL`;
    if (/%u[0-9a-f]{4}/i.test(layer)) return `its path contains ${encoding} %u escape`;
    if (layer.split("/").some(isDotsOnly)) return "its path contains a segment made only of dots";
    if (hasAsciiLookalike(layer)) return "its path contains a character that looks like an ASCII slash, dot or other delimiter";
    let next: string;
    try {
      next = layer.replace(PERCENT_RUN, (run) => utf8.decode(Uint8Array.from(run.slice(1).split("%"), (hex) => parseInt(hex, 16))));
    } catch {
      return `its path contains ${encoding} byte sequence that is not UTF-8 (such as an overlong dot)`;
    }
    if (next === layer) return null;
    layer = next;
  }
  return "its path is percent-encoded more than three times over";
}

/** `..;x`, `...`, `.. `: segments that some servers treat as `..` or `.`. */
function isDotsOnly(segment: string): boolean {
  return /^\.+$/.test(segment.split(";")[0]!.replace(/%20|%09|\s/gi, ""));
}

/**
 * Non-ASCII characters that compatibility mapping (NFKC) or best-fit turns into ASCII. (The path as
 * parsed is all ASCII, so this finds something only in a decoded layer.)
 */
function hasAsciiLookalike(text: string): boolean {
  for (const char of text) {
    if (char.charCodeAt(0) > 0x7f && (BEST_FIT_SEPARATORS.test(char) || /[\x00-\x7f]/.test(char.normalize("NFKC")))) return true;
  }
  return false;
}
