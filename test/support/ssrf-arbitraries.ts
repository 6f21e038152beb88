import fc from "fast-check";
import { LOOPBACK_SPELLINGS } from "./ssrf-forms.js";

/**
 * Generators of URLs and headers "around" a toolkit's base URL, and an oracle written
 * independently of src/outbound/url-policy.ts, for the property tests and scripts/fuzz-url-policy.ts.
 */

/** A toolkit's base URL and the pools URLs are built from. */
export interface World {
  name: string;
  /** As the toolkit declares them (with `{placeholders}`). */
  baseUrls: string[];
  params: Record<string, string>;
  /** The only `scheme://host[:port]` an allowed URL may start with (ASCII case aside). */
  authority: RegExp;
  /** The filled base URL's origin and path (without a trailing slash). */
  origin: string;
  prefix: string;
  hosts: string[];
  ports: string[];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function world(name: string, baseUrl: string, filled: string, params: Record<string, string>, hosts: string[], ports: string[]): World {
  const url = new URL(filled);
  const port = url.port ? `:${url.port}` : `(?::${url.protocol === "https:" ? 443 : 80})?`;
  return {
    name,
    baseUrls: [baseUrl],
    params,
    // No `u` flag: then `i` never folds a non-ASCII letter (the Kelvin sign, the long s) to ASCII.
    authority: new RegExp(`^${escapeRegExp(url.protocol)}//${escapeRegExp(url.hostname)}${port}(?=[/?#]|$)`, "i"),
    origin: url.origin,
    prefix: url.pathname.replace(/\/$/, ""),
    hosts,
    ports,
  };
}

/** `http://127.0.0.1:U/v1`, with the foreign server on port F and every loopback spelling. */
export function loopbackWorld(U: number, F: number): World {
  const ports = [`:${U}`, `:${U}`, `:${U}`, `:${F}`, "", ":", ":0", `:0${U}`, ":65536", `:${U + 65536}`, ":80"];
  return world(
    "loopback",
    `http://127.0.0.1:${U}/v1`,
    `http://127.0.0.1:${U}/v1`,
    {},
    ["127.0.0.1", ...LOOPBACK_SPELLINGS, "127.0.0.2", "evil.test"],
    ports,
  );
}

const NAMED_HOSTS = [
  "api.example.test",
  "API.EXAMPLE.TEST",
  "Api.Example.Test",
  "api.example.test.",
  "api.example.test.evil.test",
  "evil.test",
  "api.example.test%2eevil.test",
  "api%2eexample.test",
  "%61pi.example.test",
  "ａｐｉ.example.test",
  "api。example.test",
  "аpi.example.test",
  "xn--pi-7kc.example.test",
  "api.example.tes\u0074",
  "api.exampl\u212a.test",
  "api.example.test\u00ad",
  "api.example.test\u200b",
  "[::1]",
  "127.0.0.1",
  "example.test",
  "api-example.test",
];
const NAMED_PORTS = ["", "", "", ":443", ":0443", ":8443", ":80", ":", ":0"];

/** The worlds the pure properties run in: an IP base, a named base, a root base, a tenant placeholder. */
export const WORLDS: World[] = [
  loopbackWorld(8080, 9090),
  world("named", "https://api.example.test/v1", "https://api.example.test/v1", {}, NAMED_HOSTS, NAMED_PORTS),
  world("root", "https://api.example.test", "https://api.example.test/", {}, NAMED_HOSTS, NAMED_PORTS),
  world(
    "tenant",
    "https://{tenant}.example.test/v1",
    "https://acme.example.test/v1",
    { tenant: "acme" },
    [
      "acme.example.test",
      "ACME.example.test",
      "evil.example.test",
      "acme.example.test.evil.test",
      "acme-example.test",
      "example.test",
      "acme.example.test.",
      "acme%2eexample.test",
      "ａｃｍｅ.example.test",
    ],
    NAMED_PORTS,
  ),
];

/** Path segments that servers, proxies and URL parsers disagree about, and some plain ones. */
const SEGMENTS = [
  "echo",
  "items",
  "v1",
  "v2",
  "admin",
  "..",
  ".",
  "...",
  "..;",
  "..;x",
  ".;",
  "%2e",
  "%2e%2e",
  ".%2e",
  "%2E.",
  "%2f",
  "%2F",
  "..%2f",
  "%5c",
  "..%5c",
  "\\",
  "..\\",
  "%00",
  "%252e%252e",
  "%252f",
  "%%32%65%%32%65",
  "%%32%66",
  "%u002e%u002e",
  "%u2215",
  "%c0%ae%c0%ae",
  "%c0%af",
  "%e0%80%ae",
  "%C1%9C",
  "..%20",
  "..%09",
  ".. ",
  "..%0b",
  "..%C2%A0",
  "..%3b",
  "..%3B",
  "．．",
  "／",
  "%EF%BC%8E%EF%BC%8E",
  "%EF%BC%8F",
  "∕",
  "..∕",
  "⁄",
  "é",
  "日本",
  "ß",
  "a;b=c",
  "",
  "%25",
  "x%",
  "@",
  ":",
  "~",
  "a b",
  "%E2%80%8B..",
  "%ff",
  "a?b",
  "a#b",
  "%3f",
  "%23",
];

const SCHEMES = [
  "http",
  "https",
  "HTTP",
  "hTTps",
  "ftp",
  "ws",
  "wss",
  "file",
  "javascript",
  "data",
  "gopher",
  "blob:http",
  "ht\ttp",
  "http ",
];
const AFTER_SCHEME = [":", ":/", ":///", ":\\\\", "://\\", ":/\\", ":\\/"];
const SUFFIXES = ["?q=1", "?@evil.test", "#frag", "#@evil.test", "?a=..%2f", "?api_key=x", "?x=%0d%0a", "#/../admin"];
const NOISE = [
  "\t",
  "\n",
  "\r",
  "\u0000",
  " ",
  "\\",
  "@",
  "#",
  "?",
  "/",
  ".",
  "%",
  "．",
  "／",
  "\u00a0",
  "\u3002",
  ":",
  "[",
  "]",
  "%2f",
  "%2e",
];

/** `common` six times in seven, else one of `others`: most URLs differ from an allowed one in one or two places. */
const weighted = <T>(common: T, others: T[]) =>
  fc.oneof({ weight: 6, arbitrary: fc.constant(common) }, { weight: 1, arbitrary: fc.constantFrom(...others) });

/** A URL near the world's base URL: mostly plausible, often subtly wrong, sometimes random. */
export function urlAround(w: World): fc.Arbitrary<string> {
  const canonical = new URL(w.origin);
  const segment = fc.oneof(
    { weight: 12, arbitrary: fc.stringMatching(/^[a-z0-9]{1,6}$/) },
    { weight: 4, arbitrary: fc.constantFrom(...SEGMENTS) },
    { weight: 1, arbitrary: fc.string({ maxLength: 6, unit: "binary" }) },
  );
  const built = fc
    .record({
      scheme: weighted(canonical.protocol.slice(0, -1), SCHEMES),
      after: weighted("://", AFTER_SCHEME),
      userinfo: weighted("", ["user@", "user:pw@", "@", ":@", `${canonical.host}@`, "%40@", "a%2f@", "a\\@"]),
      host: weighted(canonical.hostname, w.hosts),
      port: weighted(canonical.port ? `:${canonical.port}` : "", w.ports),
      base: weighted(w.prefix, [
        "",
        "/",
        `${w.prefix}evil`,
        w.prefix.toUpperCase(),
        "/v2",
        `${w.prefix};x`,
        `${w.prefix}%2f`,
        `${w.prefix}/`,
      ]),
      segments: fc.array(segment, { maxLength: 5 }),
      suffix: weighted("", SUFFIXES),
      noise: fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.tuple(fc.nat(), fc.constantFrom(...NOISE)) }),
    })
    .map(({ scheme, after, userinfo, host, port, base, segments, suffix, noise }) => {
      const url = `${scheme}${after}${userinfo}${host}${port}${base}${segments.map((s) => `/${s}`).join("")}${suffix}`;
      if (!noise) return url;
      const at = noise[0] % (url.length + 1);
      return url.slice(0, at) + noise[1] + url.slice(at);
    });
  return fc.oneof(
    { weight: 12, arbitrary: built },
    { weight: 1, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  );
}

/** A URL under the base written plainly: the policy must accept it, unchanged. */
export function plainUrlUnder(w: World): fc.Arbitrary<string> {
  const canonical = new URL(w.origin);
  const segment = fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9_~-]{1,10}$/),
    fc.constantFrom("é", "日本", "ß", "a;b=c", "a b", "x.json", "a..b", "100%25"),
  );
  const hostCase = fc.array(fc.boolean(), { minLength: canonical.hostname.length, maxLength: canonical.hostname.length });
  return fc
    .tuple(
      hostCase,
      fc.boolean(),
      fc.array(segment, { maxLength: 4 }),
      fc.option(fc.stringMatching(/^[A-Za-z0-9=&_.~%-]{0,20}$/)),
      fc.boolean(),
    )
    .map(([upper, explicitPort, segments, query, climbBack]) => {
      const host = [...canonical.hostname].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join("");
      const port = canonical.port ? `:${canonical.port}` : explicitPort ? `:${canonical.protocol === "https:" ? 443 : 80}` : "";
      const path = `${w.prefix}/${climbBack ? "tmp/../" : ""}${segments.join("/")}`;
      return `${canonical.protocol}//${host}${port}${path}${query === null ? "" : `?${query}`}`;
    });
}

/**
 * The oracle: may a credential go to `raw`? Only when it is written as the base's own
 * `scheme://host[:port]` with nothing odd in it (no whitespace at either end, which the URL parser
 * would drop and POST /proxy refuses), and every way a server could read its path
 * (decoding it up to three times, %u and overlong UTF-8 included; mapping Unicode compatibility
 * and best-fit characters to ASCII; treating `\` as `/`, dropping `;params` and whitespace around
 * segments, taking any all-dots segment for `..`) stays under the base path.
 */
export function oracleAllows(raw: string, w: World): boolean {
  if (/[\\\u0000-\u001f\u007f]/.test(raw) || raw !== raw.trim() || !w.authority.test(raw)) return false;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.origin !== w.origin || url.username !== "" || url.password !== "") return false;
  return serverReadings(url.pathname).every((path) => staysUnder(path, w.prefix));
}

function serverReadings(pathname: string): string[] {
  const readings: string[] = [];
  let path = pathname;
  for (let i = 0; i < 4; i++) {
    readings.push(path, path.normalize("NFKC"), path.replace(/[\u2215\u2044\u29f8]/g, "/").replace(/[\u2216\u29f5\u29f9]/g, "\\"));
    path = lenientDecode(path);
  }
  return readings;
}

function staysUnder(path: string, prefix: string): boolean {
  const stack: string[] = [];
  for (const part of path.replace(/\\/g, "/").split("/")) {
    const segment = part.split(";")[0]!.trim();
    if (segment === "" || segment === ".") continue;
    if (/^\.+$/.test(segment)) {
      if (stack.pop() === undefined) return false;
    } else stack.push(part);
  }
  const want = prefix.split("/").filter(Boolean);
  return want.every((segment, i) => stack[i] === segment);
}

/** Decodes %XX (as UTF-8 without the overlong check) and %uXXXX, leaving anything else alone. */
function lenientDecode(text: string): string {
  return text
    .replace(/%u([0-9a-f]{4})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
      const bytes = run
        .slice(1)
        .split("%")
        .map((hex) => parseInt(hex, 16));
      let out = "";
      for (let i = 0; i < bytes.length; ) {
        const lead = bytes[i]!;
        const extra = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
        let code = extra ? lead & (0x3f >> extra) : lead;
        for (let k = 1; k <= extra && i + k < bytes.length; k++) code = (code << 6) | (bytes[i + k]! & 0x3f);
        out += String.fromCodePoint(Math.min(code, 0x10ffff));
        i += extra + 1;
      }
      return out;
    });
}

const HEADER_NAMES = [
  "Authorization",
  "authorization",
  "AUTHORIZATION",
  "X-Secret-Key",
  "x-secret-key",
  "X-SECRET-KEY",
  "api_key",
  "Connection",
  "connection",
  "Cookie",
  "Host",
  "Proxy-Authorization",
  "Proxy-Connection",
  "proxy-x",
  "TE",
  "Upgrade",
  "Transfer-Encoding",
  "Keep-Alive",
  "Trailer",
  "HTTP2-Settings",
  "Expect",
  "Content-Length",
  "X-Custom",
  "x-custom",
  "Accept",
  "Content-Type",
  "X-Listed",
  "Bad Name",
  "X-Evil\r\n",
  "X-Ünï",
  "",
];
const HEADER_VALUES = [
  "attacker",
  "Bearer attacker",
  "authorization",
  "x-secret-key",
  "close, authorization",
  "X-Secret-Key, te",
  "x-listed, X-Custom",
  "a\r\nX-Injected: 1",
  "a\nb",
  "a\rb",
  "a\u0000b",
  "a\u0001b",
  "\u2028",
  "",
  " padded ",
  "é",
  "\t",
];

/** Caller headers mixing credential overrides, forbidden and hop-by-hop names, and injections. */
export const headersAround: fc.Arbitrary<Record<string, string>> = fc
  .array(
    fc.tuple(
      fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...HEADER_NAMES) },
        { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9-]{1,12}$/) },
      ),
      fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...HEADER_VALUES) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }),
    ),
    { maxLength: 8 },
  )
  .map((entries) => Object.fromEntries(entries));
