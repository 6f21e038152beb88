import { ToolsError } from "../core/errors.js";
import type { ApiKeyRecord, Principal, ToolsStore } from "../store/types.js";
import { randomBytes, randomId, sha256Hex, timingSafeEqual, toBase64Url } from "../util/encoding.js";
import { forgetRevokedKey } from "./key-cache.js";
import { API_KEY_SHAPE } from "./key-shape.js";
import { type ApiKeyRevocations, publishRevocation } from "./revocations.js";

/** Prefix of agent keys. */
export const AGENT_KEY_PREFIX = "pak_";
/** Prefix of workspace service keys. */
export const SERVICE_KEY_PREFIX = "psk_";

const KEY_PREFIX = /^(pak|psk)_/;
const ID_SHAPE = /^[A-Za-z0-9_-]{1,128}$/;

export type IssueApiKeyOptions = { kind?: "agent"; workspaceId: string; agentId: string } | { kind: "service"; workspaceId: string };

/** A new key: `key` is the plaintext, shown once and never stored. */
export interface IssuedApiKey {
  key: string;
  record: ApiKeyRecord;
}

/**
 * Creates an API key in the store: `pak_` for an agent, `psk_` for a workspace service, each
 * followed by 256 random bits. Only the SHA-256 hash is stored; the plaintext is returned once.
 */
export async function issueApiKey(store: ToolsStore, options: IssueApiKeyOptions): Promise<IssuedApiKey> {
  const kind = options.kind ?? "agent";
  assertId("workspaceId", options.workspaceId);
  const agentId = "agentId" in options ? options.agentId : null;
  if (kind === "agent") assertId("agentId", agentId ?? "");
  const key = `${kind === "agent" ? AGENT_KEY_PREFIX : SERVICE_KEY_PREFIX}${toBase64Url(randomBytes(32))}`;
  const record: ApiKeyRecord = {
    id: randomId("key_"),
    hash: await sha256Hex(key),
    kind,
    workspaceId: options.workspaceId,
    agentId: kind === "agent" ? agentId : null,
    hint: `${key.slice(0, 4)}…${key.slice(-4)}`,
    createdAt: new Date(),
    revokedAt: null,
  };
  await store.createApiKey(record);
  return { key, record };
}

/** Options of `revokeApiKey`. */
export interface RevokeApiKeyOptions {
  /**
   * Where to tell the other instances, besides the `apiKeyRevocations` of this process's handlers
   * over the same store: for a process without a handler, such as an admin script.
   */
  revocations?: ApiKeyRevocations;
}

/**
 * Revokes a key by its id. False when there is no such key or it was already revoked. The
 * handlers of this process over `store` refuse it from their next request. Other processes refuse
 * it as soon as the revocation reaches them through `apiKeyRevocations` (the handlers' option, or
 * `options.revocations`), else once their cache entry expires (the `apiKeyCache` option's `ttlMs`).
 * The revocation is published after the store has it, even when the key was already revoked (a
 * second call repairs a first whose message was lost); a failed publish is not an error here.
 */
export async function revokeApiKey(store: ToolsStore, keyId: string, options: RevokeApiKeyOptions = {}): Promise<boolean> {
  forgetRevokedKey(store, keyId); // before and after: a request between the two cannot cache it again
  let revoked: boolean;
  try {
    revoked = await store.revokeApiKey(keyId, new Date());
  } finally {
    forgetRevokedKey(store, keyId);
  }
  await publishRevocation(store, keyId, options.revocations);
  return revoked;
}

/**
 * Reads the key from `x-api-key` or `Authorization: Bearer <key>` (or `token <key>`), or null
 * when neither carries one. Both may be present when they carry the same key, and an `Authorization` that does not
 * carry one of this library's keys (the embedding app's own session token) is left to the app
 * when `x-api-key` is there. Two different keys, a repeated `x-api-key`, or a Bearer value with
 * more after the key are refused, never resolved by picking one.
 */
export function readApiKey(headers: Headers): string | null {
  const header = headers.get("x-api-key")?.trim() || null;
  if (header?.includes(",")) {
    throw new ToolsError("invalid_request", "The x-api-key header is sent more than once; send one API key.");
  }
  const authorization = headers.get("authorization")?.trim() || null;
  // `token <key>` is GitHub's scheme, which Octokit sends: its `auth` option can be the key.
  const bearer = authorization ? (/^(?:Bearer|token)[ \t]+(\S+)$/i.exec(authorization)?.[1] ?? null) : null;
  if (header) {
    if (bearer && KEY_PREFIX.test(bearer) && bearer !== header) {
      throw new ToolsError("invalid_request", "Two different API keys were sent, in x-api-key and in Authorization; send one of them.");
    }
    return header;
  }
  if (!authorization) return null;
  if (bearer) return bearer;
  if (/^Bearer[ \t]+\S+[ \t]+\S/i.test(authorization)) {
    throw new ToolsError("unauthorized", "The Authorization header must be `Bearer <key>` with nothing after the key.");
  }
  throw new ToolsError(
    "unauthorized",
    "The Authorization header does not carry an API key: send `Authorization: Bearer <key>` or the header `x-api-key: <key>`.",
  );
}

/**
 * Resolves the principal of a request, or throws `unauthorized`. A service key acts for one agent
 * when the request names it in `x-agent-id`.
 */
export function authenticate(store: ToolsStore, headers: Headers): Promise<Principal> {
  return authenticateWith(headers, async (hash) => store.getApiKeyByHash(hash));
}

/** `authenticate`, finding the key's record by its hash with `find` (the handler's, through its key cache). */
export async function authenticateWith(headers: Headers, find: (hash: string) => Promise<ApiKeyRecord | null>): Promise<Principal> {
  const key = readApiKey(headers);
  if (!key) {
    throw new ToolsError("unauthorized", "Missing API key. Send it as the header `x-api-key: <key>` or `Authorization: Bearer <key>`.");
  }
  // Built only when thrown: capturing a stack on every request showed up in profiles.
  const invalid = () => new ToolsError("unauthorized", "Invalid API key. Check that the key is complete and has not been revoked.");
  if (!API_KEY_SHAPE.test(key)) throw invalid();
  const hash = await sha256Hex(key);
  const record = await find(hash);
  // The lookup is by hash, so its timing says nothing about the key; the comparison below is
  // constant-time as a second line of defence against a store that matches loosely.
  if (!record || !timingSafeEqual(record.hash, hash) || record.revokedAt) throw invalid();

  if (record.kind === "agent") {
    return { workspaceId: record.workspaceId, agentId: record.agentId, keyId: record.id, kind: "agent" };
  }
  const agentId = headers.get("x-agent-id");
  if (agentId !== null && !ID_SHAPE.test(agentId)) {
    throw new ToolsError("invalid_request", "The x-agent-id header must be an agent id of letters, digits, '_' or '-' (at most 128).");
  }
  return { workspaceId: record.workspaceId, agentId: agentId || null, keyId: record.id, kind: "service" };
}

function assertId(name: string, value: string): void {
  if (!ID_SHAPE.test(value)) throw new TypeError(`${name} must be 1-128 letters, digits, '_' or '-'; got ${JSON.stringify(value)}.`);
}
