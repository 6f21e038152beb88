import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { credentialSecrets } from "../credentials/auth-schemes.js";
import type { GrantCredential, GrantScheme } from "../credentials/grant-schemes.js";
import { sealCredential } from "../credentials/sealing.js";
import {
  expire,
  expiresWithin,
  type FreshCredential,
  keptInstead,
  type Renewal,
  renewalTimeout,
  renewOnce,
  saveRenewed,
} from "../oauth/refresh.js";
import type { ConnectionRecord } from "../store/types.js";
import type { Toolkit } from "../toolkits/define.js";
import { GrantError } from "./grant.js";
import { runGrant } from "./registry.js";

/**
 * A grant connection's credential with a usable token: a token is asked for when there is none,
 * when it expires within the refresh margin, or when `staleAccessToken` (one the upstream just
 * refused with 401) is still the stored one. Exactly one request across processes (the refresh
 * lease); the result is sealed and saved before anyone uses it.
 */
export function freshGrant(
  ctx: HandlerContext,
  toolkit: Toolkit,
  scheme: GrantScheme,
  connection: ConnectionRecord,
  credential: GrantCredential,
  staleAccessToken?: string,
): Promise<FreshCredential> {
  const renewal: Renewal = {
    needed: (current, opened) => opened.type === scheme.type && needsToken(current, opened as GrantCredential, staleAccessToken),
    renew: (shared, latest, opened) => renewGrant(shared, toolkit, scheme, latest, opened as GrantCredential),
  };
  if (!renewal.needed(connection, credential)) return Promise.resolve({ connection, credential });
  return renewOnce(ctx, connection.id, renewal);
}

function needsToken(connection: ConnectionRecord, credential: GrantCredential, staleAccessToken: string | undefined): boolean {
  if (!credential.accessToken) return true;
  if (staleAccessToken !== undefined && credential.accessToken === staleAccessToken) return true;
  return expiresWithin(connection, credential.expiresIn);
}

/** Asks for a token under the lease and saves it; a refusal expires the connection, anything else is a 503. */
async function renewGrant(
  ctx: HandlerContext,
  toolkit: Toolkit,
  scheme: GrantScheme,
  connection: ConnectionRecord,
  credential: GrantCredential,
): Promise<FreshCredential> {
  let granted: Awaited<ReturnType<typeof runGrant>>;
  try {
    granted = await runGrant({
      ctx,
      toolkit,
      scheme,
      credential: credential.secrets,
      config: connection.params,
      signal: renewalTimeout(ctx),
    });
  } catch (error) {
    if (error instanceof GrantError && error.kind === "refused") return expire(ctx, connection, error.message);
    // Every secret of the credential, a key file's private key in each of its forms included.
    ctx.logger.log("warn", "token grant failed", { connectionId: connection.id, error }, credentialSecrets(credential));
    const said = error instanceof GrantError || error instanceof ToolsError ? ` ${error.message}` : "";
    throw new ToolsError("unavailable", `The provider could not give the connection a new token; retry shortly.${said}`, { retryAfter: 5 });
  }
  const next: GrantCredential = {
    type: credential.type,
    secrets: credential.secrets,
    accessToken: granted.accessToken,
    ...(granted.expiresIn === undefined ? {} : { expiresIn: granted.expiresIn }),
  };
  const expiresAt = granted.expiresIn === undefined ? null : new Date(Date.now() + granted.expiresIn * 1000);
  const { saved, ours } = await saveRenewed(ctx, connection, {
    credentials: await sealCredential(ctx, connection.id, next),
    credentialsExpireAt: expiresAt,
    updatedAt: new Date(),
    ...(granted.config ? { params: { ...connection.params, ...granted.config } } : {}),
  });
  if (!ours) return keptInstead(ctx, saved);
  ctx.emit("token.refreshed", { connectionId: connection.id, toolkit: connection.toolkit, expiresAt, rotated: false });
  return { connection: saved, credential: next };
}
