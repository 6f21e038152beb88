/**
 * GET /connections a page at a time: `limit` and `cursor` in, `nextCursor` out only when another
 * page follows; the cursor is signed and bound to the caller's listing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConnectionRecord, memoryStore, type ToolsStore } from "../../src/index.js";
import { createHarness, expectError, type Harness } from "../support/harness.js";

let h: Harness;
let agentA: string;
let agentB: string;
let service: string;
let otherService: string;
/** Every connection of workspace ws1, as the store lists it (oldest first). */
let all: ConnectionRecord[];

function record(n: number, agentId: string, toolkit: string, workspaceId = "ws1"): ConnectionRecord {
  // Ten connections per millisecond, so that many pages start and end inside one millisecond.
  const createdAt = new Date(Date.UTC(2025, 0, 1, 0, 0, 0, Math.floor(n / 10)));
  return {
    id: `conn_p${String(n).padStart(3, "0")}_${Math.random().toString(36).slice(2, 8)}`,
    workspaceId,
    agentId,
    toolkit,
    label: `${toolkit} ${n}`,
    remoteUser: "",
    status: n % 7 === 0 ? "revoked" : "active",
    statusReason: null,
    credentials: "v1.not-read-by-a-listing",
    scopes: [],
    params: {},
    credentialsExpireAt: null,
    createdAt,
    updatedAt: createdAt,
    version: 1,
  };
}

/** Every page of GET /connections from `query`, following nextCursor. */
async function walk(key: string, query: string, agentId?: string) {
  const pages: Array<{ connections: Array<{ id: string }>; nextCursor?: string }> = [];
  let cursor: string | undefined;
  do {
    const res = await h.call("GET", `/connections?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key, agentId });
    expect(res.status, res.text).toBe(200);
    pages.push(res.json);
    cursor = res.json.nextCursor;
  } while (cursor && pages.length < 500);
  return pages;
}

beforeAll(async () => {
  h = await createHarness();
  agentA = (await h.issueAgentKey("agent-a")).key;
  agentB = (await h.issueAgentKey("agent-b")).key;
  service = (await h.issueServiceKey("ws1")).key;
  otherService = (await h.issueServiceKey("ws2")).key;
  // agent-a: 3 connections; agent-b: 117 over two toolkits, created out of order.
  const records = [
    ...[0, 1, 2].map((n) => record(n, "agent-a", "notes")),
    ...Array.from({ length: 117 }, (_, i) => record(i + 3, "agent-b", i % 2 ? "notes" : "acme")),
  ];
  for (const r of [...records].reverse()) await h.store.createConnection(r);
  await h.store.createConnection(record(500, "agent-z", "notes", "ws2"));
  all = await h.store.listConnections({ workspaceId: "ws1" });
});
afterAll(async () => {
  h.assertNoLeaks();
  await h.close();
});

describe("GET /connections pages", () => {
  it("an agent with fewer connections than a page gets { connections } alone, as before paging", async () => {
    const res = await h.call("GET", "/connections", { key: agentA });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.json)).toEqual(["connections"]);
    expect(res.json.connections.map((c: { id: string }) => c.id)).toEqual(all.filter((c) => c.agentId === "agent-a").map((c) => c.id));
  });

  it("a page holds 50 by default, and nextCursor leads through every connection once, oldest first", async () => {
    const first = await h.call("GET", "/connections", { key: service });
    expect(first.json.connections).toHaveLength(50);
    expect(typeof first.json.nextCursor).toBe("string");
    for (const [query, size] of [
      ["limit=7", 7],
      ["limit=1", 1],
      ["limit=200", 200],
      ["", 50],
    ] as const) {
      const pages = await walk(service, query);
      expect(
        pages.flatMap((p) => p.connections.map((c) => c.id)),
        `limit ${size}: every connection once, in order`,
      ).toEqual(all.map((c) => c.id));
      expect(pages.every((p) => p.connections.length <= size)).toBe(true);
      expect(pages.at(-1)!.nextCursor, "the last page has no nextCursor").toBeUndefined();
      expect(pages.slice(0, -1).every((p) => p.connections.length === size)).toBe(true);
    }
  });

  it("pages one agent's connections to one toolkit with the filter kept in the cursor", async () => {
    const pages = await walk(agentB, "toolkit=notes&limit=9");
    const expected = all.filter((c) => c.agentId === "agent-b" && c.toolkit === "notes").map((c) => c.id);
    expect(pages.flatMap((p) => p.connections.map((c) => c.id))).toEqual(expected);
  });

  it("connections created between pages appear once, and none listed before goes missing", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let round = 0;
    do {
      const res = await h.call("GET", `/connections?limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key: agentB });
      seen.push(...res.json.connections.map((c: { id: string }) => c.id));
      cursor = res.json.nextCursor;
      if (round++ === 1) await h.store.createConnection({ ...record(900, "agent-b", "acme"), createdAt: new Date() });
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(all.filter((c) => c.agentId === "agent-b" && !seen.includes(c.id))).toEqual([]);
    expect(seen.some((id) => id.startsWith("conn_p900_"))).toBe(true);
  });

  it.each([
    ["0", /limit: must be a whole number from 1 to 200/],
    ["201", /limit.*at most 200/],
    ["ten", /limit/],
    ["1e1", /limit/],
  ])("limit=%s is a 400 naming limit", async (limit, message) => {
    expectError(await h.call("GET", `/connections?limit=${limit}`, { key: service }), 400, "invalid_request", message);
  });
});

describe("GET /connections refuses a cursor it did not issue for this listing", () => {
  const firstCursor = async (key: string, query = "limit=2", agentId?: string) =>
    (await h.call("GET", `/connections?${query}`, { key, agentId })).json.nextCursor as string;
  const withCursor = (key: string, cursor: string, query = "limit=2", agentId?: string) =>
    h.call("GET", `/connections?${query}&cursor=${encodeURIComponent(cursor)}`, { key, agentId });

  it("an edited cursor: 400, repeat without a cursor", async () => {
    const cursor = await firstCursor(service);
    const [payload, tag] = cursor.split(".");
    const edited = `${payload!.slice(0, -2)}${payload!.endsWith("A") ? "B" : "A"}${payload!.slice(-1)}.${tag}`;
    expectError(await withCursor(service, edited), 400, "invalid_request", /not issued by this server.*without a cursor/);
    expectError(await withCursor(service, "garbage"), 400, "invalid_request", /malformed/);
    expectError(await withCursor(service, `${payload}.${tag}.x`), 400, "invalid_request", /malformed/);
  });

  it("another workspace's, another agent's, another filter's or another route's cursor: 400", async () => {
    const workspaceCursor = await firstCursor(service);
    const agentCursor = await firstCursor(agentB);
    const foreign = /another query or filter.*without a cursor/;
    expectError(await withCursor(otherService, workspaceCursor), 400, "invalid_request", foreign);
    expectError(await withCursor(agentA, agentCursor), 400, "invalid_request", foreign);
    expectError(await withCursor(service, agentCursor), 400, "invalid_request", foreign);
    expectError(await withCursor(agentB, agentCursor, "limit=2&toolkit=acme"), 400, "invalid_request", foreign);
    expectError(await withCursor(service, workspaceCursor, "limit=2", "agent-b"), 400, "invalid_request", foreign);
    const searchCursor = (await h.call("GET", "/search?limit=1", { key: service })).json.nextCursor as string;
    expectError(await withCursor(service, searchCursor), 400, "invalid_request", foreign);
  });

  it("a cursor of another server (another secret): 400", async () => {
    const other = await createHarness({ secret: `another-secret-${"x".repeat(32)}` });
    try {
      const key = (await other.issueServiceKey("ws1")).key;
      for (const r of all.slice(0, 5)) await other.store.createConnection(r);
      const cursor = (await other.call("GET", "/connections?limit=2", { key })).json.nextCursor as string;
      expectError(await withCursor(service, cursor), 400, "invalid_request", /not issued by this server/);
    } finally {
      await other.close();
    }
  });
});

describe("a store written before paging (it ignores limit and after)", () => {
  it("still gives the right pages, and the handler warns once", async () => {
    const inner = memoryStore();
    const store: ToolsStore = {
      ...inner,
      listConnections: ({ limit: _limit, after: _after, ...filter }) => inner.listConnections(filter),
    };
    const old = await createHarness({ store });
    try {
      const key = (await old.issueServiceKey("ws1")).key;
      for (const r of all.slice(0, 30)) await inner.createConnection(r);
      const pages: string[] = [];
      let cursor: string | undefined;
      do {
        const res = await old.call("GET", `/connections?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key });
        pages.push(...res.json.connections.map((c: { id: string }) => c.id));
        cursor = res.json.nextCursor;
      } while (cursor);
      expect(pages).toEqual(all.slice(0, 30).map((c) => c.id));
      expect(old.logs.filter((l) => l.message.includes("ignores limit and after"))).toHaveLength(1);
    } finally {
      await old.close();
    }
  });
});

describe("GET /search's connected flag beyond one page of connections", () => {
  it("a service key over a workspace of more connections than a page sees every connected toolkit", async () => {
    const big = await createHarness();
    try {
      const key = (await big.issueServiceKey("ws9")).key;
      // 250 connections to acme, then one active to notes and one revoked to vault, the newest.
      for (let n = 0; n < 250; n++) await big.store.createConnection({ ...record(n, `agent-${n % 5}`, "acme", "ws9"), status: "active" });
      await big.store.createConnection({ ...record(990, "agent-1", "notes", "ws9"), status: "active" });
      await big.store.createConnection({ ...record(991, "agent-1", "vault", "ws9"), status: "revoked" });
      const res = await big.call("GET", "/search?limit=200", { key });
      const connected = Object.fromEntries(res.json.toolkits.map((t: { slug: string; connected: boolean }) => [t.slug, t.connected]));
      expect(connected).toMatchObject({ acme: true, notes: true, vault: false });
    } finally {
      await big.close();
    }
  });
});
