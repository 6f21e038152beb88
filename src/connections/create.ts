import type { HandlerContext } from "../context/context.js";
import type { Credential } from "../credentials/auth-schemes.js";
import { sealCredential } from "../credentials/sealing.js";
import { eachConnectionPage } from "../store/paging.js";
import type { ConnectionRecord } from "../store/types.js";
import type { Toolkit } from "../toolkits/define.js";
import { randomId } from "../util/encoding.js";

/** What a new connection is made of; the credential is sealed here, never stored in the clear. */
export interface NewConnection {
  workspaceId: string;
  agentId: string;
  toolkit: Toolkit;
  /** Default: the toolkit's name, numbered when the agent already has connections to it. */
  label?: string | null;
  remoteUser: string;
  credential: Credential;
  scopes?: string[];
  params?: Record<string, string>;
  credentialsExpireAt?: Date | null;
}

/** Creates an active connection with its credential encrypted, and reports `connection.created`. */
export async function createConnection(ctx: HandlerContext, input: NewConnection): Promise<ConnectionRecord> {
  const { toolkit } = input;
  const id = randomId("conn_");
  const now = new Date();
  let existing = 0;
  const filter = { workspaceId: input.workspaceId, agentId: input.agentId, toolkit: toolkit.slug };
  for await (const page of eachConnectionPage(ctx.store, filter)) existing += page.length;
  const record: ConnectionRecord = {
    id,
    workspaceId: input.workspaceId,
    agentId: input.agentId,
    toolkit: toolkit.slug,
    label: input.label ?? (existing ? `${toolkit.name} ${existing + 1}` : toolkit.name),
    remoteUser: input.remoteUser,
    status: "active",
    statusReason: null,
    credentials: await sealCredential(ctx, id, input.credential),
    scopes: input.scopes ?? [],
    params: input.params ?? {},
    credentialsExpireAt: input.credentialsExpireAt ?? null,
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  await ctx.store.createConnection(record);
  ctx.emit("connection.created", { workspaceId: record.workspaceId, agentId: record.agentId, connectionId: id, toolkit: toolkit.slug });
  return record;
}
