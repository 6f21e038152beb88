import { selectPage } from "./paging.js";
import { stopReadsWith } from "./stop-reads.js";
import type { ApiKeyRecord, AuthorizationRecord, ConnectionRecord, ToolsStore } from "./types.js";

/**
 * The default `ToolsStore`: everything in this process's memory, lost on restart. It is a
 * complete implementation (it passes the conformance suite), suited to tests, demos and a single
 * process; use a persistent store to keep connections across restarts or share them between
 * processes.
 */
export function memoryStore(): ToolsStore {
  const keys = new Map<string, ApiKeyRecord>();
  const keyIdsByHash = new Map<string, string>();
  const connections = new Map<string, ConnectionRecord>();
  const authorizations = new Map<string, AuthorizationRecord>();
  const authorizationIdsByState = new Map<string, string>();
  const leases = new Map<string, { holder: string; expiresAt: number }>();

  const store: ToolsStore = {
    persistent: false,
    // `this`, not this store: a wrapper made by spreading it (`{ ...store, getConnection }`) gets
    // a view of itself, its own methods included.
    withSignal(signal) {
      return stopReadsWith(this, signal);
    },
    createApiKey(record) {
      if (keys.has(record.id) || keyIdsByHash.has(record.hash)) throw new Error(`API key ${record.id} already exists.`);
      keys.set(record.id, copy(record));
      keyIdsByHash.set(record.hash, record.id);
    },
    getApiKeyByHash(hash) {
      const id = keyIdsByHash.get(hash);
      return id ? copy(keys.get(id)!) : null;
    },
    listApiKeys(workspaceId, page) {
      const mine = [...keys.values()].filter((k) => k.workspaceId === workspaceId);
      return selectPage(mine, page).map((k) => copy(k));
    },
    revokeApiKey(id, at) {
      const key = keys.get(id);
      if (!key || key.revokedAt) return false;
      key.revokedAt = new Date(at);
      return true;
    },

    createConnection(record) {
      if (connections.has(record.id)) throw new Error(`Connection ${record.id} already exists.`);
      connections.set(record.id, copy(record));
    },
    getConnection(id) {
      const connection = connections.get(id);
      return connection ? copy(connection) : null;
    },
    listConnections(filter) {
      const matching = [...connections.values()].filter(
        (c) =>
          c.workspaceId === filter.workspaceId &&
          (filter.agentId === undefined || c.agentId === filter.agentId) &&
          (filter.toolkit === undefined || c.toolkit === filter.toolkit),
      );
      return selectPage(matching, filter).map((c) => copy(c));
    },
    updateConnection(id, patch, expectedVersion) {
      const current = connections.get(id);
      if (!current || (expectedVersion !== undefined && current.version !== expectedVersion)) return null;
      const next: ConnectionRecord = { ...current, ...definedFields(patch), version: current.version + 1 };
      connections.set(id, next);
      return copy(next);
    },
    deleteConnection(id) {
      return connections.delete(id);
    },

    createAuthorization(record) {
      if (authorizations.has(record.id) || authorizationIdsByState.has(record.stateHash)) {
        throw new Error(`Authorization ${record.id} already exists.`);
      }
      authorizations.set(record.id, copy(record));
      authorizationIdsByState.set(record.stateHash, record.id);
    },
    getAuthorization(id) {
      const authorization = authorizations.get(id);
      return authorization ? copy(authorization) : null;
    },
    consumeAuthorization(stateHash, now) {
      const id = authorizationIdsByState.get(stateHash);
      const authorization = id ? authorizations.get(id) : undefined;
      if (!authorization || authorization.consumedAt || authorization.expiresAt.getTime() <= now.getTime()) return null;
      authorization.consumedAt = new Date(now);
      return copy(authorization);
    },
    updateAuthorization(id, patch) {
      const authorization = authorizations.get(id);
      if (!authorization) return null;
      Object.assign(authorization, definedFields(patch));
      return copy(authorization);
    },

    acquireLease(name, holder, ttlMs, now) {
      const lease = leases.get(name);
      if (lease && lease.holder !== holder && lease.expiresAt > now.getTime()) return false;
      leases.set(name, { holder, expiresAt: now.getTime() + ttlMs });
      return true;
    },
    releaseLease(name, holder) {
      if (leases.get(name)?.holder === holder) leases.delete(name);
    },

    sweep(now) {
      let removed = 0;
      for (const [id, authorization] of authorizations) {
        if (authorization.expiresAt.getTime() <= now.getTime()) {
          authorizations.delete(id);
          authorizationIdsByState.delete(authorization.stateHash);
          removed++;
        }
      }
      for (const [name, lease] of leases) {
        if (lease.expiresAt <= now.getTime()) {
          leases.delete(name);
          removed++;
        }
      }
      return removed;
    },
  };
  return store;
}

/** A deep copy of the patch without its `undefined` fields: an undefined field leaves the stored value alone. */
function definedFields<T extends object>(patch: T): Partial<T> {
  return copy(Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined))) as Partial<T>;
}

/**
 * A copy of a record that shares nothing mutable with it, so a caller changing what it got never
 * changes what is stored. Records hold strings, numbers, booleans, null, Dates, arrays of strings
 * and maps of strings (`scopes`, `params`), one level deep; this copies exactly that, much faster
 * than `structuredClone`, which was a visible part of GET /connections.
 */
function copy<T extends object>(record: T): T {
  const out = { ...record } as Record<string, unknown>;
  for (const name in out) {
    const value = out[name];
    if (value === null || typeof value !== "object") continue;
    out[name] = value instanceof Date ? new Date(value.getTime()) : Array.isArray(value) ? value.slice() : { ...value };
  }
  return out as T;
}
