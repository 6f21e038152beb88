import { ToolsError } from "../errors.js";

/**
 * Checks that `target` falls under one of the toolkit's base URLs and returns it parsed.
 *
 * The URL is parsed with the URL standard, never compared as a string: the scheme, host and port
 * must equal a base URL's exactly (so alternative IP spellings, which the parser normalises, never
 * match a named host), and the normalised path must equal the base path or continue it after a
 * `/`. Userinfo, backslashes and percent-encoded slashes, backslashes or dots are refused outright,
 * since servers disagree about them. `{placeholders}` in a base URL are filled from the
 * connection's params before matching.
 */
export function checkOutboundUrl(target: string | URL, baseUrls: string[], params: Record<string, string> = {}): URL {
  const raw = String(target);
  const refuse = (why: string) =>
    new ToolsError("invalid_request", `The URL is not allowed for this toolkit: ${why}. Use a URL under ${baseUrls.map(fill(params)).join(" or ") || "the toolkit's base URL"}.`);
  if (baseUrls.length === 0) throw new ToolsError("invalid_request", "This toolkit has no base URL, so it cannot make HTTP calls.");
  if (/[\\\u0000-\u001f\u007f]/.test(raw)) throw refuse("it contains a backslash or a control character");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse("it is not an absolute URL");
  }
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(raw)) throw refuse("it contains user information");
  if (/%(2f|5c|2e|00)/i.test(url.pathname)) throw refuse("its path contains an encoded slash, backslash, dot or NUL");
  for (const base of baseUrls.map(fill(params))) {
    const allowed = new URL(base);
    if (url.protocol !== allowed.protocol || url.hostname !== allowed.hostname || url.port !== allowed.port) continue;
    const prefix = allowed.pathname.replace(/\/+$/, "");
    if (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`) || (prefix === "" && url.pathname === "/")) return url;
  }
  throw refuse("its origin or path is outside the toolkit's base URL");
}

/** Resolves a tool's relative URL against the first base URL, keeping the base path. */
export function resolveAgainstBase(target: string | URL, baseUrls: string[], params: Record<string, string> = {}): string {
  const raw = String(target);
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || baseUrls.length === 0) return raw;
  const base = fill(params)(baseUrls[0]!).replace(/\/+$/, "");
  return raw.startsWith("/") ? `${base}${raw}` : `${base}/${raw}`;
}

function fill(params: Record<string, string>) {
  return (base: string) =>
    base.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
      const value = params[name];
      if (!value || !/^[A-Za-z0-9-]{1,63}$/.test(value)) {
        throw new ToolsError("invalid_request", `The connection has no valid value for the base URL placeholder {${name}}.`);
      }
      return value;
    });
}
