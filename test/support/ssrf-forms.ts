/**
 * Known SSRF bypass forms (OWASP's SSRF cheat sheet, Orange Tsai's "A New Era of SSRF", the
 * axios, undici, follow-redirects and ssrf-req-filter advisories), written against a toolkit whose
 * base URL is `http://127.0.0.1:U/v1`, with a foreign server on port F of the same loopback.
 */

/**
 * Spellings of the loopback address other than `127.0.0.1`. Each of them really reaches a server
 * listening on `::` (the SSRF tests check that first), so a policy that let one through would
 * be seen at the foreign server.
 */
export const LOOPBACK_SPELLINGS = [
  "localhost",
  "LOCALHOST",
  "ⓛocalhost",
  "[::1]",
  "[0:0:0:0:0:0:0:1]",
  "[::ffff:127.0.0.1]",
  "[::ffff:7f00:1]",
  "[0:0:0:0:0:ffff:7f00:1]",
  "2130706433",
  "017700000001",
  "0177.0.0.1",
  "0x7f.0.0.1",
  "0x7f000001",
  "0x7f.1",
  "127.1",
  "127.0.1",
  "127.000.000.001",
  "127.0.0.1.",
  "0.0.0.0",
  "0",
  "%31%32%37.0.0.1",
  "１２７．０．０．１",
  "127。0。0。1",
];

export interface BypassForm {
  name: string;
  url: (U: number, F: number) => string;
}

const form = (name: string, url: (U: number, F: number) => string): BypassForm => ({ name, url });

/** Direct URLs: each must be refused with a 400 before anything is sent anywhere. */
export const BYPASS_FORMS: BypassForm[] = [
  form("the foreign origin", (_, F) => `http://127.0.0.1:${F}/v1/echo`),
  form("the base path on another port", (_, F) => `http://127.0.0.1:${F}/v1`),
  ...LOOPBACK_SPELLINGS.map((host) => form(`foreign server as ${host}`, (_, F) => `http://${host}:${F}/v1/echo`)),
  ...LOOPBACK_SPELLINGS.map((host) => form(`allowed server respelled as ${host}`, (U) => `http://${host}:${U}/v1/echo`)),
  // userinfo
  form("allowed origin as the username of a foreign URL", (U, F) => `http://127.0.0.1:${U}@127.0.0.1:${F}/v1/echo`),
  form("allowed origin with an encoded slash in the username", (U, F) => `http://127.0.0.1:${U}%2f@127.0.0.1:${F}/v1/echo`),
  form("allowed origin with an encoded @", (U, F) => `http://127.0.0.1:${U}%40127.0.0.1:${F}/v1/echo`),
  form("username and password", (U) => `http://user:pw@127.0.0.1:${U}/v1/echo`),
  form("empty userinfo", (U) => `http://@127.0.0.1:${U}/v1/echo`),
  // fragments, queries, backslashes
  form("#@ trick", (U, F) => `http://127.0.0.1:${F}#@127.0.0.1:${U}/v1/echo`),
  form("?@ trick", (U, F) => `http://127.0.0.1:${F}?@127.0.0.1:${U}/v1/echo`),
  form("allowed URL in the fragment", (U, F) => `http://127.0.0.1:${F}/v1/echo#http://127.0.0.1:${U}/v1/echo`),
  form("backslash before @", (U, F) => `http://127.0.0.1:${F}\\@127.0.0.1:${U}/v1/echo`),
  form("backslashes as slashes", (_, F) => `http:\\\\127.0.0.1:${F}\\v1\\echo`),
  form("backslash dot segments", (U) => `http://127.0.0.1:${U}/v1\\..\\..\\admin`),
  // control characters the parser strips or that split requests
  form("tab after the host", (_, F) => `http://127.0.0.1:${F}\t/v1/echo`),
  form("tab inside the scheme", (_, F) => `ht\ttp://127.0.0.1:${F}/v1/echo`),
  form("newline inside the host", (_, F) => `http://127.0.0.1:${F}\n/v1/echo`),
  form("CR/LF request splitting", (U, F) => `http://127.0.0.1:${U}/v1/echo HTTP/1.1\r\nHost: 127.0.0.1:${F}\r\n\r\nGET /`),
  form("leading NUL", (_, F) => `\u0000http://127.0.0.1:${F}/v1/echo`),
  // schemes and slashes
  form("scheme-relative", (_, F) => `//127.0.0.1:${F}/v1/echo`),
  form("http: without slashes", (_, F) => `http:127.0.0.1:${F}/v1/echo`),
  form("http: with one slash", (_, F) => `http:/127.0.0.1:${F}/v1/echo`),
  form("http: with three slashes", (_, F) => `http:///127.0.0.1:${F}/v1/echo`),
  form("https instead of http", (U) => `https://127.0.0.1:${U}/v1/echo`),
  form("ws:", (U) => `ws://127.0.0.1:${U}/v1/echo`),
  form("ftp:", (_, F) => `ftp://127.0.0.1:${F}/v1/echo`),
  form("gopher:", (_, F) => `gopher://127.0.0.1:${F}/_GET%20/v1/echo`),
  form("file:", () => "file:///etc/passwd"),
  form("data:", () => "data:text/plain,hello"),
  form("javascript:", (U, F) => `javascript:fetch('http://127.0.0.1:${F}')//http://127.0.0.1:${U}/v1`),
  form("blob:", (U) => `blob:http://127.0.0.1:${U}/v1/echo`),
  // ports
  form("port 0", () => "http://127.0.0.1:0/v1/echo"),
  form("port 65536", () => "http://127.0.0.1:65536/v1/echo"),
  form("port overflowing to the foreign port", (_, F) => `http://127.0.0.1:${F + 65536}/v1/echo`),
  form("zero-padded port", (U) => `http://127.0.0.1:0${U}/v1/echo`),
  form("two ports", (U, F) => `http://127.0.0.1:${U}:${F}/v1/echo`),
  form("empty port (the default, 80)", () => "http://127.0.0.1:/v1/echo"),
  // the base path
  form("prefix without a segment boundary", (U) => `http://127.0.0.1:${U}/v1evil`),
  form("a path outside the base", (U) => `http://127.0.0.1:${U}/admin`),
  form("another case", (U) => `http://127.0.0.1:${U}/V1/echo`),
  form("dot segments", (U) => `http://127.0.0.1:${U}/v1/../admin`),
  form("dot segments into a sibling", (U) => `http://127.0.0.1:${U}/v1/../v2`),
  form("encoded dot segments", (U) => `http://127.0.0.1:${U}/v1/%2e%2e/admin`),
  form("half-encoded dot segments", (U) => `http://127.0.0.1:${U}/v1/.%2E/admin`),
  form("encoded slash", (U) => `http://127.0.0.1:${U}/v1/..%2fadmin`),
  form("encoded slash right after the base", (U) => `http://127.0.0.1:${U}/v1%2f..%2fadmin`),
  form("encoded backslash", (U) => `http://127.0.0.1:${U}/v1/..%5cadmin`),
  form("encoded NUL", (U) => `http://127.0.0.1:${U}/v1/%00/echo`),
  form("double-encoded dots", (U) => `http://127.0.0.1:${U}/v1/%252e%252e/admin`),
  form("double-encoded slash", (U) => `http://127.0.0.1:${U}/v1/..%252fadmin`),
  form("nested encoding %%32%66", (U) => `http://127.0.0.1:${U}/v1/..%%32%66admin`),
  form("..; path parameter (Tomcat)", (U) => `http://127.0.0.1:${U}/v1/..;/admin`),
  form("; before dot segments", (U) => `http://127.0.0.1:${U}/v1;/../admin`),
  form("three dots", (U) => `http://127.0.0.1:${U}/v1/.../admin`),
  form("dots and an encoded space", (U) => `http://127.0.0.1:${U}/v1/..%20/admin`),
  form("fullwidth dots and slash", (U) => `http://127.0.0.1:${U}/v1/．．／admin`),
  form("encoded fullwidth dots and slash", (U) => `http://127.0.0.1:${U}/v1/%EF%BC%8E%EF%BC%8E%EF%BC%8Fadmin`),
  form("division slash (best fit)", (U) => `http://127.0.0.1:${U}/v1/..∕admin`),
  form("a URL longer than 8 KiB", (U) => `http://127.0.0.1:${U}/v1/${"a".repeat(9000)}`),
];

/** Redirect targets the upstream answers with: none may be followed. */
export const REDIRECT_TARGETS: BypassForm[] = [
  form("the foreign origin", (_, F) => `http://127.0.0.1:${F}/v1/echo`),
  form("localhost", (_, F) => `http://localhost:${F}/v1/echo`),
  form("[::1]", (_, F) => `http://[::1]:${F}/v1/echo`),
  form("[::ffff:7f00:1]", (_, F) => `http://[::ffff:7f00:1]:${F}/v1/echo`),
  form("0x7f.1", (_, F) => `http://0x7f.1:${F}/v1/echo`),
  form("2130706433", (_, F) => `http://2130706433:${F}/v1/echo`),
  form("scheme-relative", (_, F) => `//127.0.0.1:${F}/v1/echo`),
  form("slash-backslash", (_, F) => `/\\127.0.0.1:${F}/v1/echo`),
  form("backslashes", (_, F) => `\\\\127.0.0.1:${F}\\v1\\echo`),
  form("userinfo", (U, F) => `http://127.0.0.1:${U}@127.0.0.1:${F}/v1/echo`),
  // Relative to an http: base, `http:\\\\host` is an authority (and `http:host` merely a path).
  form("http: with backslashes", (_, F) => `http:\\\\127.0.0.1:${F}/v1/echo`),
  form("http: with one slash", (_, F) => `http:/127.0.0.1:${F}/v1/echo`),
  form("https", (U) => `https://127.0.0.1:${U}/v1/echo`),
  form("outside the base path", () => "/admin"),
  form("encoded slash", () => "/v1/..%2fadmin"),
];
