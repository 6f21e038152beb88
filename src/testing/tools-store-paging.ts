import { describe, expect, it } from "vitest";
import type { ApiKeyRecord, ConnectionRecord, ListPage, ListPosition, ToolsStore } from "../store/types.js";
import { apiKey, connectionRecord, randomId } from "./store-records.js";

/** Reads a whole listing through pages of `limit`, as the handler does, and returns every page. */
async function walk<T extends ListPosition>(list: (page: ListPage) => Promise<T[]> | T[], limit: number): Promise<T[][]> {
  const pages: T[][] = [];
  let after: ListPosition | undefined;
  for (let guard = 0; guard < 1000; guard++) {
    const page = await list({ limit, ...(after ? { after } : {}) });
    expect(page.length, `a page holds at most limit (${limit}) records`).toBeLessThanOrEqual(limit);
    if (page.length === 0) return pages;
    pages.push(page);
    const last = page[page.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
  throw new Error("paging never ended: the store keeps answering records after the last one it gave");
}

const ids = (records: Array<{ id: string }>) => records.map((r) => r.id);
const ms = (n: number) => new Date(Date.UTC(2024, 5, 1, 0, 0, 0, n));

/**
 * The paging clauses of the `ToolsStore` contract (`ListPage`): keyset pages in (createdAt, id)
 * order. `get` gives the suite's current instances: `store`, and `other` over the same data.
 * The order of ids within one millisecond is the store's own (a SQL store's collation); the suite
 * checks that it is one order, that pages follow it, and that no record repeats or goes missing.
 */
export function listingPagesConformance(get: () => { store: ToolsStore; other: ToolsStore }): void {
  describe("listing pages (keyset on createdAt, id)", () => {
    /** Connections of one new workspace: three agents' worth, six of them in one millisecond. */
    async function seed(count = 11) {
      const { store } = get();
      const workspaceId = randomId("ws");
      const agents = [randomId("agent"), randomId("agent")];
      // Ids that sort differently by case, by length and as numbers, in one millisecond; created out of order.
      const suffixes = ["B", "a", "10", "9", "A", "b"];
      const records = Array.from({ length: count }, (_, i) =>
        connectionRecord({
          id: i < suffixes.length ? `${randomId("conn")}_${suffixes[i]}` : randomId("conn"),
          workspaceId,
          agentId: agents[i % 2]!,
          toolkit: i % 3 === 0 ? "beta" : "alpha",
          createdAt: i < suffixes.length ? ms(500) : ms(1000 - i),
        }),
      );
      for (const record of [...records].reverse()) await store.createConnection(record);
      return { workspaceId, agents, records };
    }

    it("pages a workspace's connections: at most limit each, every record once, in the order of the whole listing", async () => {
      const { store, other } = get();
      const { workspaceId, records } = await seed();
      const whole = await other.listConnections({ workspaceId });
      expect(ids(whole).sort(), "without limit, every connection is listed").toEqual(ids(records).sort());
      const times = whole.map((c) => c.createdAt.getTime());
      expect(times, "oldest first").toEqual([...times].sort((a, b) => a - b));
      for (const limit of [1, 2, 3, 6, 11, 50]) {
        const pages = await walk((page) => store.listConnections({ workspaceId, ...page }), limit);
        expect(ids(pages.flat()), `pages of ${limit} give the whole listing, in its order, each record once`).toEqual(ids(whole));
        expect(
          pages.slice(0, -1).every((page) => page.length === limit),
          `every page but the last is full (limit ${limit})`,
        ).toBe(true);
      }
      expect(await store.listConnections({ workspaceId, limit: 4 }), "a page's records are whole").toEqual(whole.slice(0, 4));
    });

    it("orders records of the same millisecond by id, the same way on every call", async () => {
      const { store, other } = get();
      const { workspaceId } = await seed();
      const first = ids(await store.listConnections({ workspaceId }));
      expect(ids(await other.listConnections({ workspaceId })), "the order is stable across calls and instances").toEqual(first);
      const tied = (await store.listConnections({ workspaceId })).filter((c) => c.createdAt.getTime() === ms(500).getTime());
      // Each tied record's position picks exactly the tied records after it.
      for (const [i, record] of tied.entries()) {
        const after = { createdAt: record.createdAt, id: record.id };
        const rest = (await other.listConnections({ workspaceId, after, limit: 50 })).filter(
          (c) => c.createdAt.getTime() === ms(500).getTime(),
        );
        expect(ids(rest), `after the ${i + 1}th of six records in one millisecond come the ones after it`).toEqual(ids(tied.slice(i + 1)));
      }
    });

    it("pages an agent's connections, and one toolkit's, with the same cursor positions", async () => {
      const { store, other } = get();
      const { workspaceId, agents, records } = await seed();
      for (const filter of [
        { workspaceId, agentId: agents[0]! },
        { workspaceId, toolkit: "alpha" },
        { workspaceId, agentId: agents[1]!, toolkit: "beta" },
      ]) {
        const whole = await other.listConnections(filter);
        const expected = records.filter(
          (r) => (!("agentId" in filter) || r.agentId === filter.agentId) && (!("toolkit" in filter) || r.toolkit === filter.toolkit),
        );
        expect(ids(whole).sort(), `the filter ${JSON.stringify(Object.keys(filter))} lists its connections`).toEqual(ids(expected).sort());
        const pages = await walk((page) => store.listConnections({ ...filter, ...page }), 2);
        expect(ids(pages.flat()), `filtered pages give the filtered listing (${Object.keys(filter).join(", ")})`).toEqual(ids(whole));
      }
    });

    it("while records are inserted between pages, none repeats and none listed before is missed", async () => {
      const { store, other } = get();
      const { workspaceId, agents } = await seed();
      const before = ids(await store.listConnections({ workspaceId }));
      const seen: string[] = [];
      let after: ListPosition | undefined;
      const inserted: ConnectionRecord[] = [];
      for (let round = 0; round < 20; round++) {
        const page = await store.listConnections({ workspaceId, limit: 3, ...(after ? { after } : {}) });
        if (page.length === 0) break;
        seen.push(...ids(page));
        const last = page[page.length - 1]!;
        after = { createdAt: last.createdAt, id: last.id };
        // Between pages: one connection newer than all, one in the listing's past, one in the same millisecond as the position.
        const more = [
          connectionRecord({ workspaceId, agentId: agents[0]!, createdAt: ms(5000 + round) }),
          connectionRecord({ workspaceId, agentId: agents[1]!, createdAt: ms(round) }),
          connectionRecord({ workspaceId, agentId: agents[0]!, createdAt: last.createdAt }),
        ];
        if (round < 3) for (const record of more) await other.createConnection(record);
        if (round < 3) inserted.push(...more);
      }
      expect(new Set(seen).size, "no connection appears on two pages").toBe(seen.length);
      expect(
        before.filter((id) => !seen.includes(id)),
        "every connection that existed when paging began is listed",
      ).toEqual([]);
      const newer = inserted.filter((r) => r.createdAt.getTime() >= ms(5000).getTime());
      expect(
        ids(newer).filter((id) => !seen.includes(id)),
        "connections created after the position, newer than it, are listed",
      ).toEqual([]);
    });

    it("a position that is no record of the listing (deleted, or another workspace's) pages from just after it", async () => {
      const { store, other } = get();
      const { workspaceId } = await seed();
      const whole = await store.listConnections({ workspaceId });
      const deleted = whole[4]!;
      expect(await other.deleteConnection(deleted.id), "the record is deleted").toBe(true);
      const afterDeleted = await store.listConnections({ workspaceId, after: { createdAt: deleted.createdAt, id: deleted.id }, limit: 50 });
      expect(ids(afterDeleted), "after a deleted record come the records that followed it").toEqual(ids(whole.slice(5)));
      const foreign = { createdAt: ms(999), id: randomId("conn") };
      expect(
        ids(await other.listConnections({ workspaceId, after: foreign, limit: 50 })),
        "after a position of no record of this workspace come the later records of this workspace",
      ).toEqual(ids(whole.filter((c) => c.createdAt.getTime() > ms(999).getTime())));
      expect(
        await store.listConnections({ workspaceId, after: { createdAt: ms(10_000), id: "" }, limit: 5 }),
        "after the newest record, nothing",
      ).toEqual([]);
      expect(
        ids(await store.listConnections({ workspaceId, after: { createdAt: new Date(0), id: "" }, limit: 50 })),
        "after a position before every record, all of them",
      ).toEqual(ids(whole.filter((c) => c.id !== deleted.id)));
    });

    it("pages a workspace's API keys the same way", async () => {
      const { store, other } = get();
      const workspaceId = randomId("ws");
      const keys: ApiKeyRecord[] = Array.from({ length: 7 }, (_, i) =>
        apiKey({ workspaceId, id: `${randomId("key")}_${["Z", "a", "1", "10", "b", "2", "A"][i]}`, createdAt: ms(i < 4 ? 100 : 50 * i) }),
      );
      for (const key of [...keys].reverse()) await store.createApiKey(key);
      await store.createApiKey(apiKey());
      const whole = await other.listApiKeys(workspaceId);
      expect(ids(whole).sort(), "without a page, every key of the workspace").toEqual(ids(keys).sort());
      for (const limit of [1, 3, 7]) {
        const pages = await walk((page) => store.listApiKeys(workspaceId, page), limit);
        expect(ids(pages.flat()), `pages of ${limit} keys give the whole listing once, in order`).toEqual(ids(whole));
      }
      expect(await other.listApiKeys(randomId("ws"), { limit: 5 }), "a workspace without keys has an empty page").toEqual([]);
    });
  });
}
