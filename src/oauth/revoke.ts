import * as oauth from "oauth4webapi";
import type { HandlerContext } from "../context/context.js";
import { openCredential } from "../credentials/sealing.js";
import type { ConnectionRecord } from "../store/types.js";
import type { Toolkit } from "../toolkits/define.js";
import { oauthClient } from "./client.js";

/**
 * Revokes the connection's tokens at the provider (RFC 7009) when its toolkit has a revocation
 * endpoint: the refresh token first (which ends the grant at most providers), then the access
 * token. Never throws: a failure is logged, and the caller deletes the connection locally either
 * way.
 */
export async function revokeAtProvider(ctx: HandlerContext, toolkit: Toolkit | null, connection: ConnectionRecord): Promise<void> {
  if (toolkit?.auth.type !== "oauth2" || !toolkit.auth.revocationUrl) return;
  let tokens: string[] = [];
  try {
    const credential = await openCredential(ctx, connection);
    if (credential.type !== "oauth2") return;
    const { as, client, clientAuth, options } = oauthClient(ctx, toolkit.auth);
    tokens = [credential.refreshToken, credential.accessToken].filter((t): t is string => !!t);
    for (const token of tokens) {
      const response = await oauth.revocationRequest(as, client, clientAuth, token, options());
      await oauth.processRevocationResponse(response);
    }
  } catch (error) {
    ctx.logger.log(
      "warn",
      "token revocation failed; the connection is deleted locally anyway",
      { connectionId: connection.id, error },
      tokens,
    );
  }
}
