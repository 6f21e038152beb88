import type { HandlerContext } from "../context/context.js";
import type { AuthScheme } from "../credentials/auth-schemes.js";
import type { GrantScheme, GrantType } from "../credentials/grant-schemes.js";
import type { Toolkit } from "../toolkits/define.js";

/** What a grant is given to ask for a token. */
export interface GrantRequest<Scheme extends GrantScheme = GrantScheme> {
  ctx: HandlerContext;
  toolkit: Toolkit;
  scheme: Scheme;
  /** The secrets typed with the connection, opened (empty when the deployer provides them). */
  credential: Record<string, string>;
  /** The connection's inputs (config), including values earlier token answers added. */
  config: Record<string, string>;
  /** Aborts the token request (the renewal's deadline, well inside the refresh lease). */
  signal: AbortSignal;
}

/** What a grant answers: the access token, its lifetime in seconds if known, and values to keep on the connection's config. */
export interface GrantedToken {
  accessToken: string;
  expiresIn?: number;
  config?: Record<string, string>;
}

/** Asks the provider for a token. Throws `GrantError` for an answer a person must act on; anything else is "try again". */
export type Grant<Scheme extends GrantScheme = GrantScheme> = (request: GrantRequest<Scheme>) => Promise<GrantedToken>;

/** One grant per grant type, given its own scheme. */
export type Grants = { [Type in GrantType]: Grant<Extract<AuthScheme, { type: Type }>> };

/**
 * A token request that failed for a reason a person must act on. `refused`: the provider refused
 * the credential (a wrong or revoked secret): connecting fails with 400, a renewal expires the
 * connection. `answer`: the answer lacked what the scheme declares (its message names the field):
 * connecting fails with 400, a renewal is retried later. The message is shown as it is, so it
 * never holds a secret.
 */
export class GrantError extends Error {
  constructor(
    readonly kind: "refused" | "answer",
    message: string,
  ) {
    super(message);
  }
}
