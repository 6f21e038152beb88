import type { HandlerContext } from "../context.js";
import { freshCredential } from "../oauth/refresh.js";
import type { ConnectionRecord } from "../store/types.js";
import { credentialSecrets, type Credential } from "../toolkits/auth-schemes.js";
import type { Toolkit } from "../toolkits/define.js";

/** A connection's credential as an outbound call uses it. */
export interface ConnectionAccess {
  credential: Credential | null;
  /** Refreshes after an upstream 401 (OAuth only), for `createOutboundFetch`. */
  refreshAfterUnauthorized: ((stale: Credential) => Promise<Credential>) | undefined;
  /** Every secret this call has held, for redacting messages and logs. */
  secrets(): string[];
}

/**
 * Opens the connection's credential for one execute or proxy call, refreshing an OAuth token
 * that is about to expire first. Throws (`connection_required`) rather than return a credential
 * that cannot work, so nothing is sent upstream without one.
 */
export async function accessConnection(ctx: HandlerContext, toolkit: Toolkit, connection: ConnectionRecord | null): Promise<ConnectionAccess> {
  if (!connection) return { credential: null, refreshAfterUnauthorized: undefined, secrets: () => [] };
  let current = await freshCredential(ctx, toolkit, connection);
  const seen = new Set(credentialSecrets(current.credential));
  return {
    credential: current.credential,
    refreshAfterUnauthorized:
      current.credential.type === "oauth2"
        ? async (stale) => {
            current = await freshCredential(ctx, toolkit, current.connection, stale.type === "oauth2" ? stale.accessToken : undefined);
            for (const secret of credentialSecrets(current.credential)) seen.add(secret);
            return current.credential;
          }
        : undefined,
    secrets: () => [...seen],
  };
}
