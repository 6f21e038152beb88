/**
 * Puts an imported tool under the catalog provider's base URLs: the document's server (or the
 * mapping's `server`, where the document names a placeholder host or another address of the same
 * API) followed by the tool's path must begin with one of the provider's base URLs; the rest is
 * the tool's new path. Placeholders match placeholders whatever their names (`{dc}` and
 * `{server}`), hosts match without regard to case or scheme.
 */

/** The segments of a URL template: host (or origin placeholder) first, then the path's. */
function segments(url: string): string[] {
  return url
    .replace(/^(https?:)?\/\//i, "")
    .split("/")
    .filter((segment, index) => index === 0 || segment !== "");
}

const PLACEHOLDER = /^\{[^}]+\}$/;

function sameSegment(a: string, b: string, host: boolean): boolean {
  if (PLACEHOLDER.test(a) && PLACEHOLDER.test(b)) return true;
  return host ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/**
 * Where the operation at `server` + `path` goes under `baseUrls`: the index of the base URL and
 * the path below it, or undefined when it is under none of them.
 */
export function rebase(server: string, path: string, baseUrls: readonly string[]): { base: number; path: string } | undefined {
  const start = segments(server);
  const rest = path.split("/").slice(1);
  const whole = [...start, ...rest];
  let best: { base: number; path: string; length: number } | undefined;
  baseUrls.forEach((baseUrl, base) => {
    const prefix = segments(baseUrl);
    if (prefix.length > whole.length) return;
    if (!prefix.every((segment, index) => sameSegment(segment, whole[index]!, index === 0))) return;
    const below = prefix.length <= start.length ? [...start.slice(prefix.length), ...rest] : rest.slice(prefix.length - start.length);
    // The longest base URL that holds the operation is the one it belongs to (an upload host beside the API's).
    if (!best || prefix.length > best.length) best = { base, path: `/${below.join("/")}`, length: prefix.length };
  });
  return best && { base: best.base, path: best.path };
}
