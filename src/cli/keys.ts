import { issueApiKey } from "../credentials/api-keys.js";
import type { ToolsStore } from "../store/types.js";
import { randomId } from "../util/encoding.js";

/** The workspace and agent of the key `serve` creates when its data has none. */
export const LOCAL_WORKSPACE = "local";
export const LOCAL_AGENT = "agent";

/**
 * The agent key `serve` prints once: created for workspace "local", agent "agent" when that
 * workspace has no unrevoked key yet, else null. Instances starting together against one database
 * take a lease first, so that only one of them creates it.
 */
export async function firstAgentKey(store: ToolsStore): Promise<string | null> {
  const holder = randomId("serve_");
  const lease = "tools-proxy:first-agent-key";
  for (let attempt = 0; !(await store.acquireLease(lease, holder, 10_000)); attempt++) {
    if (attempt >= 100) return null; // another instance is at it; it prints the key
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  try {
    const keys = await store.listApiKeys(LOCAL_WORKSPACE);
    if (keys.some((key) => key.revokedAt === null)) return null;
    return (await issueApiKey(store, { workspaceId: LOCAL_WORKSPACE, agentId: LOCAL_AGENT })).key;
  } finally {
    await Promise.resolve(store.releaseLease(lease, holder)).catch(() => {});
  }
}

/** `tools-proxy keys create`: a new agent key (or a service key, with `agent` null), whose plaintext is returned once. */
export async function createKey(store: ToolsStore, workspaceId: string, agentId: string | null): Promise<{ key: string; hint: string }> {
  const { key, record } = agentId === null ? await issueApiKey(store, { kind: "service", workspaceId }) : await issueApiKey(store, { workspaceId, agentId });
  return { key, hint: record.hint };
}
