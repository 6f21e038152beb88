import type { HandlerContext } from "../context/context.js";
import type { AuthScheme, Credential } from "../credentials/auth-schemes.js";
import type { Toolkit } from "../toolkits/define.js";

// Stand-ins for the grant engine's extension point (BRIEF "Token grants", branch `grants`), so that
// the JWT and app installation grants build before it is merged; replaced by its own at the merge.

/** What a grant is given: the connection's opened credential and its config (inputs). */
export interface GrantRequest<S extends AuthScheme = AuthScheme, C extends Credential = Credential> {
  ctx: HandlerContext;
  toolkit: Toolkit;
  scheme: S;
  credential: C;
  config: Record<string, string>;
  signal: AbortSignal;
}

/** A token a grant obtained, its lifetime in seconds where the provider said, and config values it named. */
export interface GrantedToken {
  accessToken: string;
  expiresIn?: number;
  config?: Record<string, string>;
}
