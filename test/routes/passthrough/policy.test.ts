import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineToolkit } from "../../../src/index.js";
import { BASE, type CallOptions, CREDENTIALS, createHarness, expectError, type Harness } from "../../support/harness.js";

let h: Harness;
let key: string;

/** A request to `{basePath}/passthrough/{rest}`, with the agent's key in `x-api-key` unless said otherwise. */
const pass = (method: string, rest: string, opts: CallOptions = {}) => h.call(method, `/passthrough/${rest}`, { key, ...opts });
const last = () => h.upstream.requests.at(-1)!;
const sentCount = () => h.upstream.requests.length + h.foreign.requests.length;

beforeAll(async () => {
  h = await createHarness({
    timeouts: { proxyMs: 5_000 },
    extraToolkits: ({ upstream }) => [
      defineToolkit({
        slug: "open",
        name: "Open",
        description: "The test API without a credential: the passthrough needs no connection.",
        baseUrl: `${upstream}/v1`,
        auth: { type: "none" },
        tools: [],
      }),
      defineToolkit({
        slug: "closed",
        name: "Closed",
        description: "An API on a port nothing listens on.",
        baseUrl: "http://127.0.0.1:9/v1",
        auth: { type: "bearer" },
        tools: [],
      }),
    ],
  });
  key = (await h.issueAgentKey("agent-a")).key;
  await h.connect(key, "acme", { apiKey: CREDENTIALS.headerKey });
  await h.connect(key, "acmeq", { apiKey: CREDENTIALS.queryKey });
  await h.connect(key, "notes", { token: CREDENTIALS.bearerToken });
  await h.connect(key, "closed", { token: CREDENTIALS.bearerToken2 });
  await h.connect(key, "tenant", { token: CREDENTIALS.bearerToken2 }, { params: { tenant: "acme" } });
});
afterAll(async () => {
  h.assertNoLeaks();
  expect(h.foreign.requests).toEqual([]);
  await h.close();
});

describe("forwarding", () => {
  it("sends the method, the path under the base URL and the query, with the credential, and answers the upstream's JSON", async () => {
    const res = await pass("GET", "notes/echo?x=1&y=a%20b", { headers: { "x-custom": "kept", accept: "application/json" } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true, method: "GET", path: "/v1/echo" });
    expect(last().url).toBe("/v1/echo?x=1&y=a%20b");
    expect(last().headers.authorization).toBe(`Bearer ${CREDENTIALS.bearerToken}`);
    expect(last().headers["x-custom"]).toBe("kept");
  });

  it("never forwards this server's API key, agent id or connection choice", async () => {
    const id = (await h.call("GET", "/connections?toolkit=acme", { key })).json.connections[0].id as string;
    await pass("GET", "acme/echo", { headers: { "x-connection-id": id, "x-agent-id": "agent-a" } });
    const sent = last().headers;
    expect(sent["x-acme-key"]).toBe(CREDENTIALS.headerKey);
    for (const name of ["x-api-key", "x-agent-id", "x-connection-id", "authorization"]) expect(sent[name], name).toBeUndefined();
    expect(JSON.stringify(sent)).not.toContain(key);
  });

  it("asks for the answer unencoded, whatever the caller accepts: it is passed on as it comes", async () => {
    await pass("GET", "notes/echo", { headers: { "accept-encoding": "gzip, br" } });
    expect(last().headers["accept-encoding"]).toBe("identity");
  });

  it.each([
    ["Bearer", true],
    ["token", false],
  ])("takes the API key from Authorization: %s <key> (as SDKs send their token) and replaces it with the credential", async (scheme) => {
    const res = await pass("GET", "notes/echo", { key: undefined, headers: { authorization: `${scheme} ${key}` } });
    expect(res.status, res.text).toBe(200);
    expect(last().headers.authorization).toBe(`Bearer ${CREDENTIALS.bearerToken}`);
  });

  it("sends a body unchanged with its type, and answers the upstream's status", async () => {
    const res = await pass("POST", "notes/items", { rawBody: '{"name":"a \\u00e9 b"}', headers: { "content-type": "application/json" } });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ created: { name: "a é b" } });
    expect(last().body).toBe('{"name":"a \\u00e9 b"}');
    expect(last().headers["content-type"]).toBe("application/json");
  });

  it.each(["PUT", "PATCH", "DELETE", "HEAD"])("forwards %s", async (method) => {
    const res = await pass(method, "notes/echo");
    expect(res.status).toBe(200);
    expect(last().method).toBe(method);
    if (method !== "HEAD") expect(res.json.method).toBe(method);
  });

  it("passes an error status and its body through, with Retry-After", async () => {
    const res = await pass("GET", "notes/status/429?retry=7");
    expect(res.status).toBe(429);
    expect(res.json).toEqual({ error: "status 429" });
    expect(res.headers.get("retry-after")).toBe("7");
  });

  it("does not add the base URL's path twice when the caller's path starts with it (SDKs that append /v1 themselves)", async () => {
    await pass("GET", "notes/v1/echo");
    expect(last().url).toBe("/v1/echo");
    await pass("GET", "notes/v1x/echo");
    expect(last().url).toBe("/v1/v1x/echo");
  });

  it("fills the base URL's placeholders from the connection", async () => {
    const res = await pass("GET", "tenant/echo");
    expect(res.json).toEqual({ ok: true, method: "GET", path: "/t/acme/echo" });
  });

  it("filters the upstream's headers as POST /proxy does: no cookies, challenges or internal headers", async () => {
    const res = await pass("GET", "notes/headers");
    expect(res.headers.get("etag")).toBe('"v1"');
    expect(res.headers.get("x-request-id")).toBe("req-42");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("9");
    for (const name of ["set-cookie", "www-authenticate", "x-internal-debug"]) expect(res.headers.get(name), name).toBeNull();
  });

  it("reports the call to the proxy.requested hook", async () => {
    await pass("DELETE", "notes/echo");
    expect(h.events.at(-1)).toMatchObject({
      event: "proxy.requested",
      payload: { toolkit: "notes", method: "DELETE", host: new URL(h.upstream.origin).host, status: 200 },
    });
  });
});

describe("header policy", () => {
  it("drops what the caller may not send: its own credential header, cookies, host, proxy-* and hop-by-hop headers", async () => {
    const res = await pass("GET", "acme/echo", {
      headers: {
        "X-Acme-Key": "attacker",
        Cookie: "session=stolen",
        "Proxy-Authorization": "Basic attacker",
        Connection: "x-listed",
        "X-Listed": "dropped",
        "X-Custom": "kept",
      },
    });
    expect(res.status).toBe(200);
    const sent = last().headers;
    expect(sent["x-acme-key"]).toBe(CREDENTIALS.headerKey);
    expect(sent.host).toBe(`127.0.0.1:${h.upstream.port}`);
    for (const name of ["cookie", "proxy-authorization", "x-listed"]) expect(sent[name], name).toBeUndefined();
    expect(sent["x-custom"]).toBe("kept");
  });
});

describe("URL and redirect policy", () => {
  it.each([
    ["an encoded slash", "notes/a%2f..%2fsecret"],
    ["an encoded slash after dots", "notes/..%2fadmin"],
    ["a double-encoded slash", "notes/a%252fb"],
  ])("refuses %s: 400, nothing sent", async (_, rest) => {
    const before = sentCount();
    expectError(await pass("GET", rest), 400, "invalid_request", /not allowed for this toolkit/);
    expect(sentCount()).toBe(before);
  });

  it("follows a redirect under the base URL", async () => {
    const res = await pass("GET", `notes/redirect?to=${encodeURIComponent(`${h.upstream.origin}/v1/echo`)}`);
    expect(res.json).toEqual({ ok: true, method: "GET", path: "/v1/echo" });
  });

  it.each([301, 302, 303, 307, 308])(
    "refuses a %i elsewhere with 502 upstream_redirect: not followed (the credential stays home), not passed on (nor the API key)",
    async (code) => {
      const res = await pass("GET", `notes/redirect?code=${code}&to=${encodeURIComponent(`${h.foreign.origin}/steal`)}`);
      expectError(res, 502, "upstream_redirect", /redirect outside the toolkit's base URL .*POST \/proxy\/tools\/proxy/);
      expect(res.headers.get("location")).toBeNull();
      expect(res.text).toContain(`(${new URL(h.foreign.origin).host})`);
    },
  );

  it("names no host when the redirect's Location is relative (a path outside the base path)", async () => {
    const res = await pass("GET", `notes/redirect?code=302&to=${encodeURIComponent("/v2/items")}`);
    expectError(res, 502, "upstream_redirect", /base URL http:\/\/127\.0\.0\.1:\d+\/v1\. The passthrough/);
  });

  it("passes a redirect status without a Location as it is: there is nothing to follow", async () => {
    const res = await pass("GET", "notes/status/302");
    expect(res.status).toBe(302);
    expect(res.json).toEqual({ error: "status 302" });
  });

  it("passes on a 307 under the base URL that it could not follow (a streamed body is sent once), pointed at the route", async () => {
    const to = `${h.upstream.origin}/v1/items`;
    const res = await pass("POST", `notes/redirect?code=307&to=${encodeURIComponent(to)}`, {
      rawBody: '{"name":"x"}',
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(307);
    expect(res.headers.get("location")).toBe(`${BASE}/proxy/tools/passthrough/notes/items`);
  });

  it("routes a Location and refuses a redirect elsewhere for a toolkit without auth too (no connection)", async () => {
    const under = await pass("POST", `open/redirect?code=201&to=${encodeURIComponent(`${h.upstream.origin}/v1/items/2`)}`);
    expect(under.headers.get("location")).toBe(`${BASE}/proxy/tools/passthrough/open/items/2`);
    const elsewhere = await pass("GET", `open/redirect?to=${encodeURIComponent(`${h.foreign.origin}/x`)}`);
    expectError(elsewhere, 502, "upstream_redirect");
  });

  it.each([
    ["an absolute URL under the base URL", (up: string) => `${up}/v1/items/2?x=1`, `${BASE}/proxy/tools/passthrough/notes/items/2?x=1`],
    ["a path under the base path", () => "/v1/items/2", "/proxy/tools/passthrough/notes/items/2"],
    ["a path relative to the URL that answered", () => "items/2#top", "/proxy/tools/passthrough/notes/items/2#top"],
  ])("points a Location at the route when it is %s", async (_, to, expected) => {
    const res = await pass("POST", `notes/redirect?code=201&to=${encodeURIComponent(to(h.upstream.origin))}`);
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe(expected);
  });

  it.each([
    ["a path outside the base path", () => "/v2/items"],
    ["the same origin outside the base path", (up: string) => `${up}/v10/items`],
    ["another origin", () => "http://other.example/x"],
  ])("drops the Location of a non-redirect answer when it is %s: the answer stays, the URL goes", async (_, to) => {
    const res = await pass("POST", `notes/redirect?code=201&to=${encodeURIComponent(to(h.upstream.origin))}`);
    expect(res.status).toBe(201);
    expect(res.text).toBe("redirecting");
    expect(res.headers.get("location")).toBeNull();
  });

  it("refuses a toolkit whose credential goes in the query string (an echoed URL could not be redacted)", async () => {
    const before = sentCount();
    expectError(await pass("GET", "acmeq/echo"), 400, "invalid_request", /POST \/proxy\/tools\/proxy/);
    expect(sentCount()).toBe(before);
  });
});

describe("refusals and failures are JSON errors", () => {
  it("401 without an API key, nothing sent", async () => {
    const before = sentCount();
    expectError(await pass("GET", "notes/echo", { key: undefined }), 401, "unauthorized");
    expect(sentCount()).toBe(before);
  });

  it("404 for an unknown toolkit", async () => {
    expectError(await pass("GET", "nope/echo"), 404, "not_found");
  });

  it("409 connection_required without a connection, 404 for one that is not the agent's", async () => {
    expectError(await pass("GET", "vault/echo"), 409, "connection_required");
    expectError(await pass("GET", "notes/echo", { headers: { "x-connection-id": "conn_nope" } }), 404, "not_found");
  });

  it("409 connection_ambiguous with two connections and none named; x-connection-id picks one", async () => {
    const other = await h.issueAgentKey("agent-b");
    await h.connect(other.key, "notes", { token: CREDENTIALS.bearerToken });
    const second = await h.connect(other.key, "notes", { token: CREDENTIALS.bearerToken2 });
    expectError(await pass("GET", "notes/echo", { key: other.key }), 409, "connection_ambiguous");
    const res = await pass("GET", "notes/echo", { key: other.key, headers: { "x-connection-id": second.id } });
    expect(res.status).toBe(200);
    expect(last().headers.authorization).toBe(`Bearer ${CREDENTIALS.bearerToken2}`);
  });

  it("502 upstream_unreachable when nothing answers", async () => {
    expectError(await pass("GET", "closed/anything"), 502, "upstream_unreachable");
  });

  it("504 upstream_timeout when the upstream does not answer in time", async () => {
    expectError(await pass("GET", "notes/slow?ms=600000"), 504, "upstream_timeout");
  });

  it("OPTIONS is the handler's: 204 with every method in Allow, nothing sent", async () => {
    const before = sentCount();
    const res = await h.send(new Request(`${BASE}${h.basePath}/passthrough/notes/echo`, { method: "OPTIONS" }));
    expect(res.status).toBe(204);
    expect(res.headers.get("allow")).toContain("PATCH");
    expect(sentCount()).toBe(before);
  });
});
