import type { HandlerContext } from "../context/context.js";
import type { GrantCredential, GrantScheme } from "../credentials/grant-schemes.js";
import { isGrantType } from "../credentials/grant-schemes.js";
import { openCredential } from "../credentials/sealing.js";
import { type FreshCredential, freshOAuthCredential } from "../oauth/refresh.js";
import type { ConnectionRecord } from "../store/types.js";
import type { Toolkit } from "../toolkits/define.js";
import { freshGrant } from "./renew.js";

/**
 * The connection's credential ready to send, for every outbound call (proxy, passthrough, tools'
 * `ctx.fetch`, MCP): an OAuth token refreshed, a grant's token asked for, when missing, about to
 * expire, or just refused (`staleAccessToken`). Never returns an expired connection's credential.
 */
export async function usableCredential(
  ctx: HandlerContext,
  toolkit: Toolkit,
  connection: ConnectionRecord,
  staleAccessToken?: string,
): Promise<FreshCredential> {
  const credential = await openCredential(ctx, connection);
  if (isGrantType(credential.type)) {
    const scheme = toolkit.authModes.find((mode): mode is GrantScheme => mode.type === credential.type);
    if (!scheme) return { connection, credential };
    return freshGrant(ctx, toolkit, scheme, connection, credential as GrantCredential, staleAccessToken);
  }
  return freshOAuthCredential(ctx, toolkit, connection, credential, staleAccessToken);
}

/** The token a credential sends, when it has one that can go stale (OAuth or a grant). */
export function renewableToken(credential: { type: string; accessToken?: string }): string | undefined {
  return credential.type === "oauth2" || isGrantType(credential.type) ? credential.accessToken : undefined;
}
