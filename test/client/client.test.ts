/**
 * The typed client against a real server: the handler on node:http (Node adapter), every JSON
 * method, the error mapping (status, code and the server's own message), network failures,
 * aborts, and the configuration checks. Results are compared with what the server answers to a
 * plain fetch, and stored state is read back through the store.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolsClient, isToolsClientError, type ToolsClient, ToolsClientError } from "../../src/client/index.js";
import { API_KEY_LENGTH as CLIENT_KEY_LENGTH } from "../../src/client/transport.js";
import { API_KEY_LENGTH } from "../../src/credentials/key-shape.js";
import { rateLimit } from "../../src/index.js";
import { CREDENTIALS, createHarness, type Harness } from "../support/harness.js";
import { TOOLKIT_SLUGS } from "../support/toolkits.js";
import { type ApiServer, startApiServer } from "./server.js";

let h: Harness;
let server: ApiServer;
let key: string;
let client: ToolsClient;

beforeAll(async () => {
  h = await createHarness();
  server = await startApiServer(h.handler);
  key = (await h.issueAgentKey("agent-1")).key;
  client = createToolsClient({ baseUrl: server.baseUrl, apiKey: key });
});
afterAll(async () => {
  h.assertNoLeaks();
  await server.close();
  await h.close();
});

/** The same route over plain fetch, for an independent view of the answer. */
async function raw(path: string): Promise<unknown> {
  const response = await fetch(`${server.baseUrl}${path}`, { headers: { "x-api-key": key } });
  return response.json();
}

/** The error a promise rejects with; fails the test if it resolves. */
async function failure(promise: Promise<unknown>): Promise<ToolsClientError> {
  const error = await promise.then(
    () => expect.unreachable("the call should have failed"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolsClientError);
  const clientError = error as ToolsClientError;
  expect(clientError.message).not.toContain(key);
  expect(JSON.stringify(clientError)).not.toContain(key);
  return clientError;
}

describe("catalog", () => {
  it("search answers what the route answers, and pages with cursors", async () => {
    expect(await client.search()).toEqual(await raw("/search"));
    const first = await client.search({ limit: 4 });
    expect(first.toolkits.map((t) => t.slug)).toEqual(TOOLKIT_SLUGS.slice(0, 4));
    const slugs = first.toolkits.map((t) => t.slug);
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await client.search({ limit: 4, cursor });
      slugs.push(...page.toolkits.map((t) => t.slug));
      cursor = page.nextCursor;
    }
    expect(slugs).toEqual(TOOLKIT_SLUGS);
    const found = await client.search({ keywords: "vault secrets" });
    expect(found.toolkits[0]).toMatchObject({ slug: "vault", authScheme: "basic", toolCount: 1, connected: false });
  });

  it("getToolkit and searchTools give a toolkit's tools, paged and ranked", async () => {
    const bulk = await client.getToolkit("bulk", { limit: 10 });
    expect(bulk).toEqual(await raw("/toolkit/bulk?limit=10"));
    expect(bulk.tools).toHaveLength(10);
    expect(typeof bulk.nextCursor).toBe("string");
    const next = await client.getToolkit("bulk", { limit: 10, cursor: bulk.nextCursor! });
    expect(next.tools[0]!.slug).toBe("BULK_TOOL_11");

    const found = await client.searchTools("bulk", { query: "paging questions", limit: 3 });
    expect(found.tools[0]!.slug).toBe("BULK_TOOL_42");
    const calc = await client.getToolkit("calc");
    expect(calc.tools.find((t) => t.slug === "CALC_ADD")).toMatchObject({
      annotations: { readOnly: true },
      inputParameters: { type: "object" },
    });
  });

  it("openapi returns the document, and verifyKey accepts the key", async () => {
    const document = await client.openapi();
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(document.paths as object)).toContain("/proxy/tools/toolkit/{toolkit}/search");
    await expect(client.verifyKey()).resolves.toBeUndefined();
  });
});

describe("connections, execute and proxy", () => {
  it("connects with credentials, lists, executes, proxies and deletes", async () => {
    const { connection } = await client.connect({ toolkit: "acme", credentials: { apiKey: CREDENTIALS.headerKey }, label: "Work" });
    expect(connection).toMatchObject({ toolkit: "acme", label: "Work", status: "active", statusReason: null });
    expect((await h.store.getConnection(connection.id))?.agentId).toBe("agent-1");

    expect((await client.listConnections()).connections.map((c) => c.id)).toEqual([connection.id]);
    expect((await client.listConnections({ toolkit: "notes" })).connections).toEqual([]);
    expect((await client.search({ keywords: "acme" })).toolkits.find((t) => t.slug === "acme")?.connected).toBe(true);

    const executed = await client.execute({ tool: "ACME_PING" });
    expect(executed).toEqual({ data: { ok: true, method: "GET", path: "/v1/echo" }, error: null, successful: true });
    const sent = h.upstream.requests.at(-1)!;
    expect(sent.headers["x-acme-key"]).toBe(CREDENTIALS.headerKey);

    const proxied = await client.proxy({
      toolkit: "acme",
      method: "POST",
      url: `${h.upstream.origin}/v1/items`,
      body: { name: "pen" },
      connection_id: connection.id,
    });
    expect(proxied).toMatchObject({ successful: true, status: 201, data: { created: { name: "pen" } } });
    expect(proxied.headers["content-type"]).toMatch(/json/);

    await client.deleteConnection(connection.id);
    expect(await h.store.getConnection(connection.id)).toBeNull();
    expect((await client.listConnections()).connections).toEqual([]);
    const again = await failure(client.deleteConnection(connection.id));
    expect([again.status, again.code]).toEqual([404, "not_found"]);
    expect(again.message).toMatch(/List yours with GET/);
  });

  it("a tool that fails resolves with successful: false rather than rejecting", async () => {
    const result = await client.execute({ tool: "CALC_FAIL", arguments: {} });
    expect(result).toEqual({
      data: null,
      error: "The quota for this tool is used up.",
      successful: false,
      code: "quota_exceeded",
      retryable: true,
      retryAfterMs: 1500,
      upstreamStatus: 429,
    });
  });

  it("a service key lists the workspace's connections, and acts for an agent with forAgent", async () => {
    const service = createToolsClient({ baseUrl: server.baseUrl, apiKey: (await h.issueServiceKey()).key });
    const refused = await failure(service.execute({ tool: "CALC_ADD", arguments: { a: 1, b: 2 } }));
    expect([refused.status, refused.code]).toEqual([400, "invalid_request"]);
    expect(refused.message).toMatch(/x-agent-id/);

    const asAgent = service.forAgent("agent-2");
    const { connection } = await asAgent.connect({ toolkit: "notes", credentials: { token: CREDENTIALS.bearerToken } });
    expect((await h.store.getConnection(connection.id))?.agentId).toBe("agent-2");
    expect((await asAgent.execute({ tool: "CALC_ADD", arguments: { a: 1, b: 2 } })).data).toEqual({ sum: 3 });
    expect((await service.listConnections()).connections.map((c) => c.id)).toContain(connection.id);
    expect((await client.listConnections()).connections.map((c) => c.id)).not.toContain(connection.id);
  });
});

describe("connection pages", () => {
  it("connectionPages follows nextCursor through every connection once, a page at a time", async () => {
    const service = createToolsClient({ baseUrl: server.baseUrl, apiKey: (await h.issueServiceKey("ws-pages")).key });
    const made: string[] = [];
    for (let i = 0; i < 12; i++) {
      const agent = service.forAgent(`pager-${i % 3}`);
      made.push((await agent.connect({ toolkit: "notes", credentials: { token: CREDENTIALS.bearerToken } })).connection.id);
    }
    const pages = [];
    for await (const page of service.connectionPages({ limit: 5 })) pages.push(page);
    expect(pages.map((p) => p.connections.length)).toEqual([5, 5, 2]);
    // Listed oldest first, by id within one millisecond: the order of one page of them all, each once.
    const listed = pages.flatMap((p) => p.connections.map((c) => c.id));
    expect(listed).toEqual((await service.listConnections({ limit: 100 })).connections.map((c) => c.id));
    expect([...listed].sort()).toEqual([...made].sort());
    expect(pages.at(-1)).not.toHaveProperty("nextCursor");
    expect(pages[0]).toEqual(await service.listConnections({ limit: 5 }));

    const sent = server.requests.length;
    for await (const page of service.connectionPages({ limit: 5 })) {
      expect(page.connections).toHaveLength(5);
      break; // stopping the loop sends no further request
    }
    expect(server.requests.length).toBe(sent + 1);
  });
});

describe("errors", () => {
  it("maps 401, 400, 404 and 409 answers to ToolsClientError with the server's code, status and message", async () => {
    const badKey = createToolsClient({ baseUrl: server.baseUrl, apiKey: "pak_not-a-real-key-000000000000000000000000" });
    const unauthorized = await failure(badKey.verifyKey());
    expect([unauthorized.status, unauthorized.code]).toEqual([401, "unauthorized"]);
    const body = (await (
      await fetch(`${server.baseUrl}/search`, { headers: { "x-api-key": "pak_not-a-real-key-000000000000000000000000" } })
    ).json()) as { error: string };
    expect(unauthorized.message).toBe(body.error);

    // A "key" shorter than any real one is not redacted from the server's sentence (it would garble "Invalid").
    expect(CLIENT_KEY_LENGTH).toBe(API_KEY_LENGTH);
    expect((await failure(createToolsClient({ baseUrl: server.baseUrl, apiKey: "a" }).verifyKey())).message).toBe(body.error);

    const invalid = await failure(client.search({ limit: 500 }));
    expect([invalid.status, invalid.code]).toEqual([400, "invalid_request"]);
    expect(invalid.message).toMatch(/limit/);

    const missing = await failure(client.getToolkit("no-such-toolkit"));
    expect([missing.status, missing.code]).toEqual([404, "not_found"]);
    expect(missing.message).toContain('No toolkit "no-such-toolkit"');

    const required = await failure(client.execute({ tool: "VAULT_PING" }));
    expect([required.status, required.code]).toEqual([409, "connection_required"]);

    const a = await client.connect({
      toolkit: "vault",
      credentials: { username: "alice", password: CREDENTIALS.basicPassword },
      label: "A",
    });
    const b = await client.connect({
      toolkit: "vault",
      credentials: { username: "alice", password: CREDENTIALS.basicPassword },
      label: "B",
    });
    const ambiguous = await failure(client.execute({ tool: "VAULT_PING" }));
    expect([ambiguous.status, ambiguous.code]).toEqual([409, "connection_ambiguous"]);
    expect(ambiguous.message).toContain(a.connection.id);
    expect(ambiguous.message).toContain(b.connection.id);
    expect(isToolsClientError(ambiguous)).toBe(true);
  });

  it("a 429 carries the server's Retry-After as retryAfter, in seconds", async () => {
    const limited = await createHarness({ limits: rateLimit({ limit: 1, windowMs: 60_000 }) });
    const limitedServer = await startApiServer(limited.handler);
    try {
      const one = createToolsClient({ baseUrl: limitedServer.baseUrl, apiKey: (await limited.issueAgentKey("agent-1")).key });
      await one.search();
      const error = await failure(one.search());
      expect([error.status, error.code]).toEqual([429, "rate_limited"]);
      expect(error.retryAfter).toBeGreaterThan(0);
      expect(error.retryAfter).toBeLessThanOrEqual(60);
      limited.assertNoLeaks();
    } finally {
      await limitedServer.close();
      await limited.close();
    }
  });

  it("path segments are encoded, so an id cannot reach another route", async () => {
    const error = await failure(client.getToolkit("bulk/search"));
    expect([error.status, error.code]).toEqual([404, "not_found"]);
    expect(error.message).toContain('No toolkit "bulk/search"');
  });

  it("a server that is down is network_error with status 0, naming the URL but never the key", async () => {
    const down = await startApiServer();
    const url = down.baseUrl;
    await down.close();
    const error = await failure(createToolsClient({ baseUrl: url, apiKey: key }).search());
    expect([error.code, error.status]).toEqual(["network_error", 0]);
    expect(error.message).toContain(`${url}/search`);
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it("an answer that is not the Tools API's is unexpected_response, hinting at the mount path", async () => {
    const wrong = createToolsClient({ baseUrl: server.origin, apiKey: key });
    const error = await failure(wrong.search());
    expect([error.code, error.status]).toEqual(["unexpected_response", 404]);
    expect(error.message).toMatch(
      /^\/search answered 404 Not Found without a Tools API error body\. Is http:\/\/127\.0\.0\.1:\d+ the Tools API's base URL/,
    );

    server.page("/html-api/search", "text/html", "<p>hello</p>");
    const html = await failure(createToolsClient({ baseUrl: `${server.origin}/html-api`, apiKey: key }).search());
    expect([html.code, html.status]).toEqual(["unexpected_response", 200]);
    expect(html.message).toMatch(/with text\/html instead of JSON/);
  });

  it("an aborted call rejects with the signal's reason, not a ToolsClientError", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await client.search({}, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBe(controller.signal.reason);
    expect((error as Error).name).toBe("AbortError");
  });

  it("refuses unusable options at once, naming the option", () => {
    expect(() => createToolsClient({ baseUrl: "localhost:8787", apiKey: key })).toThrow(/option "baseUrl" must be an http: or https: URL/);
    expect(() => createToolsClient({ baseUrl: "not a url", apiKey: key })).toThrow(/option "baseUrl" must be an absolute URL/);
    expect(() => createToolsClient({ baseUrl: "http://user:pw@127.0.0.1/proxy/tools", apiKey: key })).toThrow(/user name or password/);
    expect(() => createToolsClient({ baseUrl: server.baseUrl, apiKey: " " })).toThrow(/option "apiKey" is required/);
    expect(() => createToolsClient({ baseUrl: key, apiKey: key })).toThrow(/got "\[redacted\]"/);
  });

  it("sends the key as Authorization: Bearer and agentId as x-agent-id, and strips a trailing slash", async () => {
    const service = createToolsClient({
      baseUrl: `${server.baseUrl}/`,
      apiKey: key,
      agentId: "agent-9",
      headers: { "user-agent": "tools-proxy-test" },
    });
    const before = server.requests.length;
    await service.search({ limit: 1 });
    const sent = server.requests.slice(before);
    expect(sent.map((r) => r.url)).toEqual(["/proxy/tools/search?limit=1"]);
    expect(sent[0]!.headers).toMatchObject({ authorization: `Bearer ${key}`, "x-agent-id": "agent-9", "user-agent": "tools-proxy-test" });
    expect(sent[0]!.headers["x-api-key"]).toBeUndefined();
  });
});
