import type { Awaitable } from "../core/principal.js";
import type { ConnectionFilter, ConnectionRecord, ListPage, ListPosition, ToolsStore } from "./types.js";

/** One page of a listing, and whether another follows it. */
export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

/** Orders two records of a listing: by `createdAt`, then by `id` (code-unit order, as `<` and SQL's binary collations). */
export function comparePositions(a: ListPosition, b: ListPosition): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The records of `records` that a `ListPage` selects, in listing order: what a store returns for it. */
export function selectPage<T extends ListPosition>(records: Iterable<T>, page: ListPage = {}): T[] {
  const { after, limit } = page;
  const selected = [...records].filter((r) => !after || comparePositions(r, after) > 0).sort(comparePositions);
  return limit === undefined ? selected : selected.slice(0, limit);
}

/**
 * Reads one page through a store listing: asks for `limit + 1` records after `after`, and answers
 * `limit` of them and whether there were more. The store's order is kept (a SQL store orders ids
 * by its collation). A store written before paging ignores `limit` and `after`: it answers more
 * than it was asked, or the record at `after` again. Its answer is then cut by `selectPage`, so
 * the page is still right, and `onUnpaged` is told.
 */
export async function readPage<T extends ListPosition>(
  list: (page: Required<Pick<ListPage, "limit">> & ListPage) => Awaitable<T[]>,
  page: { limit: number; after?: ListPosition | undefined },
  onUnpaged?: () => void,
): Promise<Page<T>> {
  const { after } = page;
  const asked = { limit: page.limit + 1, ...(after ? { after } : {}) };
  let rows = await list(asked);
  if (rows.length > asked.limit || (after && rows.some((row) => row.id === after.id))) {
    onUnpaged?.();
    rows = selectPage(rows, asked);
  }
  return { items: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

/**
 * Every record of a listing, one page at a time, so that no more than `pageSize` records are held
 * at once: for a caller that needs to look at all of them (say, to find one) without loading them
 * together.
 */
export async function* walkPages<T extends ListPosition>(
  list: (page: Required<Pick<ListPage, "limit">> & ListPage) => Awaitable<T[]>,
  pageSize = 200,
): AsyncGenerator<T[]> {
  let after: ListPosition | undefined;
  for (;;) {
    const { items, hasMore } = await readPage(list, { limit: pageSize, after });
    if (items.length) yield items;
    if (!hasMore) return;
    const last = items[items.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

/** Every connection of `store` matching `filter`, a page at a time (see `walkPages`). */
export function eachConnectionPage(
  store: Pick<ToolsStore, "listConnections">,
  filter: Omit<ConnectionFilter, "limit" | "after">,
): AsyncGenerator<ConnectionRecord[]> {
  return walkPages((bounds) => store.listConnections({ ...filter, ...bounds }));
}
