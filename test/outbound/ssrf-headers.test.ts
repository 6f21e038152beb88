import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "../support/harness.js";
import { carriesCredential, createSsrfSetup, SSRF_CREDENTIALS, type SsrfSetup, type SsrfToolkit } from "../support/ssrf-servers.js";

// The caller's headers against the real upstream: the credential always arrives exactly as the
// connection holds it, forbidden headers never arrive, and CR/LF is the caller's 400.
let s: SsrfSetup;
const bearer = `Bearer ${SSRF_CREDENTIALS.bearer}`;
const sent = () => s.upstream.requests.at(-1)!;

beforeAll(async () => {
  s = await createSsrfSetup();
});
afterAll(async () => {
  expect(s.foreign.requests).toEqual([]);
  s.h.assertNoLeaks();
  await s.close();
});

const overrides: Array<[string, SsrfToolkit, Record<string, string>]> = [
  ["Authorization", "ssrf-bearer", { Authorization: "Bearer attacker" }],
  ["authorization, lowercase", "ssrf-bearer", { authorization: "Bearer attacker" }],
  ["AUTHORIZATION, uppercase", "ssrf-bearer", { AUTHORIZATION: "Bearer attacker" }],
  ["two spellings at once", "ssrf-bearer", { Authorization: "Bearer a", authorization: "Bearer b" }],
  ["Connection: authorization", "ssrf-bearer", { Connection: "authorization" }],
  ["Connection: close, Authorization", "ssrf-bearer", { Connection: "close, Authorization", "Keep-Alive": "timeout=5" }],
  ["Authorization on basic", "ssrf-basic", { Authorization: "Basic YXR0YWNrZXI6eA==" }],
  ["X-Secret-Key", "ssrf-key", { "X-Secret-Key": "attacker" }],
  ["x-secret-key, lowercase", "ssrf-key", { "x-secret-key": "attacker" }],
  ["X-SECRET-KEY, uppercase", "ssrf-key", { "X-SECRET-KEY": "attacker" }],
  ["Connection: x-secret-key", "ssrf-key", { Connection: "x-secret-key" }],
  ["Connection: X-Secret-Key, te", "ssrf-key", { Connection: "X-Secret-Key, te", TE: "trailers" }],
  ["an empty credential header", "ssrf-key", { "X-Secret-Key": "" }],
];

describe("the caller cannot set, override or remove the credential", () => {
  it.each(overrides)("%s (%s)", async (_name, toolkit, headers) => {
    expect((await s.proxy(toolkit, `${s.base}/echo`, { headers })).json.successful).toBe(true);
    const got = sent().headers;
    if (toolkit === "ssrf-key") {
      expect(got["x-secret-key"]).toBe(SSRF_CREDENTIALS.headerKey);
      expect(got.authorization).toBeUndefined();
    } else if (toolkit === "ssrf-bearer") {
      expect(got.authorization).toBe(bearer);
    } else {
      expect(got.authorization).toBe(`Basic ${Buffer.from(`ssrf-user:${SSRF_CREDENTIALS.basicPassword}`).toString("base64")}`);
    }
    expect(got.connection ?? "keep-alive").toBe("keep-alive");
  });
});

describe("forbidden headers never reach the upstream", () => {
  it.each([
    ["cookie", { Cookie: "session=stolen" }],
    ["host", { Host: "evil.test" }],
    ["proxy-authorization", { "Proxy-Authorization": "Basic YTpi" }],
    ["proxy-connection", { "Proxy-Connection": "keep-alive" }],
    ["proxy-anything", { "Proxy-Foo": "bar" }],
    ["te", { TE: "trailers" }],
    ["upgrade", { Upgrade: "websocket", Connection: "upgrade" }],
    ["transfer-encoding", { "Transfer-Encoding": "chunked" }],
    ["keep-alive", { "Keep-Alive": "timeout=5" }],
    ["trailer", { Trailer: "x-foo" }],
    ["http2-settings", { "HTTP2-Settings": "AAMAAABkAAQAAP__" }],
    ["expect", { Expect: "100-continue" }],
    ["a header the caller's Connection names", { Connection: "x-listed", "X-Listed": "dropped" }],
  ])("%s", async (name, headers) => {
    expect((await s.proxy("ssrf-bearer", `${s.base}/echo`, { headers: { ...headers, "X-Kept": "yes" } })).json.successful).toBe(true);
    const got = sent().headers;
    for (const header of Object.keys(headers))
      if (header.toLowerCase() !== "host" && header.toLowerCase() !== "connection")
        expect(got[header.toLowerCase()], header).toBeUndefined();
    expect(got.host).toBe(`127.0.0.1:${s.upstream.port}`);
    expect(got.cookie).toBeUndefined();
    expect(got["transfer-encoding"]).toBeUndefined();
    expect(got["x-kept"]).toBe("yes");
    expect(got.authorization, name).toBe(bearer);
  });
});

describe("CR, LF, NUL and control characters are the caller's 400, and nothing is sent", () => {
  it.each([
    ["CR/LF in a value", { "X-Evil": "a\r\nX-Injected: 1" }],
    ["LF in a value", { "X-Evil": "a\nX-Injected: 1" }],
    ["CR in a value", { "X-Evil": "a\rb" }],
    ["NUL in a value", { "X-Evil": "a\u0000b" }],
    ["another control character in a value", { "X-Evil": "a\u0001b" }],
    ["CR/LF in a name", { "X-Evil\r\nX-Injected": "1" }],
    ["a space in a name", { "Bad Name": "x" }],
    ["a colon in a name", { "X-Evil:": "x" }],
    ["non-ASCII in a name", { "X-Ünïcode": "x" }],
    ["an empty name", { "": "x" }],
    ["CR/LF in a header that would be dropped", { Cookie: "a\r\nX-Injected: 1" }],
    ["CR/LF in the credential header", { Authorization: "Bearer x\r\nX-Injected: 1" }],
    ["a value beyond Latin-1", { "X-Evil": "\u2028" }],
  ])("%s", async (_name, headers) => {
    const before = s.upstream.requests.length;
    expectError(await s.proxy("ssrf-bearer", `${s.base}/echo`, { headers }), 400, "invalid_request", /[Hh]eader/);
    expect(s.upstream.requests.length).toBe(before);
  });

  it("the same through a tool's ctx.fetch: the result is invalid_request", async () => {
    const before = s.upstream.requests.length;
    const res = await s.execute("ssrf-key", "/echo", { "X-Evil": "a\r\nX-Injected: 1" });
    expect(res.json).toMatchObject({ successful: false, code: "invalid_request" });
    expect(s.upstream.requests.length).toBe(before);
  });

  it("a tool's ctx.fetch cannot override the credential either", async () => {
    const res = await s.execute("ssrf-key", "/echo", { "x-secret-key": "attacker", Connection: "X-Secret-Key" });
    expect(res.json.successful).toBe(true);
    expect(sent().headers["x-secret-key"]).toBe(SSRF_CREDENTIALS.headerKey);
  });
});

describe("query API key: the caller's value is replaced, never duplicated", () => {
  it.each([
    ["api_key=attacker", "api_key=attacker&x=1"],
    ["two values", "api_key=a&x=1&api_key=b"],
    ["an encoded name", "api%5Fkey=attacker&x=1"],
    ["an empty value", "x=1&api_key="],
    ["no query", ""],
  ])("%s", async (_name, query) => {
    expect((await s.proxy("ssrf-query", `${s.base}/echo${query ? `?${query}` : ""}`)).json.successful).toBe(true);
    const params = new URL(sent().url, "http://upstream.invalid").searchParams;
    expect(params.getAll("api_key")).toEqual([SSRF_CREDENTIALS.queryKey]);
    if (query) expect(params.get("x")).toBe("1");
    expect(carriesCredential(sent())).toBe(true);
  });
});
