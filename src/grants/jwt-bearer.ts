import { SignJWT } from "jose";
import { ToolsError } from "../core/errors.js";
import type { JwtBearerScheme } from "../credentials/grant-schemes.js";
import { readValues } from "../oauth/values.js";
import { fillBaseUrl } from "../outbound/url-policy.js";
import { GrantError, type GrantedToken, type GrantRequest } from "./grant.js";
import { importRsaPrivateKey, PrivateKeyProblem } from "./private-key.js";
import { readServiceAccountKey } from "./service-account.js";
import { readToken, requestToken } from "./token-request.js";

/** RFC 7523 section 2.1's grant type. */
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/** How long an assertion is valid when the scheme does not say, in seconds. */
const DEFAULT_LIFETIME = 300;
/** Google's limit, and the longest any scheme may ask for. */
export const MAX_ASSERTION_LIFETIME = 3600;
/** What a subject (a user's address, a Salesforce username) may be: printable, no spaces. */
const SUBJECT = /^[\x21-\x7e]{1,256}$/;

/**
 * The JWT bearer grant (RFC 7523 section 2.1): signs an assertion (RS256, with jose) and posts it
 * to the token URL as `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=...`.
 * Google service accounts (https://developers.google.com/identity/protocols/oauth2/service-account#authorizingrequests):
 * `iss` the key file's `client_email`, `scope`, `aud` its `token_uri`, `iat`, `exp` at most an
 * hour on, `sub` the user to act for when given; the answer's `access_token` and `expires_in`.
 * Salesforce (https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_jwt_flow.htm):
 * `iss` the connected app's consumer key, `sub` the username, `aud` the login host, `exp` within
 * 3 minutes; its answer has no lifetime, and its `instance_url` fills the config (`tokenConfig`).
 * A key file or subject that cannot work is a refusal (`GrantError`); the deployer's missing or
 * unreadable key a 400 that says so at connection, and a 503 at renewal.
 */
export async function jwtBearerGrant(request: GrantRequest<JwtBearerScheme>): Promise<GrantedToken> {
  const { toolkit, scheme, credential, config } = request;
  const signer = await signerOf(scheme, credential, toolkit.name);
  const subject = credential.subject?.trim() || undefined;
  if (subject !== undefined && !SUBJECT.test(subject)) {
    throw new GrantError("refused", `The ${scheme.subject?.label ?? "subject"} must be printable, without spaces, at most 256 characters.`);
  }
  const fill = (url: string) => (url.includes("{") ? fillBaseUrl(url, config, { wholeHost: true }) : url);
  const now = Math.floor(Date.now() / 1000);
  const scope = (scheme.scopes ?? []).join(" ");
  const assertion = await new SignJWT({ ...(scope ? { scope } : {}), ...(subject ? { sub: subject } : {}) })
    .setProtectedHeader({ alg: "RS256", typ: "JWT", ...(signer.keyId ? { kid: signer.keyId } : {}) })
    .setIssuer(signer.issuer)
    .setAudience(fill(scheme.audience ?? signer.audience ?? scheme.tokenUrl))
    .setIssuedAt(now)
    .setExpirationTime(now + Math.min(scheme.assertionLifetime ?? DEFAULT_LIFETIME, MAX_ASSERTION_LIFETIME))
    .sign(signer.key);
  const answer = await requestToken(
    // The assertion is kept out of any sentence the provider's refusal is quoted in.
    { ...request, credential: { ...credential, assertion } },
    {
      url: fill(scheme.tokenUrl),
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString(),
    },
  );
  const token = readToken(toolkit, answer, { token: "access_token", ...(hasLifetime(answer) ? { expiresIn: "expires_in" } : {}) });
  if (!scheme.tokenConfig) return token;
  try {
    return { ...token, config: readValues(answer, scheme.tokenConfig, "token answer") };
  } catch (error) {
    throw new GrantError("answer", (error as Error).message);
  }
}

/** RFC 6749 makes `expires_in` optional (Salesforce sends none): read it when the answer has it. */
function hasLifetime(answer: unknown): boolean {
  return answer !== null && typeof answer === "object" && (answer as { expires_in?: unknown }).expires_in != null;
}

/** Who signs: the connection's service account, or the deployer's issuer and key. */
async function signerOf(
  scheme: JwtBearerScheme,
  credential: Record<string, string>,
  provider: string,
): Promise<{ key: CryptoKey; issuer: string; audience?: string; keyId?: string }> {
  if (scheme.unconfigured) throw new ToolsError("invalid_request", scheme.unconfigured);
  if (scheme.signer === "serviceAccount") {
    try {
      const account = await readServiceAccountKey(credential.serviceAccountKey ?? "");
      const keyId = account.privateKeyId ? { keyId: account.privateKeyId } : {};
      return { key: account.key, issuer: account.clientEmail, audience: account.tokenUri, ...keyId };
    } catch (error) {
      if (error instanceof PrivateKeyProblem) throw new GrantError("refused", `credentials.serviceAccountKey: ${error.message}`);
      throw error;
    }
  }
  if (!scheme.issuer || !scheme.privateKey) {
    throw new ToolsError(
      "invalid_request",
      `${provider}'s JWT bearer mode has no issuer or private key on this server; its operator must set them.`,
    );
  }
  try {
    return { key: await importRsaPrivateKey(scheme.privateKey, `The server's private key for ${provider}`), issuer: scheme.issuer };
  } catch (error) {
    if (error instanceof PrivateKeyProblem) throw new ToolsError("invalid_request", `${error.message} Its operator must fix it.`);
    throw error;
  }
}
