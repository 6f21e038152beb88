/**
 * Run by Bun (test/store/sql/bun-sqlite.test.ts): the SQL store on bun:sqlite, in a file, through the
 * main operations of the contract. Prints one JSON object of observations for the test to check.
 */
import { sqlStore } from "../../src/store/sql/store.js";

const file = process.argv[2]!;
const store = sqlStore({ url: `sqlite:${file}` });
const now = new Date("2025-01-02T03:04:05.678Z");
const observations: Record<string, unknown> = { runtime: typeof (globalThis as { Bun?: unknown }).Bun === "object" ? "bun" : "other" };
observations.migrated = (await store.migrate()).applied;
await store.createApiKey({
  id: "key_1",
  hash: "hash_1",
  kind: "agent",
  workspaceId: "ws",
  agentId: "agent",
  hint: "pak_…",
  createdAt: now,
  revokedAt: null,
});
const key = await store.getApiKeyByHash("hash_1");
observations.keyCreatedAt = key?.createdAt.toISOString();
await store.createConnection({
  id: "conn_1",
  workspaceId: "ws",
  agentId: "agent",
  toolkit: "t",
  label: "l",
  remoteUser: "u",
  status: "active",
  statusReason: null,
  credentials: "v1.x",
  scopes: ["a", "b"],
  params: { p: "1" },
  credentialsExpireAt: now,
  createdAt: now,
  updatedAt: now,
  version: 1,
});
observations.casWinner = (await store.updateConnection("conn_1", { label: "first", updatedAt: new Date() }, 1))?.version;
observations.casLoser = await store.updateConnection("conn_1", { label: "stale", updatedAt: new Date() }, 1);
observations.connection = await store.getConnection("conn_1");
await store.createAuthorization({
  id: "auth_1",
  stateHash: "state_1",
  workspaceId: "ws",
  agentId: "agent",
  toolkit: "t",
  label: null,
  returnUrl: null,
  secrets: "v1.s",
  status: "pending",
  connectionId: null,
  error: null,
  createdAt: now,
  expiresAt: new Date(Date.now() + 60_000),
  consumedAt: null,
});
observations.consumed = (await Promise.all([1, 2, 3].map(() => store.consumeAuthorization("state_1", new Date())))).filter(Boolean).length;
const leaseStart = Date.now();
observations.leases = [
  await store.acquireLease("lease", "a", 50, new Date(leaseStart)),
  await store.acquireLease("lease", "b", 50, new Date(leaseStart)),
];
observations.leaseAfterExpiry = await store.acquireLease("lease", "b", 1000, new Date(leaseStart + 120));
await store.close();
const reopened = sqlStore({ url: `sqlite:${file}` });
observations.afterReopen = (await reopened.getConnection("conn_1"))?.label;
await reopened.close();
process.stdout.write(JSON.stringify(observations));
