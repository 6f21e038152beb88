import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeApiKey } from "../../src/index.js";
import { CREDENTIALS, createHarness, expectError, type Harness, multipart } from "../support/harness.js";

let h: Harness;
let agentA: { key: string; id: string };
let agentB: { key: string; id: string };
let service: { key: string; id: string };
let connA: string;
let connB: string;

beforeAll(async () => {
  h = await createHarness();
  agentA = await h.issueAgentKey("agent-a");
  agentB = await h.issueAgentKey("agent-b");
  service = await h.issueServiceKey();
  connA = (await h.connect(agentA.key, "notes", { token: CREDENTIALS.bearerToken })).id;
  connB = (await h.connect(agentB.key, "notes", { token: CREDENTIALS.bearerToken2 })).id;
});
afterAll(async () => {
  h.assertNoLeaks();
  await h.close();
});

describe("API keys", () => {
  it("refuses a request without a key: 401 unauthorized with WWW-Authenticate", async () => {
    const res = await h.call("GET", "/connections");
    expectError(res, 401, "unauthorized", /Missing API key/);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="tools-proxy"');
  });

  it("refuses malformed, unknown and non-Bearer keys with 401", async () => {
    for (const key of ["pak_short", "not-a-key", `pak_${"x".repeat(44)}`, agentA.key.slice(0, -1)]) {
      const res = await h.call("GET", "/connections", { key });
      expectError(res, 401, "unauthorized", /Invalid API key/);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="tools-proxy"');
    }
    const unknown = await h.call("GET", "/connections", { key: `pak_${"A".repeat(43)}` });
    expectError(unknown, 401, "unauthorized", /Invalid API key/);
    const basicScheme = await h.call("GET", "/connections", { headers: { authorization: `Basic ${agentA.key}` } });
    expectError(basicScheme, 401, "unauthorized", /does not carry an API key: send `Authorization: Bearer <key>`/);
  });

  it("accepts the key as x-api-key and as Authorization: Bearer", async () => {
    const viaHeader = await h.call("GET", "/connections", { key: agentA.key });
    const viaBearer = await h.call("GET", "/connections", { key: agentA.key, bearer: true });
    expect(viaHeader.status).toBe(200);
    expect(viaBearer.status).toBe(200);
    expect(viaHeader.json.connections.map((c: { id: string }) => c.id)).toEqual([connA]);
    expect(viaBearer.json).toEqual(viaHeader.json);
  });

  it("refuses a key once it is revoked", async () => {
    const temp = await h.issueAgentKey("agent-temp");
    expect((await h.call("GET", "/connections", { key: temp.key })).status).toBe(200);
    expect(await revokeApiKey(h.store, temp.id)).toBe(true);
    expectError(await h.call("GET", "/connections", { key: temp.key }), 401, "unauthorized");
    expectError(await h.call("GET", "/connections", { key: temp.key, bearer: true }), 401, "unauthorized");
    expect(await revokeApiKey(h.store, temp.id)).toBe(false);
  });

  it("an agent key ignores x-agent-id and acts for its own agent", async () => {
    const res = await h.call("GET", "/connections", { key: agentA.key, agentId: "agent-b" });
    expect(res.json.connections.map((c: { id: string }) => c.id)).toEqual([connA]);
  });
});

describe("a service key without x-agent-id", () => {
  it("may search toolkits and read a toolkit", async () => {
    const search = await h.call("GET", "/search?keywords=notes", { key: service.key });
    expect(search.status).toBe(200);
    expect(search.json.toolkits[0]).toMatchObject({ slug: "notes", connected: true });
    const toolkit = await h.call("GET", "/toolkit/notes", { key: service.key });
    expect(toolkit.status).toBe(200);
    expect(toolkit.json.tools.map((t: { slug: string }) => t.slug)).toEqual(["NOTES_ECHO", "NOTES_LEAKY", "NOTES_FETCH_FOREIGN"]);
  });

  it("lists the connections of the whole workspace, and only that workspace", async () => {
    const other = await h.issueAgentKey("agent-a", "ws2");
    await h.connect(other.key, "notes", { token: CREDENTIALS.bearerToken });
    const res = await h.call("GET", "/connections", { key: service.key });
    expect(res.status).toBe(200);
    // Sorted: the two were made back to back, possibly in one millisecond, where the listing goes by id.
    expect(res.json.connections.map((c: { id: string }) => c.id).sort()).toEqual([connA, connB].sort());
  });

  it("cannot execute, proxy, connect, upload, read files or delete: 400 naming x-agent-id", async () => {
    const attempts = [
      h.call("POST", "/execute", { key: service.key, body: { tool: "CALC_ADD", arguments: { a: 1, b: 2 } } }),
      h.call("POST", "/proxy", { key: service.key, body: { toolkit: "notes", method: "GET", url: `${h.upstream.origin}/v1/echo` } }),
      h.call("POST", "/auth", { key: service.key, body: { toolkit: "notes", credentials: { token: CREDENTIALS.bearerToken } } }),
      h.call("POST", "/upload", { key: service.key, rawBody: multipart("hello", "text/plain") }),
      h.call("GET", `/files/stg_${"a".repeat(43)}`, { key: service.key }),
      h.call("DELETE", `/connections/${connA}`, { key: service.key }),
      h.call("GET", "/auth/auth_unknown", { key: service.key }),
    ];
    for (const res of await Promise.all(attempts)) expectError(res, 400, "invalid_request", /x-agent-id/);
    expect(h.upstream.requests).toHaveLength(0);
    const stillThere = await h.call("GET", "/connections", { key: agentA.key });
    expect(stillThere.json.connections).toHaveLength(1);
  });

  it("refuses a malformed x-agent-id", async () => {
    expectError(await h.call("GET", "/connections", { key: service.key, agentId: "bad id!" }), 400, "invalid_request", /x-agent-id/);
  });
});

describe("a service key with x-agent-id", () => {
  it("sees and uses only that agent's connections", async () => {
    const list = await h.call("GET", "/connections", { key: service.key, agentId: "agent-a" });
    expect(list.json.connections.map((c: { id: string }) => c.id)).toEqual([connA]);

    const before = h.upstream.requests.length;
    const run = await h.call("POST", "/execute", { key: service.key, agentId: "agent-a", body: { tool: "NOTES_ECHO", arguments: {} } });
    expect(run.status).toBe(200);
    expect(run.json).toMatchObject({ successful: true, error: null, data: { upstream: { ok: true, path: "/v1/echo" } } });
    expect(h.upstream.requests[before]!.headers.authorization).toBe(`Bearer ${CREDENTIALS.bearerToken}`);

    const foreign = await h.call("POST", "/execute", {
      key: service.key,
      agentId: "agent-a",
      body: { tool: "NOTES_ECHO", arguments: {}, connection_id: connB },
    });
    expectError(foreign, 404, "not_found");
  });

  it("creates and deletes connections for that agent", async () => {
    const created = await h.call("POST", "/auth", {
      key: service.key,
      agentId: "agent-c",
      body: { toolkit: "acme", credentials: { apiKey: CREDENTIALS.headerKey } },
    });
    expect(created.status).toBe(201);
    const agentC = await h.issueAgentKey("agent-c");
    const seen = await h.call("GET", "/connections", { key: agentC.key });
    expect(seen.json.connections.map((c: { id: string }) => c.id)).toEqual([created.json.connection.id]);
    expectError(await h.call("DELETE", `/connections/${connA}`, { key: service.key, agentId: "agent-c" }), 404, "not_found");
    expect((await h.call("DELETE", `/connections/${created.json.connection.id}`, { key: service.key, agentId: "agent-c" })).status).toBe(
      204,
    );
    expect((await h.call("GET", "/connections", { key: agentC.key })).json.connections).toEqual([]);
  });

  it("uploads and reads files as that agent", async () => {
    const up = await h.call("POST", "/upload", { key: service.key, agentId: "agent-a", rawBody: multipart("from service", "text/plain") });
    expect(up.status).toBe(200);
    const asAgent = await h.call("GET", `/files/${up.json.stagingKey}`, { key: agentA.key });
    expect(asAgent.status).toBe(200);
    expect(asAgent.text).toBe("from service");
    expectError(await h.call("GET", `/files/${up.json.stagingKey}`, { key: agentB.key }), 404, "not_found");
  });
});
