import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREDENTIALS, createHarness, expectError, type Harness } from "../support/harness.js";
import { BINARY_BYTES } from "../support/upstream.js";

let h: Harness;
let key: string;
let up: string;

const proxy = (body: Record<string, unknown>, harness = h, as = key) =>
  harness.call("POST", "/proxy", { key: as, body: { method: "GET", ...body } });
const last = () => h.upstream.requests.at(-1)!;

beforeAll(async () => {
  h = await createHarness();
  up = `${h.upstream.origin}/v1`;
  key = (await h.issueAgentKey("agent-a")).key;
  await h.connect(key, "acme", { apiKey: CREDENTIALS.headerKey });
  await h.connect(key, "acmeq", { apiKey: CREDENTIALS.queryKey });
  await h.connect(key, "notes", { token: CREDENTIALS.bearerToken });
  await h.connect(key, "vault", { username: CREDENTIALS.basicUser, password: CREDENTIALS.basicPassword });
  await h.connect(key, "tenant", { token: CREDENTIALS.bearerToken2 }, { params: { tenant: "acme" } });
  await h.insertConnection({
    agentId: "agent-a",
    toolkit: "mail",
    credential: { type: "oauth2", accessToken: CREDENTIALS.oauthAccessToken },
  });
});
afterAll(async () => {
  h.assertNoLeaks();
  expect(h.foreign.requests).toEqual([]);
  await h.close();
});

describe("credential injection, checked at the upstream", () => {
  it.each([
    ["acme", "x-acme-key", CREDENTIALS.headerKey],
    ["notes", "authorization", `Bearer ${CREDENTIALS.bearerToken}`],
    ["vault", "authorization", `Basic ${Buffer.from(`${CREDENTIALS.basicUser}:${CREDENTIALS.basicPassword}`).toString("base64")}`],
    ["mail", "authorization", `Bearer ${CREDENTIALS.oauthAccessToken}`],
  ])("%s: sets %s", async (toolkit, header, value) => {
    const res = await proxy({ toolkit, url: `${up}/echo` });
    expect(res.json).toMatchObject({ data: { ok: true, method: "GET", path: "/v1/echo" }, error: null, successful: true, status: 200 });
    expect(last().headers[header]).toBe(value);
  });

  it("acmeq: puts the key in the query, replacing any value the caller sent", async () => {
    const res = await proxy({ toolkit: "acmeq", url: `${up}/echo?x=1&api_key=attacker` });
    expect(res.json.successful).toBe(true);
    expect(last().url).toBe(`/v1/echo?x=1&api_key=${CREDENTIALS.queryKey}`);
    expect(last().headers.authorization).toBeUndefined();
  });

  it("the caller cannot override the credential or send cookie, host, proxy-* or hop-by-hop headers", async () => {
    const headers = {
      Authorization: "Bearer attacker",
      "X-Acme-Key": "attacker",
      Cookie: "session=stolen",
      Host: "evil.test",
      "Proxy-Authorization": "Basic attacker",
      Connection: "x-listed",
      "X-Listed": "dropped",
      "Keep-Alive": "timeout=5",
      TE: "trailers",
      Upgrade: "websocket",
      "X-Custom": "kept",
    };
    expect((await proxy({ toolkit: "acme", url: `${up}/echo`, headers })).json.successful).toBe(true);
    const sent = last().headers;
    expect(sent["x-acme-key"]).toBe(CREDENTIALS.headerKey);
    expect(sent.authorization).toBeUndefined();
    expect(sent.host).toBe(`127.0.0.1:${h.upstream.port}`);
    for (const name of ["cookie", "proxy-authorization", "x-listed", "keep-alive", "te", "upgrade"])
      expect(sent[name], name).toBeUndefined();
    expect(sent["x-custom"]).toBe("kept");
    await proxy({ toolkit: "notes", url: `${up}/echo`, headers: { authorization: "Bearer attacker" } });
    expect(last().headers.authorization).toBe(`Bearer ${CREDENTIALS.bearerToken}`);
  });

  it("refuses a header with CR, LF or an invalid name: 400, nothing sent", async () => {
    const before = h.upstream.requests.length;
    expectError(
      await proxy({ toolkit: "acme", url: `${up}/echo`, headers: { "X-Evil": "a\r\nX-Injected: 1" } }),
      400,
      "invalid_request",
      /X-Evil/,
    );
    expectError(await proxy({ toolkit: "acme", url: `${up}/echo`, headers: { "X-Evil": "a\nb" } }), 400, "invalid_request");
    expectError(await proxy({ toolkit: "acme", url: `${up}/echo`, headers: { "Bad Name": "x" } }), 400, "invalid_request");
    expect(h.upstream.requests.length).toBe(before);
  });
});

describe("the URL policy", () => {
  it.each([
    ["another host", () => `http://localhost:${h.upstream.port}/v1/echo`],
    ["another port", () => `${h.foreign.origin}/v1/echo`],
    ["another scheme", () => `https://127.0.0.1:${h.upstream.port}/v1/echo`],
    ["a path prefix trick", () => `${h.upstream.origin}/v1evil`],
    ["a path outside the base", () => `${h.upstream.origin}/admin`],
    ["dot segments", () => `${up}/../admin`],
    ["userinfo", () => `http://user:pw@127.0.0.1:${h.upstream.port}/v1/echo`],
    ["userinfo pointing elsewhere", () => `http://127.0.0.1:${h.upstream.port}@127.0.0.1:${h.foreign.port}/v1/echo`],
    ["a backslash", () => `http://127.0.0.1:${h.foreign.port}\\@127.0.0.1:${h.upstream.port}/v1/echo`],
    ["an encoded slash", () => `${up}/..%2f..%2fadmin`],
    ["an encoded dot", () => `${up}/%2e%2e/admin`],
  ])("refuses %s with 400, sending nothing anywhere", async (_name, url) => {
    const before = h.upstream.requests.length;
    expectError(await proxy({ toolkit: "notes", url: url() }), 400, "invalid_request", /not allowed/);
    expect(h.upstream.requests.length).toBe(before);
    expect(h.foreign.requests).toEqual([]);
  });

  it.each(["/echo", "../admin", "echo"])("refuses the relative URL %s: the proxy takes full URLs only", async (url) => {
    const before = h.upstream.requests.length;
    expectError(await proxy({ toolkit: "notes", url }), 400, "invalid_request", /full URL/);
    expect(h.upstream.requests.length).toBe(before);
  });

  it("fills base URL placeholders from the connection", async () => {
    expect((await proxy({ toolkit: "tenant", url: `${h.upstream.origin}/t/acme/echo` })).json.successful).toBe(true);
    expect(last().headers.authorization).toBe(`Bearer ${CREDENTIALS.bearerToken2}`);
    expectError(await proxy({ toolkit: "tenant", url: `${h.upstream.origin}/t/other/echo` }), 400, "invalid_request", /t\/acme/);
  });

  it("returns a redirect to a foreign origin unfollowed", async () => {
    const to = `${h.foreign.origin}/steal`;
    const res = await proxy({ toolkit: "notes", url: `${up}/redirect?to=${encodeURIComponent(to)}` });
    expect(res.json).toMatchObject({ status: 302, successful: true, data: "redirecting", headers: { location: to } });
    expect(h.foreign.requests).toEqual([]);
  });

  it("returns a redirect outside the base path unfollowed, and follows one within it", async () => {
    const outside = await proxy({ toolkit: "notes", url: `${up}/redirect?to=/admin` });
    expect(outside.json).toMatchObject({ status: 302, headers: { location: "/admin" } });
    expect(h.upstream.requests.some((r) => r.url === "/admin")).toBe(false);
    const before = h.upstream.requests.length;
    const inside = await proxy({ toolkit: "notes", url: `${up}/redirect?to=/v1/echo` });
    expect(inside.json).toMatchObject({ status: 200, successful: true, data: { path: "/v1/echo" } });
    const hops = h.upstream.requests.slice(before);
    expect(hops.map((r) => r.url)).toEqual(["/v1/redirect?to=/v1/echo", "/v1/echo"]);
    expect(hops.map((r) => r.headers.authorization)).toEqual([`Bearer ${CREDENTIALS.bearerToken}`, `Bearer ${CREDENTIALS.bearerToken}`]);
  });
});

describe("the upstream answer", () => {
  it.each([
    [404, false],
    [500, true],
    [503, true],
  ])("%i is successful:false with upstreamStatus and retryable %s", async (status, retryable) => {
    const res = await proxy({ toolkit: "notes", url: `${up}/status/${status}` });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      successful: false,
      code: "upstream_error",
      upstreamStatus: status,
      status,
      retryable,
      data: { error: `status ${status}` },
    });
    expect(res.json.error).toMatch(new RegExp(`^Upstream answered ${status}`));
    expect(res.json.retryAfterMs).toBeUndefined();
  });

  it("parses Retry-After into retryAfterMs", async () => {
    const res = await proxy({ toolkit: "notes", url: `${up}/status/429?retry=7` });
    expect(res.json).toMatchObject({
      successful: false,
      upstreamStatus: 429,
      retryable: true,
      retryAfterMs: 7000,
      headers: { "retry-after": "7" },
    });
  });

  it("answers text as a string, and passes only safe headers back", async () => {
    const text = await proxy({ toolkit: "notes", url: `${up}/text` });
    expect(text.json).toMatchObject({ data: "hello as text", status: 200, headers: { "content-type": "text/plain; charset=utf-8" } });
    const res = await proxy({ toolkit: "notes", url: `${up}/headers` });
    expect(res.json.headers).toMatchObject({
      etag: '"v1"',
      "x-request-id": "req-42",
      "x-ratelimit-remaining": "9",
      "content-type": "application/json",
    });
    for (const name of ["set-cookie", "www-authenticate", "x-internal-debug"]) expect(res.json.headers[name], name).toBeUndefined();
  });

  it("stages a binary answer that GET /files gives back", async () => {
    const res = await proxy({ toolkit: "notes", url: `${up}/binary` });
    expect(res.json).toMatchObject({ successful: true, status: 200, data: { contentType: "image/png", size: BINARY_BYTES.byteLength } });
    const file = await h.call("GET", `/files/${res.json.data.stagingKey}`, { key });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect([...file.bytes]).toEqual([...BINARY_BYTES]);
  });

  it("sends a JSON body for POST, and refuses a body on GET or DELETE", async () => {
    await proxy({ toolkit: "notes", method: "POST", url: `${up}/echo`, body: { hello: "world" } });
    expect(last()).toMatchObject({ method: "POST", body: '{"hello":"world"}' });
    expect(last().headers["content-type"]).toBe("application/json");
    await proxy({ toolkit: "notes", method: "PUT", url: `${up}/echo`, body: "plain words" });
    expect(last()).toMatchObject({ method: "PUT", body: "plain words" });
    expect(last().headers["content-type"]).toBe("text/plain; charset=utf-8");
    const before = h.upstream.requests.length;
    expectError(
      await proxy({ toolkit: "notes", method: "GET", url: `${up}/echo`, body: { a: 1 } }),
      400,
      "invalid_request",
      /GET request cannot carry a body/,
    );
    expectError(await proxy({ toolkit: "notes", method: "DELETE", url: `${up}/echo`, body: "x" }), 400, "invalid_request");
    expect(h.upstream.requests.length).toBe(before);
  });

  it("reports the call to the proxy.requested hook without secrets", async () => {
    await proxy({ toolkit: "acmeq", url: `${up}/echo` });
    expect(h.events.at(-1)).toMatchObject({
      event: "proxy.requested",
      payload: { toolkit: "acmeq", method: "GET", host: `127.0.0.1:${h.upstream.port}`, status: 200 },
    });
  });
});

describe("the request", () => {
  it("refuses an unknown toolkit, a bad method, a toolkit without base URL and a missing connection", async () => {
    expectError(await proxy({ toolkit: "nope", url: `${up}/echo` }), 404, "not_found");
    expectError(await proxy({ toolkit: "notes", method: "TRACE", url: `${up}/echo` }), 400, "invalid_request", /body\.method/);
    expectError(await proxy({ toolkit: "notes" }), 400, "invalid_request", /body\.url/);
    expectError(await proxy({ toolkit: "calc", url: `${up}/echo` }), 400, "invalid_request", /no base URL/);
    const other = (await h.issueAgentKey("agent-b")).key;
    expectError(await proxy({ toolkit: "notes", url: `${up}/echo` }, h, other), 409, "connection_required");
  });

  it("gives up after timeouts.proxyMs with code timeout", async () => {
    const slow = await createHarness({ timeouts: { proxyMs: 150 } });
    const slowKey = (await slow.issueAgentKey("agent-a")).key;
    await slow.connect(slowKey, "notes", { token: CREDENTIALS.bearerToken });
    const res = await proxy({ toolkit: "notes", url: `${slow.upstream.origin}/v1/slow?ms=3000` }, slow, slowKey);
    expect(res.json).toMatchObject({ data: null, successful: false, code: "timeout", retryable: true, status: null });
    slow.assertNoLeaks();
    await slow.close();
  });
});
