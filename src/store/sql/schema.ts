import type { ColumnType } from "kysely";

/**
 * Milliseconds since the Unix epoch, stored as a 64-bit integer in every dialect: exact to the
 * millisecond, and free of time-zone settings. PostgreSQL's driver reads it back as a string.
 */
export type Millis = ColumnType<number | string | bigint, number, number>;
type MillisOrNull = ColumnType<number | string | bigint | null, number | null, number | null>;
/** A 32-bit integer; some drivers read it back as a string or bigint. */
type Integer = ColumnType<number | string | bigint, number, number>;

/** `api_keys`: one row per API key; only the key's SHA-256 hash is stored. */
export interface ApiKeysTable {
  id: string;
  hash: string;
  kind: string;
  workspace_id: string;
  agent_id: string | null;
  hint: string;
  created_at: Millis;
  revoked_at: MillisOrNull;
}

/** `connections`: `scopes` and `params` hold JSON text; `credentials` is already encrypted. */
export interface ConnectionsTable {
  id: string;
  workspace_id: string;
  agent_id: string;
  toolkit: string;
  label: string;
  remote_user: string;
  status: string;
  status_reason: string | null;
  credentials: string;
  scopes: string;
  params: string;
  credentials_expire_at: MillisOrNull;
  created_at: Millis;
  updated_at: Millis;
  version: Integer;
}

/** `authorizations`: started OAuth flows, by the hash of their `state`. */
export interface AuthorizationsTable {
  id: string;
  state_hash: string;
  workspace_id: string;
  agent_id: string;
  toolkit: string;
  label: string | null;
  return_url: string | null;
  secrets: string;
  status: string;
  connection_id: string | null;
  error: string | null;
  created_at: Millis;
  expires_at: Millis;
  consumed_at: MillisOrNull;
}

/** `leases`: one row per held lease; `expires_at` in epoch milliseconds, on the caller's clock. */
export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: Millis;
}

/** The tables as Kysely sees them, before the prefix. */
export interface StoreDatabase {
  api_keys: ApiKeysTable;
  connections: ConnectionsTable;
  authorizations: AuthorizationsTable;
  leases: LeasesTable;
}

/** The default table prefix: the store's tables sit beside an application's own. */
export const DEFAULT_TABLE_PREFIX = "tools_proxy_";

/**
 * The real table names for a prefix. Each is typed as its unprefixed name, so that Kysely checks
 * columns against `StoreDatabase` while the SQL names the prefixed table. Queries name columns
 * without a table qualifier, so only the table reference carries the prefix.
 */
export function tableNames(prefix: string) {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(prefix) && prefix !== "") {
    throw new TypeError(
      `tablePrefix must be letters, digits and "_" (at most 40, not starting with a digit), such as "${DEFAULT_TABLE_PREFIX}".`,
    );
  }
  return {
    apiKeys: `${prefix}api_keys` as "api_keys",
    connections: `${prefix}connections` as "connections",
    authorizations: `${prefix}authorizations` as "authorizations",
    leases: `${prefix}leases` as "leases",
    migrations: `${prefix}migrations`,
    migrationLock: `${prefix}migrations_lock`,
  };
}

export type TableNames = ReturnType<typeof tableNames>;

/**
 * The names of the indexes the listings read, for a prefix (valid: `tableNames` checks it). The
 * migrations create them under these names and, on MySQL/MariaDB, the listings in (created_at, id)
 * order name theirs in `FORCE INDEX` (see `records.ts`).
 */
export function listingIndexNames(prefix: string) {
  return {
    /** 0001: an agent's connections to one toolkit, (workspace_id, agent_id, toolkit, created_at). */
    connectionsByAgent: `${prefix}conn_by_agent`,
    /** 0001: a workspace's connections to one toolkit, (workspace_id, toolkit, created_at). */
    connectionsByToolkit: `${prefix}conn_by_toolkit`,
    /** 0002: an agent's connections, (workspace_id, agent_id, created_at, id). */
    connectionsAgentOrder: `${prefix}conn_agent_order`,
    /** 0002: a workspace's connections, (workspace_id, created_at, id). */
    connectionsWorkspaceOrder: `${prefix}conn_workspace_order`,
    /** 0002: a workspace's API keys, (workspace_id, created_at, id). */
    apiKeysWorkspaceOrder: `${prefix}keys_workspace_order`,
  };
}

/** Reads a stored millisecond count, whatever type the driver gave it. */
export function toDate(value: number | string | bigint): Date {
  return new Date(Number(value));
}

/** Like `toDate`, keeping null. */
export function toDateOrNull(value: number | string | bigint | null): Date | null {
  return value === null ? null : toDate(value);
}
