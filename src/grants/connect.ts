import type { HandlerContext } from "../context/context.js";
import { ToolsError } from "../core/errors.js";
import { credentialSecrets } from "../credentials/auth-schemes.js";
import type { GrantCredential, GrantScheme } from "../credentials/grant-schemes.js";
import { renewalTimeout } from "../oauth/refresh.js";
import type { Toolkit } from "../toolkits/define.js";
import { GrantError } from "./grant.js";
import { runGrant } from "./registry.js";

/** A grant connection's first token, asked for before the connection is stored. */
export interface FirstToken {
  credential: GrantCredential;
  credentialsExpireAt: Date | null;
  /** Values the token answer adds to the connection's config. */
  config: Record<string, string>;
}

/**
 * Asks for the first token while connecting (`POST /auth` with credentials, the connect page), so
 * that wrong credentials fail the connection: a refusal or an answer without the declared fields
 * is a 400 with the provider's sentence or the field's name (never a secret), a provider that
 * cannot be reached a 503.
 */
export async function grantFirstToken(
  ctx: HandlerContext,
  toolkit: Toolkit,
  scheme: GrantScheme,
  secrets: Record<string, string>,
  config: Record<string, string>,
): Promise<FirstToken> {
  if ("unconfigured" in scheme && scheme.unconfigured) throw new ToolsError("invalid_request", scheme.unconfigured);
  try {
    const granted = await runGrant({ ctx, toolkit, scheme, credential: secrets, config, signal: renewalTimeout(ctx) });
    return {
      credential: {
        type: scheme.type,
        secrets,
        accessToken: granted.accessToken,
        ...(granted.expiresIn === undefined ? {} : { expiresIn: granted.expiresIn }),
      },
      credentialsExpireAt: granted.expiresIn === undefined ? null : new Date(Date.now() + granted.expiresIn * 1000),
      config: granted.config ?? {},
    };
  } catch (error) {
    if (error instanceof GrantError) throw new ToolsError("invalid_request", error.message);
    if (error instanceof ToolsError) throw error;
    ctx.logger.log("warn", "could not get a first token from the provider", { toolkit: toolkit.slug, error }, [
      ...credentialSecrets({ type: scheme.type, secrets }),
    ]);
    throw new ToolsError("unavailable", `${toolkit.name} could not be asked for a token; try again shortly.`, { retryAfter: 5 });
  }
}
