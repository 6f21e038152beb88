import type { HandlerContext } from "../context.js";
import { ToolsError } from "../errors.js";
import type { ConnectionRecord } from "../store/types.js";
import type { Credential } from "../toolkits/auth-schemes.js";

/** Encrypts a credential for the connection `connectionId` (bound to it as associated data). */
export function sealCredential(ctx: HandlerContext, connectionId: string, credential: Credential): Promise<string> {
  return ctx.cipher.encrypt(JSON.stringify(credential), connectionId);
}

/**
 * Decrypts a connection's credential. A value that fails to decrypt (tampered, moved from another
 * row, or written with a secret no longer configured) is an error; nothing is sent without it.
 */
export async function openCredential(ctx: HandlerContext, connection: ConnectionRecord): Promise<Credential> {
  try {
    return JSON.parse(await ctx.cipher.decrypt(connection.credentials, connection.id)) as Credential;
  } catch (error) {
    ctx.logger.log("error", "credential could not be decrypted", { connectionId: connection.id, error });
    throw new ToolsError(
      "internal",
      `The credential of connection "${connection.id}" cannot be read (was the secret changed?). Reconnect it with POST /auth, or restore the previous secret.`,
    );
  }
}
