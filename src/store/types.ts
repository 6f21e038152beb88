import type { Awaitable, Principal } from "../core/principal.js";

export type { Awaitable, Principal };

/** A stored API key. Only the SHA-256 hash of the key is kept; the plaintext is never stored. */
export interface ApiKeyRecord {
  id: string;
  /** Hex SHA-256 of the full key string (prefix included). Unique. */
  hash: string;
  kind: "agent" | "service";
  workspaceId: string;
  /** The agent of an agent key; null for a service key. */
  agentId: string | null;
  /** A non-secret hint to tell keys apart in a list, e.g. `pak_…x7Qa`. */
  hint: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export type ConnectionStatus = "active" | "expired" | "revoked";

/** A connection of one agent to one account of a toolkit. */
export interface ConnectionRecord {
  id: string;
  workspaceId: string;
  agentId: string;
  toolkit: string;
  label: string;
  /** Identifier of the account on the external application. */
  remoteUser: string;
  status: ConnectionStatus;
  /** Why the connection is not active, e.g. the provider's `invalid_grant` description. */
  statusReason: string | null;
  /** The credential, encrypted (see `createCredentialCipher`). Never plaintext. */
  credentials: string;
  /** Scopes the connection was granted. Empty when the scheme has none (API key, bearer, basic). */
  scopes: string[];
  /** Non-secret values filled into a toolkit's base URL placeholders, e.g. `{ subdomain: "acme" }`. */
  params: Record<string, string>;
  /** When the current access credential expires, if it does. */
  credentialsExpireAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** Incremented by every update; used for compare-and-set. */
  version: number;
}

/** Fields of a connection that `updateConnection` may change. */
/** A change to a connection: the fields to set (an undefined one is left as it is), and when it happened. */
export type ConnectionPatch = {
  [K in "label" | "remoteUser" | "status" | "statusReason" | "credentials" | "scopes" | "params" | "credentialsExpireAt"]?:
    | ConnectionRecord[K]
    | undefined;
} & {
  /** The time of the change, from the caller's clock: the new `updatedAt`. */
  updatedAt: Date;
};

/**
 * A place in a listing, which is ordered oldest first by `createdAt`, then by `id` (so records
 * created in the same millisecond still have one order): the position of the last record of a page.
 */
export interface ListPosition {
  createdAt: Date;
  id: string;
}

/**
 * Which page of a listing to read: keyset paging on (`createdAt`, `id`), so that a deep page costs
 * what the first does, and rows inserted meanwhile neither repeat nor hide older ones.
 */
export interface ListPage {
  /** At most this many records (a whole number, at least 1). Absent: every record after `after`. */
  limit?: number | undefined;
  /** Only records after this position: a later `createdAt`, or the same with a greater `id`. */
  after?: ListPosition | undefined;
}

export interface ConnectionFilter extends ListPage {
  workspaceId: string;
  /** When set, only this agent's connections. */
  agentId?: string;
  toolkit?: string;
}

export type AuthorizationStatus = "pending" | "connected" | "failed" | "expired";

/** A started OAuth authorization, waiting for its callback. */
export interface AuthorizationRecord {
  id: string;
  /** Hex SHA-256 of the `state` sent to the provider. Unique. */
  stateHash: string;
  workspaceId: string;
  agentId: string;
  toolkit: string;
  label: string | null;
  returnUrl: string | null;
  /** Encrypted PKCE code verifier (and nonce, where used). */
  secrets: string;
  status: AuthorizationStatus;
  connectionId: string | null;
  error: string | null;
  createdAt: Date;
  expiresAt: Date;
  /** When the callback consumed the state; null until then. A state is consumed once. */
  consumedAt: Date | null;
}

export type AuthorizationPatch = Partial<Pick<AuthorizationRecord, "status" | "connectionId" | "error">>;

/**
 * Where the library keeps API keys, connections, OAuth authorizations and leases.
 *
 * Contract, checked by `toolsStoreConformance` from `tools-proxy/testing`:
 * - Every method may return a value or a Promise.
 * - "Not found" is `null` (or `false` for deletes and revokes), never a thrown error.
 * - Records come back as copies: mutating a returned object never changes the store.
 * - Dates are `Date` objects; TTLs and durations are milliseconds.
 * - Time comes from the caller; a store reads no clock of its own. Every time it records or compares
 *   is given to it: the `now` of `consumeAuthorization`, `acquireLease` and `sweep`, the `at` of
 *   `revokeApiKey`, the `updatedAt` of a connection patch, and the dates inside records. A `ttlMs`
 *   counts from that `now`. Processes sharing a store need clocks in step, as NTP keeps them: a
 *   lease stays exclusive while their clocks differ by less than its `ttlMs`.
 * - Strings compare exactly: ids, hashes, workspace, agent and toolkit names differ by case and
 *   by trailing spaces (a case-insensitive SQL collation would merge two tenants).
 * - A backend that cannot be reached throws `StoreUnavailableError` (the handler answers 503).
 * - `createX` with an id or unique key (key hash, state hash) that already exists throws.
 * - Fields of a patch that are `undefined` are ignored (the stored value stays).
 * - `updateConnection` with `expectedVersion` is a compare-and-set: it changes the row only if the
 *   stored version equals it, and returns null otherwise. Every update increments `version`.
 * - `consumeAuthorization` is atomic: of any number of concurrent calls with the same state hash,
 *   exactly one receives the record. Expired or already-consumed authorizations return null.
 * - `acquireLease` is atomic across every process sharing the store: while a lease is held and
 *   unexpired, exactly one holder has it. A holder that crashes loses it when `ttlMs` runs out.
 * - Listings (`listConnections`, `listApiKeys`) are ordered by (`createdAt`, `id`), oldest first,
 *   and page by keyset (`ListPage`): at most `limit` records strictly after `after`, read through
 *   an index rather than skipped over (never `OFFSET`), so that holding and reading one page costs
 *   the same at page 1 and page 900. The handler asks for `limit + 1` records to learn whether
 *   another page follows. A store written before paging, which ignores `limit` and `after`, still
 *   gives correct pages (the handler sorts and cuts what it returns) but loads the whole listing
 *   for each page; the conformance suite fails it.
 */
export interface ToolsStore {
  /**
   * Whether what the store holds outlives the process. The in-memory store says `false`, which lets
   * the handler run without a `secret` (a random one is made, since nothing it encrypts survives a
   * restart anyway). Absent means persistent: a store you write yourself needs a `secret`.
   */
  readonly persistent?: boolean;

  createApiKey(record: ApiKeyRecord): Awaitable<void>;
  /** The key with this hash, revoked or not; null when none. */
  getApiKeyByHash(hash: string): Awaitable<ApiKeyRecord | null>;
  /** The workspace's keys, revoked ones included, oldest first; one page of them with `page`. */
  listApiKeys(workspaceId: string, page?: ListPage): Awaitable<ApiKeyRecord[]>;
  /** Marks the key revoked at `at`. False when there is no such key or it was already revoked. */
  revokeApiKey(id: string, at: Date): Awaitable<boolean>;

  createConnection(record: ConnectionRecord): Awaitable<void>;
  getConnection(id: string): Awaitable<ConnectionRecord | null>;
  /** Connections matching the filter, oldest first; one page of them with the filter's `limit` and `after`. */
  listConnections(filter: ConnectionFilter): Awaitable<ConnectionRecord[]>;
  /** Applies the patch (its `updatedAt` included), increments `version`; null when not found or the version differs. */
  updateConnection(id: string, patch: ConnectionPatch, expectedVersion?: number): Awaitable<ConnectionRecord | null>;
  deleteConnection(id: string): Awaitable<boolean>;

  createAuthorization(record: AuthorizationRecord): Awaitable<void>;
  getAuthorization(id: string): Awaitable<AuthorizationRecord | null>;
  /**
   * Atomically sets `consumedAt = now` on the unconsumed authorization with this state hash whose
   * `expiresAt` is after `now`, and returns it. Null when there is none, it expired, or it was
   * already consumed. The caller then records the outcome with `updateAuthorization`.
   */
  consumeAuthorization(stateHash: string, now: Date): Awaitable<AuthorizationRecord | null>;
  updateAuthorization(id: string, patch: AuthorizationPatch): Awaitable<AuthorizationRecord | null>;

  /**
   * Takes the lease `name` for `holder` until `now + ttlMs`. True when it was free, expired at
   * `now`, or already held by this holder (which renews it); false when another holder has it.
   */
  acquireLease(name: string, holder: string, ttlMs: number, now: Date): Awaitable<boolean>;
  /** Releases the lease if `holder` holds it; otherwise does nothing. */
  releaseLease(name: string, holder: string): Awaitable<void>;

  /**
   * Optional: the same store, whose reads (`getApiKeyByHash`, `listApiKeys`, `getConnection`,
   * `listConnections`, `getAuthorization`) stop when `signal` aborts. The handler calls it once per
   * request with `request.signal`, so that a client that goes away stops the reads it started. A
   * read whose signal has aborted rejects with `signal.reason` and returns nothing; a store that
   * can, cancels its statement in the database and never loads its rows. Writes ignore the signal:
   * a change a request started is made or fails as a whole, whoever is still waiting for it (a
   * refreshed token is saved even if the request that needed it is gone).
   */
  withSignal?(signal: AbortSignal): ToolsStore;

  /** Optional: removes the authorizations and leases expired at `now`. Returns exactly how many went. */
  sweep?(now: Date): Awaitable<number>;
  /** Optional: releases connections, pools and timers. */
  close?(): Awaitable<void>;
}

/** The methods every `ToolsStore` has (the handler checks for them when it is created). */
export const TOOLS_STORE_METHODS = [
  "createApiKey",
  "getApiKeyByHash",
  "listApiKeys",
  "revokeApiKey",
  "createConnection",
  "getConnection",
  "listConnections",
  "updateConnection",
  "deleteConnection",
  "createAuthorization",
  "getAuthorization",
  "consumeAuthorization",
  "updateAuthorization",
  "acquireLease",
  "releaseLease",
] as const satisfies ReadonlyArray<RequiredMethods<ToolsStore>>;

/** Names of the methods of `T` that are not optional. */
export type RequiredMethods<T> = {
  [K in keyof T]-?: undefined extends T[K] ? never : T[K] extends (...args: never[]) => unknown ? K : never;
}[keyof T];
