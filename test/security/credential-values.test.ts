/**
 * Credentials that cannot be sent as given, and credentials an upstream echoes back: a key with a
 * line break is refused at /auth (never stored), a stored one that cannot go out is refused before
 * anything is sent, and whatever an upstream echoes of the connection's secret (a query key in its
 * URL, a token in an error page) is redacted from the data, headers and errors the agent receives.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKey, defineJsonToolkit, defineToolkit } from "../../src/index.js";
import { CREDENTIALS, createHarness, expectError, type Harness } from "../support/harness.js";

let h: Harness;
let key: string;
const injected = `inj-${Math.random().toString(36).slice(2)}\r\nX-Inj: 1`;

beforeAll(async () => {
  h = await createHarness({
    extraToolkits: (origins) => [
      defineJsonToolkit(
        {
          slug: "reflectq",
          name: "Reflect with a query key",
          description: "An API that echoes its URL, with the key in the query string.",
          baseUrl: `${origins.upstream}/v1`,
          auth: { type: "apiKey", in: "query", name: "api_key" },
          tools: [
            {
              slug: "REFLECTQ_GET",
              name: "Reflect",
              description: "Echoes the request URL.",
              method: "GET",
              path: "/reflect",
              inputParameters: { type: "object", properties: { status: { type: "string" }, as: { type: "string" } } },
            },
          ],
        },
        { env: {} },
      ),
      defineToolkit({
        slug: "hdrkey",
        name: "Header key",
        description: "Header key.",
        baseUrl: `${origins.upstream}/v1`,
        auth: apiKey({ in: "header", name: "X-Key" }),
        tools: [],
      }),
    ],
  });
  key = (await h.issueAgentKey("agent-cv")).key;
  h.addSecret(injected);
});
afterAll(async () => {
  h.assertNoLeaks();
  await h.close();
});

describe("a credential that cannot be sent is refused at /auth and never stored", () => {
  const cases: Array<[string, string, Record<string, string>, RegExp]> = [
    ["an api key with CR/LF, sent in a header", "hdrkey", { apiKey: injected }, /credentials\.apiKey .*line break/],
    ["an api key with a NUL", "hdrkey", { apiKey: "abcd\u0000efgh" }, /credentials\.apiKey .*control character/],
    ["an api key beyond Latin-1", "hdrkey", { apiKey: "key-\u2603-snow" }, /credentials\.apiKey .*Latin-1/],
    [
      "an api key with surrounding whitespace",
      "hdrkey",
      { apiKey: " key-with-space " },
      /credentials\.apiKey starts or ends with whitespace/,
    ],
    ["a bearer token with a line feed", "notes", { token: "tok\nen-value" }, /credentials\.token .*line break/],
    ["a basic username with a colon", "vault", { username: "al:ice", password: "pw-long-enough" }, /credentials\.username contains ":"/],
  ];
  for (const [name, toolkit, credentials, message] of cases) {
    it(name, async () => {
      const res = await h.call("POST", "/auth", { key, body: { toolkit, credentials } });
      expectError(res, 400, "invalid_request", message);
      expect(await h.store.listConnections({ workspaceId: "ws1", agentId: "agent-cv", toolkit })).toEqual([]);
    });
  }

  it("a query-string key may hold any character: it is percent-encoded on the way out", async () => {
    const res = await h.call("POST", "/auth", { key, body: { toolkit: "reflectq", credentials: { apiKey: injected }, label: "odd" } });
    expect(res.status, res.text).toBe(201);
    const proxied = await h.call("POST", "/proxy", {
      key,
      body: { toolkit: "reflectq", method: "GET", url: `${h.upstream.origin}/v1/echo`, connection_id: res.json.connection.id },
    });
    expect(proxied.json).toMatchObject({ successful: true, status: 200 });
    const received = h.upstream.requests.at(-1)!;
    expect(new URL(received.url, "http://x").searchParams.get("api_key")).toBe(injected);
    await h.store.deleteConnection(res.json.connection.id);
  });
});

describe("a stored credential that cannot be sent is refused before anything goes out", () => {
  it("answers 409 naming the connection and the field, sends nothing, and logs no part of it", async () => {
    const id = await h.insertConnection({ agentId: "agent-cv", toolkit: "hdrkey", credential: { type: "apiKey", apiKey: injected } });
    const before = h.upstream.requests.length;
    const res = await h.call("POST", "/proxy", { key, body: { toolkit: "hdrkey", method: "GET", url: `${h.upstream.origin}/v1/echo` } });
    expectError(res, 409, "connection_required", new RegExp(`connection "${id}".*apiKey contains a line break.*connect again`));
    expect(h.upstream.requests.length).toBe(before);
    await h.store.deleteConnection(id);
  });
});

describe("what an upstream echoes of the connection's secret is redacted from the agent's answer", () => {
  let connectionId: string;
  beforeAll(async () => {
    connectionId = (await h.connect(key, "reflectq", { apiKey: CREDENTIALS.queryKey }, { label: "reflect" })).id;
  });
  const proxy = (query: string) =>
    h.call("POST", "/proxy", {
      key,
      body: { toolkit: "reflectq", method: "GET", url: `${h.upstream.origin}/v1/reflect${query}`, connection_id: connectionId },
    });

  it("proxy: JSON data at any depth and the Link header", async () => {
    const res = await proxy("?page=2");
    expect(res.json.successful).toBe(true);
    expect(res.json.data.self).toBe("/v1/reflect?page=2&api_key=[redacted]");
    expect(res.json.data.nested[0].next).toBe("/v1/reflect?page=2&api_key=[redacted]");
    expect(res.json.headers.link).toBe('</v1/reflect?page=2&api_key=[redacted]>; rel="next"');
    // The upstream really got the key: the redaction is in the answer, not the request.
    expect(h.upstream.requests.at(-1)!.url).toContain(`api_key=${encodeURIComponent(CREDENTIALS.queryKey)}`);
  });

  it("proxy: a text error page", async () => {
    const res = await proxy("?status=404&as=text");
    expect(res.json).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 404 });
    expect(res.json.data).toBe("Not found: GET /v1/reflect?status=404&as=text&api_key=[redacted]?token=abc");
  });

  it("execute: a tool's data, and its error text", async () => {
    const ok = await h.call("POST", "/execute", { key, body: { tool: "REFLECTQ_GET", arguments: {}, connection_id: connectionId } });
    expect(ok.json.successful, ok.text).toBe(true);
    expect(ok.json.data.self).toBe("/v1/reflect?api_key=[redacted]");
    const failed = await h.call("POST", "/execute", {
      key,
      body: { tool: "REFLECTQ_GET", arguments: { status: "500" }, connection_id: connectionId },
    });
    expect(failed.json).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 500 });
    expect(failed.json.error).toContain("api_key=[redacted]");
  });

  it("a key with CR/LF comes back percent-encoded in the upstream's error text, and is redacted in that spelling", async () => {
    const odd = await h.call("POST", "/auth", { key, body: { toolkit: "reflectq", credentials: { apiKey: injected }, label: "odd2" } });
    const res = await h.call("POST", "/execute", {
      key,
      body: { tool: "REFLECTQ_GET", arguments: { status: "500" }, connection_id: odd.json.connection.id },
    });
    expect(res.json).toMatchObject({ successful: false, code: "upstream_error" });
    expect(res.json.error).toContain("api_key=[redacted]");
    await h.store.deleteConnection(odd.json.connection.id);
  });

  it("a bearer token echoed by the upstream", async () => {
    await h.connect(key, "notes", { token: CREDENTIALS.bearerToken }, { label: "echoed" });
    const res = await h.call("POST", "/proxy", { key, body: { toolkit: "notes", method: "GET", url: `${h.upstream.origin}/v1/whoami` } });
    expect(res.json.data).toEqual({ authorization: "Bearer [redacted]" });
  });
});
