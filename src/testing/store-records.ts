import type { ApiKeyRecord, AuthorizationRecord, Awaitable, ConnectionPatch, ConnectionRecord } from "../store/types.js";

/** Records and helpers the store conformance suites share: fresh random ids, fixed dates. */

export function settle<T>(fn: () => Awaitable<T>): Promise<T> {
  return Promise.resolve().then(fn);
}

export function randomId(prefix: string): string {
  return `${prefix}_${crypto.randomUUID()}`;
}

/** `date` moved by `ms` milliseconds. */
export function at(date: Date, ms: number): Date {
  return new Date(date.getTime() + ms);
}

/** A connection patch made now. */
export function patch(fields: Omit<ConnectionPatch, "updatedAt">): ConnectionPatch {
  return { ...fields, updatedAt: new Date() };
}

export function sortById<T extends { id: string }>(records: T[]): T[] {
  return [...records].sort((a, b) => (a.id < b.id ? -1 : 1));
}

export function apiKey(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: randomId("key"),
    hash: randomId("hash"),
    kind: "agent",
    workspaceId: randomId("ws"),
    agentId: randomId("agent"),
    hint: "pak_…test",
    createdAt: new Date("2024-05-06T07:08:09.123Z"),
    revokedAt: null,
    ...overrides,
  };
}

export function connectionRecord(overrides: Partial<ConnectionRecord> = {}): ConnectionRecord {
  const createdAt = overrides.createdAt ?? new Date("2024-02-03T04:05:06.789Z");
  return {
    id: randomId("conn"),
    workspaceId: randomId("ws"),
    agentId: randomId("agent"),
    toolkit: "github",
    label: "personal",
    remoteUser: "octocat",
    status: "active",
    statusReason: null,
    credentials: "v1.encrypted-credential",
    scopes: ["repo"],
    params: {},
    credentialsExpireAt: null,
    createdAt,
    updatedAt: createdAt,
    version: 1,
    ...overrides,
  };
}

export function authorizationRecord(overrides: Partial<AuthorizationRecord> = {}): AuthorizationRecord {
  return {
    id: randomId("auth"),
    stateHash: randomId("state"),
    workspaceId: randomId("ws"),
    agentId: randomId("agent"),
    toolkit: "github",
    label: null,
    returnUrl: null,
    secrets: "v1.encrypted-verifier",
    status: "pending",
    connectionId: null,
    error: null,
    createdAt: new Date("2024-07-08T09:10:11.121Z"),
    expiresAt: new Date(Date.now() + 3_600_000),
    consumedAt: null,
    ...overrides,
  };
}
