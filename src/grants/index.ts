/**
 * Token grants: modes whose access token comes from a request the handler makes (client
 * credentials, two-step exchanges, and the grants other modules add to `GRANTS`). The token is
 * sealed in the connection's credential with its expiry and renewed under the refresh lease.
 */

export { type GrantField, grantFields, grantSecrets, MAX_FIELD_LENGTH } from "../credentials/grant-fields.js";
export { type FirstToken, grantFirstToken } from "./connect.js";
export { renewableToken, usableCredential } from "./fresh.js";
export { type Grant, GrantError, type GrantedToken, type GrantRequest, type Grants } from "./grant.js";
export { GRANTS, runGrant } from "./registry.js";
export { freshGrant } from "./renew.js";
export { fillJson, fillTemplate } from "./template.js";
export { providerSentence, readToken, requestToken, type TokenCall, type TokenPaths } from "./token-request.js";
