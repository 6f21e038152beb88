import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREDENTIALS, createHarness, expectError, type Harness, multipart } from "../support/harness.js";

let h: Harness;
let a: string;
let b: string;
let otherService: string;
let connA: string;
let fileA: string;

const ids = (res: { json: { connections: Array<{ id: string }> } }) => res.json.connections.map((c) => c.id);

beforeAll(async () => {
  h = await createHarness();
  a = (await h.issueAgentKey("agent-a")).key;
  b = (await h.issueAgentKey("agent-b")).key;
  otherService = (await h.issueServiceKey("ws2")).key;
  connA = (await h.connect(a, "notes", { token: CREDENTIALS.bearerToken })).id;
  const up = await h.call("POST", "/upload", { key: a, rawBody: multipart("agent a's file", "text/plain") });
  expect(up.status).toBe(200);
  fileA = up.json.stagingKey;
});
afterAll(async () => {
  h.assertNoLeaks();
  await h.close();
});

describe("two agents of one workspace", () => {
  it("each lists only its own connections", async () => {
    const connB = (await h.connect(b, "notes", { token: CREDENTIALS.bearerToken2 })).id;
    expect(ids(await h.call("GET", "/connections", { key: a }))).toEqual([connA]);
    expect(ids(await h.call("GET", "/connections", { key: b }))).toEqual([connB]);
    expect(ids(await h.call("GET", "/connections?toolkit=notes", { key: b }))).toEqual([connB]);
    expect((await h.call("DELETE", `/connections/${connB}`, { key: b })).status).toBe(204);
  });

  it("B cannot delete A's connection: 404, and it stays", async () => {
    expectError(await h.call("DELETE", `/connections/${connA}`, { key: b }), 404, "not_found");
    expect(ids(await h.call("GET", "/connections", { key: a }))).toEqual([connA]);
    expect(
      h.events.filter((e) => e.event === "connection.deleted" && (e.payload as { connectionId: string }).connectionId === connA),
    ).toEqual([]);
  });

  it("B cannot execute or proxy with A's connection: 404 and nothing sent upstream", async () => {
    const before = h.upstream.requests.length;
    const run = await h.call("POST", "/execute", { key: b, body: { tool: "NOTES_ECHO", arguments: {}, connection_id: connA } });
    expectError(run, 404, "not_found", new RegExp(connA));
    const proxy = await h.call("POST", "/proxy", {
      key: b,
      body: { toolkit: "notes", method: "GET", url: `${h.upstream.origin}/v1/echo`, connection_id: connA },
    });
    expectError(proxy, 404, "not_found");
    expect(h.upstream.requests.length).toBe(before);
  });

  it("B does not fall back to A's connection when it has none: 409", async () => {
    const run = await h.call("POST", "/execute", { key: b, body: { tool: "NOTES_ECHO", arguments: {} } });
    expectError(run, 409, "connection_required");
  });

  it("B cannot filter a toolkit by A's connection: 404", async () => {
    expectError(await h.call("GET", `/toolkit/notes?connection_id=${connA}`, { key: b }), 404, "not_found");
    expectError(await h.call("GET", `/toolkit/notes/search?query=echo&connection_id=${connA}`, { key: b }), 404, "not_found");
    expect((await h.call("GET", `/toolkit/notes?connection_id=${connA}`, { key: a })).status).toBe(200);
  });

  it("search marks a toolkit connected only for the agent that connected it", async () => {
    const forA = await h.call("GET", "/search?keywords=notes", { key: a });
    const forB = await h.call("GET", "/search?keywords=notes", { key: b });
    expect(forA.json.toolkits[0]).toMatchObject({ slug: "notes", connected: true });
    expect(forB.json.toolkits[0]).toMatchObject({ slug: "notes", connected: false });
  });

  it("B cannot read A's staged file, nor pass it to a tool", async () => {
    expect((await h.call("GET", `/files/${fileA}`, { key: a })).text).toBe("agent a's file");
    const res = await h.call("GET", `/files/${fileA}`, { key: b });
    expectError(res, 404, "not_found");
    expect(res.text).not.toContain("agent a's file");
    const run = await h.call("POST", "/execute", { key: b, body: { tool: "CALC_READ_FILE", arguments: { file: fileA } } });
    expectError(run, 400, "invalid_request", /arguments\.file/);
    const own = await h.call("POST", "/execute", { key: a, body: { tool: "CALC_READ_FILE", arguments: { file: fileA } } });
    expect(own.json).toMatchObject({ successful: true, data: { text: "agent a's file", size: 14, contentType: "text/plain" } });
  });

  it("a file staged from a binary proxy answer belongs to the caller only", async () => {
    await h.connect(b, "notes", { token: CREDENTIALS.bearerToken2 });
    const res = await h.call("POST", "/proxy", {
      key: b,
      body: { toolkit: "notes", method: "GET", url: `${h.upstream.origin}/v1/binary` },
    });
    const key = res.json.data.stagingKey;
    expect(key).toMatch(/^stg_/);
    expect((await h.call("GET", `/files/${key}`, { key: b })).status).toBe(200);
    expectError(await h.call("GET", `/files/${key}`, { key: a }), 404, "not_found");
  });
});

describe("another workspace", () => {
  it("its service key sees none of this workspace's connections, even for the same agent id", async () => {
    const all = await h.call("GET", "/connections", { key: otherService });
    expect(all.status).toBe(200);
    expect(all.json.connections).toEqual([]);
    const sameAgent = await h.call("GET", "/connections", { key: otherService, agentId: "agent-a" });
    expect(sameAgent.json.connections).toEqual([]);
  });

  it("its service key cannot use, delete or filter by this workspace's connection", async () => {
    const as = { key: otherService, agentId: "agent-a" };
    expectError(
      await h.call("POST", "/execute", { ...as, body: { tool: "NOTES_ECHO", arguments: {}, connection_id: connA } }),
      404,
      "not_found",
    );
    expectError(await h.call("DELETE", `/connections/${connA}`, as), 404, "not_found");
    expectError(await h.call("GET", `/toolkit/notes?connection_id=${connA}`, { key: otherService }), 404, "not_found");
    expectError(await h.call("GET", `/files/${fileA}`, as), 404, "not_found");
    expect(ids(await h.call("GET", "/connections", { key: a }))).toEqual([connA]);
  });

  it("an agent key of the same agent id in another workspace is another agent", async () => {
    const twin = (await h.issueAgentKey("agent-a", "ws2")).key;
    expect((await h.call("GET", "/connections", { key: twin })).json.connections).toEqual([]);
    expectError(await h.call("POST", "/execute", { key: twin, body: { tool: "NOTES_ECHO", arguments: {} } }), 409, "connection_required");
  });
});
