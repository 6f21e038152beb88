import type { GrantScheme } from "../credentials/grant-schemes.js";
import { appInstallationGrant } from "./app-installation.js";
import { clientCredentialsGrant } from "./client-credentials.js";
import type { Grant, GrantedToken, GrantRequest, Grants } from "./grant.js";
import { jwtBearerGrant } from "./jwt-bearer.js";
import { tokenExchangeGrant } from "./token-exchange.js";

/**
 * The token grants, by scheme type: each asks the provider for a token with what the connection
 * holds. The engine (`freshGrant`, `grantFirstToken`) caches, seals and renews what they answer;
 * a grant only makes its request. Adding a grant type: its scheme in `GRANT_TYPES` and `GrantScheme`
 * (src/credentials/grant-schemes.ts), its fields in `grantFields`, and its function here.
 */
export const GRANTS: Grants = {
  clientCredentials: clientCredentialsGrant,
  tokenExchange: tokenExchangeGrant,
  jwtBearer: jwtBearerGrant,
  appInstallation: appInstallationGrant,
};

/** Runs the grant of the scheme's type. */
export function runGrant(request: GrantRequest<GrantScheme>): Promise<GrantedToken> {
  return (GRANTS[request.scheme.type] as Grant)(request);
}
