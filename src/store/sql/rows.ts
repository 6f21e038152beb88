import type { Selectable } from "kysely";
import type { ApiKeyRecord, AuthorizationPatch, AuthorizationRecord, ConnectionPatch, ConnectionRecord } from "../types.js";
import { type ApiKeysTable, type AuthorizationsTable, type ConnectionsTable, toDate, toDateOrNull } from "./schema.js";

/** Row ↔ record conversions. Rows are snake_case, dates are epoch milliseconds, arrays JSON text. */

export function apiKeyRow(record: ApiKeyRecord) {
  return {
    id: record.id,
    hash: record.hash,
    kind: record.kind,
    workspace_id: record.workspaceId,
    agent_id: record.agentId,
    hint: record.hint,
    created_at: record.createdAt.getTime(),
    revoked_at: record.revokedAt?.getTime() ?? null,
  };
}

export function apiKeyRecord(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: row.id,
    hash: row.hash,
    kind: row.kind as ApiKeyRecord["kind"],
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    hint: row.hint,
    createdAt: toDate(row.created_at),
    revokedAt: toDateOrNull(row.revoked_at),
  };
}

export function connectionRow(record: ConnectionRecord) {
  return {
    id: record.id,
    workspace_id: record.workspaceId,
    agent_id: record.agentId,
    toolkit: record.toolkit,
    label: record.label,
    remote_user: record.remoteUser,
    status: record.status,
    status_reason: record.statusReason,
    credentials: record.credentials,
    scopes: JSON.stringify(record.scopes),
    params: JSON.stringify(record.params),
    credentials_expire_at: record.credentialsExpireAt?.getTime() ?? null,
    created_at: record.createdAt.getTime(),
    updated_at: record.updatedAt.getTime(),
    version: record.version,
  };
}

/** The columns a patch sets; fields that are `undefined` are left out, so the stored value stays. */
export function connectionPatchRow(patch: ConnectionPatch) {
  const row: Partial<{
    label: string;
    remote_user: string;
    status: string;
    status_reason: string | null;
    credentials: string;
    scopes: string;
    params: string;
    credentials_expire_at: number | null;
    updated_at: number;
  }> = { updated_at: patch.updatedAt.getTime() };
  if (patch.label !== undefined) row.label = patch.label;
  if (patch.remoteUser !== undefined) row.remote_user = patch.remoteUser;
  if (patch.status !== undefined) row.status = patch.status;
  if (patch.statusReason !== undefined) row.status_reason = patch.statusReason;
  if (patch.credentials !== undefined) row.credentials = patch.credentials;
  if (patch.scopes !== undefined) row.scopes = JSON.stringify(patch.scopes);
  if (patch.params !== undefined) row.params = JSON.stringify(patch.params);
  if (patch.credentialsExpireAt !== undefined) row.credentials_expire_at = patch.credentialsExpireAt?.getTime() ?? null;
  return row;
}

export function connectionRecord(row: Selectable<ConnectionsTable>): ConnectionRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    toolkit: row.toolkit,
    label: row.label,
    remoteUser: row.remote_user,
    status: row.status as ConnectionRecord["status"],
    statusReason: row.status_reason,
    credentials: row.credentials,
    scopes: JSON.parse(row.scopes) as string[],
    params: JSON.parse(row.params) as Record<string, string>,
    credentialsExpireAt: toDateOrNull(row.credentials_expire_at),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    version: Number(row.version),
  };
}

export function authorizationRow(record: AuthorizationRecord) {
  return {
    id: record.id,
    state_hash: record.stateHash,
    workspace_id: record.workspaceId,
    agent_id: record.agentId,
    toolkit: record.toolkit,
    label: record.label,
    return_url: record.returnUrl,
    secrets: record.secrets,
    status: record.status,
    connection_id: record.connectionId,
    error: record.error,
    created_at: record.createdAt.getTime(),
    expires_at: record.expiresAt.getTime(),
    consumed_at: record.consumedAt?.getTime() ?? null,
  };
}

export function authorizationPatchRow(patch: AuthorizationPatch) {
  const row: Partial<{ status: string; connection_id: string | null; error: string | null }> = {};
  if (patch.status !== undefined) row.status = patch.status;
  if (patch.connectionId !== undefined) row.connection_id = patch.connectionId;
  if (patch.error !== undefined) row.error = patch.error;
  return row;
}

export function authorizationRecord(row: Selectable<AuthorizationsTable>): AuthorizationRecord {
  return {
    id: row.id,
    stateHash: row.state_hash,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    toolkit: row.toolkit,
    label: row.label,
    returnUrl: row.return_url,
    secrets: row.secrets,
    status: row.status as AuthorizationRecord["status"],
    connectionId: row.connection_id,
    error: row.error,
    createdAt: toDate(row.created_at),
    expiresAt: toDate(row.expires_at),
    consumedAt: toDateOrNull(row.consumed_at),
  };
}
