import type { Awaitable } from "../core/principal.js";
import { selectPage } from "./paging.js";
import { stopReadsWith } from "./stop-reads.js";
import type { ApiKeyRecord, AuthorizationRecord, ConnectionRecord, ListPage, ListPosition, ToolsStore } from "./types.js";

/**
 * The few operations a key-value or document database gives, from which `keyValueStore` builds a
 * whole `ToolsStore`. Keys and values are strings. Each operation is atomic on its own, across
 * every process sharing the data; nothing else is asked (no transactions, no clock).
 */
export interface KeyValuePrimitives {
  /** The value stored under `key`, or null. */
  get(key: string): Awaitable<string | null>;
  /** Stores `value` under `key` only if the key is absent. True when it stored it. */
  insert(key: string, value: string): Awaitable<boolean>;
  /** Replaces the value under `key` only if it is exactly `expected`. True when it replaced it. */
  replace(key: string, expected: string, value: string): Awaitable<boolean>;
  /** Deletes `key`; with `expected`, only if its value is exactly that. True when it deleted it. */
  delete(key: string, expected?: string): Awaitable<boolean>;
  /** Every key that starts with `prefix`, with its value, in any order. */
  list(prefix: string): Awaitable<Array<[key: string, value: string]>>;
  /** Optional: releases connections and handles. */
  close?(): Awaitable<void>;
}

/**
 * A `ToolsStore` made of `KeyValuePrimitives`: the records, the uniqueness of ids, key hashes and
 * state hashes, compare-and-set updates, single consumption of OAuth states, leases and sweeps are
 * all derived here, so a store on a new database is the five primitives. Records are JSON (dates
 * kept as dates); every key part is percent-encoded, so ids of any characters stay apart.
 *
 * Listings read an index (a key per record, whose value is its creation time), order it, and read
 * the records of one page only. `list` has no range, so a page holds the index keys of the whole
 * listing (tens of bytes each) besides its own records.
 */
export function keyValueStore(kv: KeyValuePrimitives): ToolsStore {
  const read = async <T>(key: string): Promise<{ raw: string; record: T } | null> => {
    const raw = await kv.get(key);
    return raw === null ? null : { raw, record: decode<T>(raw) };
  };
  /** Applies `change` to the record under `key` with compare-and-set, re-reading on a conflict. */
  const update = async <T, R>(key: string, change: (current: T) => { next: T; result: R } | { result: R }): Promise<R | null> => {
    for (;;) {
      const current = await read<T>(key);
      if (!current) return null;
      const outcome = change(current.record);
      if (!("next" in outcome) || (await kv.replace(key, current.raw, encode(outcome.next)))) return outcome.result;
    }
  };
  /**
   * One page of the records an index lists (`keep` filters them further), in listing order. An
   * index entry written before paging has an empty value: its record gives the time, and the entry
   * is filled in for the next listing.
   */
  const byIndex = async <T extends ListPosition>(
    prefix: string,
    recordKey: (id: string) => string,
    page: ListPage,
    keep: (record: T) => boolean = () => true,
  ): Promise<T[]> => {
    const entries = await Promise.all(
      (await kv.list(prefix)).map(async ([key, value]) => {
        const id = decodeURIComponent(key.slice(key.lastIndexOf("/") + 1));
        if (value !== "") return { id, createdAt: new Date(Number(value)) };
        const found = await read<T>(recordKey(id));
        if (found) await kv.replace(key, "", String(found.record.createdAt.getTime()));
        return { id, createdAt: found?.record.createdAt ?? new Date(0) };
      }),
    );
    const ordered = selectPage(entries, { after: page.after });
    const records: T[] = [];
    for (let next = 0; next < ordered.length && records.length < (page.limit ?? Infinity); ) {
      const chunk = ordered.slice(next, next + (page.limit === undefined ? ordered.length : page.limit - records.length));
      next += chunk.length;
      for (const found of await Promise.all(chunk.map((entry) => read<T>(recordKey(entry.id))))) {
        if (found && keep(found.record)) records.push(found.record);
      }
    }
    return records;
  };
  const insertUnique = async (key: string, value: string, what: string) => {
    if (!(await kv.insert(key, value))) throw new Error(`${what} already exists.`);
  };

  const store: ToolsStore = {
    // `this`, not this store: a wrapper made by spreading it (`{ ...store, getConnection }`) gets
    // a view of itself, its own methods included.
    withSignal(signal) {
      return stopReadsWith(this, signal);
    },
    async createApiKey(record) {
      await insertUnique(k("key-hash", record.hash), record.id, "An API key with this hash");
      if (!(await kv.insert(k("key", record.id), encode(record)))) {
        await kv.delete(k("key-hash", record.hash), record.id);
        throw new Error("An API key with this id already exists.");
      }
      await kv.insert(k("key-by-workspace", record.workspaceId, record.id), String(record.createdAt.getTime()));
    },
    async getApiKeyByHash(hash) {
      const id = await kv.get(k("key-hash", hash));
      return id === null ? null : ((await read<ApiKeyRecord>(k("key", id)))?.record ?? null);
    },
    listApiKeys: (workspaceId, page = {}) => byIndex<ApiKeyRecord>(`${k("key-by-workspace", workspaceId)}/`, (id) => k("key", id), page),
    async revokeApiKey(id, at) {
      const revoked = await update<ApiKeyRecord, boolean>(k("key", id), (key) =>
        key.revokedAt ? { result: false } : { next: { ...key, revokedAt: at }, result: true },
      );
      return revoked ?? false;
    },

    async createConnection(record) {
      await insertUnique(k("connection", record.id), encode(record), "A connection with this id");
      await kv.insert(k("connection-by-owner", record.workspaceId, record.agentId, record.id), String(record.createdAt.getTime()));
    },
    getConnection: async (id) => (await read<ConnectionRecord>(k("connection", id)))?.record ?? null,
    async listConnections({ workspaceId, agentId, toolkit, ...page }) {
      const prefix = agentId === undefined ? k("connection-by-owner", workspaceId) : k("connection-by-owner", workspaceId, agentId);
      return byIndex<ConnectionRecord>(
        `${prefix}/`,
        (id) => k("connection", id),
        page,
        (c) =>
          c.workspaceId === workspaceId &&
          (agentId === undefined || c.agentId === agentId) &&
          (toolkit === undefined || c.toolkit === toolkit),
      );
    },
    updateConnection: (id, patch, expectedVersion) =>
      update<ConnectionRecord, ConnectionRecord | null>(k("connection", id), (current) => {
        if (expectedVersion !== undefined && current.version !== expectedVersion) return { result: null };
        const next = { ...current, ...definedFields(patch), version: current.version + 1 };
        return { next, result: next };
      }),
    async deleteConnection(id) {
      const current = await read<ConnectionRecord>(k("connection", id));
      if (!current || !(await kv.delete(k("connection", id), current.raw))) return false;
      await kv.delete(k("connection-by-owner", current.record.workspaceId, current.record.agentId, id));
      return true;
    },

    async createAuthorization(record) {
      await insertUnique(k("state", record.stateHash), record.id, "An authorization with this state hash");
      if (!(await kv.insert(k("authorization", record.id), encode(record)))) {
        await kv.delete(k("state", record.stateHash), record.id);
        throw new Error("An authorization with this id already exists.");
      }
    },
    getAuthorization: async (id) => (await read<AuthorizationRecord>(k("authorization", id)))?.record ?? null,
    async consumeAuthorization(stateHash, now) {
      const id = await kv.get(k("state", stateHash));
      if (id === null) return null;
      return update<AuthorizationRecord, AuthorizationRecord | null>(k("authorization", id), (current) => {
        if (current.consumedAt || current.expiresAt.getTime() <= now.getTime()) return { result: null };
        const next = { ...current, consumedAt: now };
        return { next, result: next };
      });
    },
    updateAuthorization: (id, patch) =>
      update<AuthorizationRecord, AuthorizationRecord>(k("authorization", id), (current) => {
        const next = { ...current, ...definedFields(patch) };
        return { next, result: next };
      }),

    async acquireLease(name, holder, ttlMs, now) {
      const key = k("lease", name);
      const lease = encode({ holder, expiresAt: now.getTime() + ttlMs });
      for (;;) {
        const current = await read<{ holder: string; expiresAt: number }>(key);
        if (!current) {
          if (await kv.insert(key, lease)) return true;
          continue;
        }
        if (current.record.holder !== holder && current.record.expiresAt > now.getTime()) return false;
        if (await kv.replace(key, current.raw, lease)) return true;
      }
    },
    async releaseLease(name, holder) {
      const current = await read<{ holder: string }>(k("lease", name));
      if (current?.record.holder === holder) await kv.delete(k("lease", name), current.raw);
    },

    async sweep(now) {
      let removed = 0;
      for (const [key, raw] of await kv.list("authorization/")) {
        const authorization = decode<AuthorizationRecord>(raw);
        if (authorization.expiresAt.getTime() > now.getTime() || !(await kv.delete(key, raw))) continue;
        await kv.delete(k("state", authorization.stateHash), authorization.id);
        removed++;
      }
      for (const [key, raw] of await kv.list("lease/")) {
        if (decode<{ expiresAt: number }>(raw).expiresAt <= now.getTime() && (await kv.delete(key, raw))) removed++;
      }
      return removed;
    },
    close: () => kv.close?.(),
  };
  return store;
}

/** A key of the store's layout: a kind, then each part percent-encoded, joined by `/`. */
function k(kind: string, ...parts: string[]): string {
  return [kind, ...parts.map(encodeURIComponent)].join("/");
}

/** JSON with dates kept as dates (`{"$date": milliseconds}`). */
function encode(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, inner) {
    const original = this[key];
    return original instanceof Date ? { $date: original.getTime() } : inner;
  });
}

function decode<T>(text: string): T {
  return JSON.parse(text, (_key, value) =>
    value !== null && typeof value === "object" && typeof value.$date === "number" && Object.keys(value).length === 1
      ? new Date(value.$date)
      : value,
  ) as T;
}

function definedFields<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
}
