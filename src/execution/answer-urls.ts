import { checkRedirectUrl } from "../outbound/url-policy.js";

/**
 * The URLs of a passthrough answer that a client may follow, pointed at the passthrough or taken
 * out. A client follows them with the credential it gave the passthrough, the tools-proxy API key:
 * Octokit's `paginate` sends its token to a `Link: <...>; rel="next"` URL, `fetch` and curl send
 * their headers (`x-api-key`) to a redirect's `Location` on any host. So an answer may only hold
 * URLs on the handler's own origin: a URL under the toolkit's base URL becomes the same path under
 * the passthrough route; any other is foreign and does not reach the client.
 */
export interface AnswerUrlMapping {
  /** The toolkit's base URL with its placeholders filled: the one upstream place a URL may name. */
  base: string;
  /** The passthrough route of the toolkit, absolute: `{origin}{basePath}/passthrough/{slug}`. */
  route: string;
  /** The upstream URL that answered: a relative reference is resolved against it, as a client would. */
  answeredUrl: URL;
}

/** Headers of an answer that carry a URL a client may follow (those `passedHeaders` lets through). */
const URL_HEADERS = ["location", "content-location"] as const;

/**
 * The passed headers of an upstream answer with each URL made safe to follow: `Location` and
 * `Content-Location` under the base URL point at the route, and are removed otherwise; `Link`
 * keeps only its entries under the base URL (pointed at the route), and is removed when none is
 * left or it cannot be read. `Refresh` is removed whatever it holds. Other headers are unchanged.
 */
export function routeAnswerUrls(headers: Record<string, string>, mapping: AnswerUrlMapping): Record<string, string> {
  const out = { ...headers };
  delete out.refresh;
  for (const name of URL_HEADERS) {
    if (out[name] === undefined) continue;
    const routed = routeUrl(out[name], mapping, { keepRelative: true });
    if (routed === null) delete out[name];
    else out[name] = routed;
  }
  if (out.link !== undefined) {
    const routed = routeLink(out.link, mapping);
    if (routed === null) delete out.link;
    else out.link = routed;
  }
  return out;
}

/**
 * A URL reference (absolute, scheme-relative or relative to `answeredUrl`) as the same path under
 * the route, or null when it is not under the base URL. "Under" is decided by the outbound URL
 * policy on the parsed URL, exactly as for a URL the passthrough is asked to send: scheme, host and
 * port equal to the base URL's, its path under the base path, and no userinfo, backslash, odd host
 * spelling (percent-encoded, IDNA lookalike, numeric IP forms) or encoded separator; so a URL the
 * route gives back is one it would forward. `keepRelative`: a relative reference becomes a
 * path-absolute one on the handler (resolved by the client against the URL it called), an absolute
 * one an absolute URL on the route's origin.
 */
export function routeUrl(reference: string, mapping: AnswerUrlMapping, { keepRelative = false } = {}): string | null {
  let url: URL;
  try {
    url = checkRedirectUrl(reference, mapping.answeredUrl, [mapping.base]);
  } catch {
    return null;
  }
  const basePath = new URL(mapping.base).pathname.replace(/\/+$/, "");
  const rest = url.pathname.slice(basePath.length) + url.search + url.hash;
  const absolute = /^[a-z][a-z0-9+.-]*:/i.test(reference) || reference.startsWith("//");
  return keepRelative && !absolute ? `${new URL(mapping.route).pathname}${rest}` : `${mapping.route}${rest}`;
}

/**
 * A `Link` value with each entry's target routed (always absolute: Octokit prefixes its base URL
 * to a URL that is not), and the entries that are foreign or carry an `anchor` (a second URL)
 * dropped; null when no entry is left or the value is not a list of `<URI>; params` entries.
 */
export function routeLink(value: string, mapping: AnswerUrlMapping): string | null {
  const entries = linkEntries(value);
  if (entries === null) return null;
  const kept: string[] = [];
  for (const { target, params } of entries) {
    if (/(?:^|;)\s*anchor\s*=/i.test(params)) continue;
    const routed = routeUrl(target, mapping);
    if (routed !== null) kept.push(`<${routed}>${params}`);
  }
  return kept.length === 0 ? null : kept.join(", ");
}

/**
 * The entries of a `Link` value (RFC 8288 §3): each a `<URI-Reference>` and the parameters after
 * it, as written (`; rel="next"`). Entries are split at commas outside the brackets and outside
 * quoted strings (a `title="a, b"` holds one); empty list elements are skipped. Null when the
 * value is not of that form: an entry that does not start with `<`, a `<` never closed, a quoted
 * string never closed, or something other than parameters after the target.
 */
export function linkEntries(value: string): Array<{ target: string; params: string }> | null {
  const entries: Array<{ target: string; params: string }> = [];
  let i = 0;
  for (;;) {
    while (i < value.length && /[\s,]/.test(value[i]!)) i++;
    if (i === value.length) return entries;
    if (value[i] !== "<") return null;
    const close = value.indexOf(">", i);
    if (close === -1) return null;
    const target = value.slice(i + 1, close);
    const start = close + 1;
    let quoted = false;
    for (i = start; i < value.length && (quoted || value[i] !== ","); i++) {
      if (quoted && value[i] === "\\") i++;
      else if (value[i] === '"') quoted = !quoted;
    }
    if (quoted) return null;
    const params = value.slice(start, i).trimEnd();
    if (params !== "" && !/^\s*;/.test(params)) return null;
    entries.push({ target, params });
  }
}
