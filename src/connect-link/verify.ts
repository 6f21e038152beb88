import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { type AuthScheme, type Credential, credentialSecrets } from "../credentials/auth-schemes.js";
import { type GrantCredential, type GrantScheme, isGrantType } from "../credentials/grant-schemes.js";
import { grantFirstToken } from "../grants/index.js";
import { runLookups } from "../oauth/values.js";
import type { Toolkit } from "../toolkits/define.js";

/**
 * Asks the provider who a typed credential belongs to, when the scheme declares a "who am I"
 * request, for `POST /auth` with credentials and for the connect page. A refusal (401, 403) is a
 * `ToolsError("invalid_request")` before anything is stored; a provider that cannot be reached or
 * answers oddly is `unavailable` (503, retry shortly). Without a lookup nothing is asked. A token
 * grant's mode asks for its first token first (refused: 400 with the provider's sentence) and
 * returns the credential holding it, with its expiry.
 */
export async function verifyCredential(
  ctx: HandlerContext,
  toolkit: Toolkit,
  scheme: AuthScheme,
  credential: Credential,
  config: Record<string, string>,
): Promise<VerifiedAccount> {
  if (isGrantType(scheme.type)) {
    const first = await grantFirstToken(ctx, toolkit, scheme as GrantScheme, (credential as GrantCredential).secrets, config);
    const account = await askAccount(ctx, toolkit, scheme, first.credential, { ...config, ...first.config });
    return {
      ...account,
      config: { ...first.config, ...account.config },
      credential: first.credential,
      credentialsExpireAt: first.credentialsExpireAt,
    };
  }
  return askAccount(ctx, toolkit, scheme, credential, config);
}

/** What verifying a credential found: the account, config values, and for a grant the credential with its first token. */
export interface VerifiedAccount {
  remoteUser?: string;
  config: Record<string, string>;
  credential?: Credential;
  credentialsExpireAt?: Date | null;
}

async function askAccount(
  ctx: HandlerContext,
  toolkit: Toolkit,
  scheme: AuthScheme,
  credential: Credential,
  config: Record<string, string>,
): Promise<{ remoteUser?: string; config: Record<string, string> }> {
  if (scheme.type === "none" || scheme.type === "oauth2" || !scheme.identify) return { config: {} };
  try {
    const account = await runLookups(ctx, toolkit, scheme, credential, scheme.identify, config);
    if (account.refused) {
      throw new ToolsError("invalid_request", `${toolkit.name} refused these credentials (401 or 403). Check them and send them again.`);
    }
    return account;
  } catch (error) {
    if (error instanceof ToolsError) throw error;
    ctx.logger.log(
      "warn",
      "could not verify a credential with its provider",
      { toolkit: toolkit.slug, error },
      credentialSecrets(credential, scheme),
    );
    throw new ToolsError("unavailable", `${toolkit.name} could not be asked whether these credentials work; try again shortly.`, {
      retryAfter: 5,
    });
  }
}
