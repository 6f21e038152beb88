import type { Kysely } from "kysely";
import { issueApiKey, revokeApiKey } from "../credentials/api-keys.js";
import type { ApiKeyRevocations } from "../credentials/revocations.js";
import { walkPages } from "../store/paging.js";
import { apiKeyRecord } from "../store/sql/rows.js";
import { DEFAULT_TABLE_PREFIX, type StoreDatabase, tableNames } from "../store/sql/schema.js";
import type { SqlToolsStore } from "../store/sql/store.js";
import type { ApiKeyRecord, ToolsStore } from "../store/types.js";
import { randomId } from "../util/encoding.js";

/** The workspace and agent of the key `serve` creates when its data has none. */
export const LOCAL_WORKSPACE = "local";
export const LOCAL_AGENT = "agent";

/**
 * The agent key `serve` prints once (and its id): created for workspace "local", agent "agent"
 * when that workspace has no unrevoked key yet, else null. Instances starting together against
 * one database take a lease first, so that only one of them creates it.
 */
export async function firstAgentKey(store: ToolsStore): Promise<{ key: string; id: string } | null> {
  const holder = randomId("serve_");
  const lease = "tools-proxy:first-agent-key";
  for (let attempt = 0; !(await store.acquireLease(lease, holder, 10_000, new Date())); attempt++) {
    if (attempt >= 100) return null; // another instance is at it; it prints the key
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  try {
    for await (const keys of walkPages((page) => store.listApiKeys(LOCAL_WORKSPACE, page))) {
      if (keys.some((key) => key.revokedAt === null)) return null;
    }
    const { key, record } = await issueApiKey(store, { workspaceId: LOCAL_WORKSPACE, agentId: LOCAL_AGENT });
    return { key, id: record.id };
  } finally {
    await Promise.resolve(store.releaseLease(lease, holder)).catch(() => {});
  }
}

/** `tools-proxy keys create`: a new agent key (or a service key, with `agent` null); the plaintext is returned once. */
export async function createKey(
  store: ToolsStore,
  workspaceId: string,
  agentId: string | null,
): Promise<{ key: string; record: ApiKeyRecord }> {
  return agentId === null ? issueApiKey(store, { kind: "service", workspaceId }) : issueApiKey(store, { workspaceId, agentId });
}

/**
 * `tools-proxy keys list`: the keys of one workspace (read from the store a page at a time), or of
 * every workspace, oldest first. The store interface lists one workspace at a time, so "every
 * workspace" reads the table of the SQL store that the admin commands open.
 */
export async function listKeys(store: SqlToolsStore, workspaceId: string | undefined): Promise<ApiKeyRecord[]> {
  if (workspaceId !== undefined) {
    const keys: ApiKeyRecord[] = [];
    for await (const page of walkPages((bounds) => store.listApiKeys(workspaceId, bounds))) keys.push(...page);
    return keys;
  }
  const rows = await keysTable(store).selectAll().orderBy("created_at").orderBy("id").execute();
  return rows.map(apiKeyRecord);
}

/**
 * `tools-proxy keys revoke`: "revoked" when it was active, "already" with the key when it was
 * revoked before, or null when there is no key with this id. Published on `revocations` (Redis)
 * when given, so that running servers drop the key from their caches at once.
 */
export async function revokeKey(
  store: SqlToolsStore,
  id: string,
  revocations?: ApiKeyRevocations,
): Promise<{ outcome: "revoked" | "already"; key: ApiKeyRecord } | null> {
  const revoked = await revokeApiKey(store, id, revocations ? { revocations } : {});
  const row = await keysTable(store).selectAll().where("id", "=", id).executeTakeFirst();
  return row ? { outcome: revoked ? "revoked" : "already", key: apiKeyRecord(row) } : null;
}

/** The store's API key table (the admin commands use the default table prefix). */
function keysTable(store: SqlToolsStore) {
  return (store.db as Kysely<StoreDatabase>).selectFrom(tableNames(DEFAULT_TABLE_PREFIX).apiKeys);
}
