import { ToolsError } from "../core/errors.js";
import type { SafeLogger } from "../core/logger.js";
import type { ConnectionRecord } from "../store/types.js";
import type { Credential } from "./auth-schemes.js";
import type { CredentialCipher } from "./cipher.js";

/** Encrypts a credential for the connection `connectionId` (bound to it as associated data). */
export function sealCredential(ctx: { cipher: CredentialCipher }, connectionId: string, credential: Credential): Promise<string> {
  return ctx.cipher.encrypt(JSON.stringify(credential), connectionId);
}

/**
 * Decrypts a connection's credential. A value that fails to decrypt (tampered, moved from another
 * row, or written with a secret no longer configured) is an error; nothing is sent without it.
 */
export async function openCredential(
  ctx: { cipher: CredentialCipher; logger: SafeLogger },
  connection: ConnectionRecord,
): Promise<Credential> {
  try {
    return JSON.parse(await ctx.cipher.decrypt(connection.credentials, connection.id)) as Credential;
  } catch (error) {
    ctx.logger.log("error", "credential could not be decrypted", { connectionId: connection.id, error });
    throw new ToolsError(
      "internal",
      `The credential of connection "${connection.id}" cannot be read (was the secret changed?). ` +
        "Reconnect it with POST /auth, or restore the previous secret.",
    );
  }
}
