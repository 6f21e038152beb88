import { SignJWT } from "jose";
import { ToolsError } from "../core/errors.js";
import type { JwtBearerCredential, JwtBearerScheme } from "../credentials/auth-schemes.js";
import { readValues, ValueError } from "../oauth/values.js";
import { fillBaseUrl } from "../outbound/url-policy.js";
import { answerToken, requestGrant } from "./grant-http.js";
import type { GrantedToken, GrantRequest } from "./grant-types.js";
import { importRsaPrivateKey, PrivateKeyProblem } from "./private-key.js";

/** RFC 7523 section 2.1's grant type. */
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/** How long an assertion is valid when the scheme does not say, in seconds. */
const DEFAULT_LIFETIME = 300;
/** Google's limit, and the longest any scheme may ask for. */
export const MAX_ASSERTION_LIFETIME = 3600;

/**
 * The JWT bearer grant (RFC 7523 section 2.1): signs an assertion (RS256) and posts it to the
 * token URL as `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=...`.
 * Google service accounts (https://developers.google.com/identity/protocols/oauth2/service-account#authorizingrequests):
 * `iss` the key file's `client_email`, `scope`, `aud` its `token_uri`, `iat`, `exp` at most an
 * hour on, `sub` the user to act for when given. Salesforce (https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_jwt_flow.htm):
 * `iss` the connected app's consumer key, `sub` the username, `aud` the login host, `exp` minutes
 * on; its answer's `instance_url` fills the config through `tokenConfig`.
 */
export async function jwtBearerGrant(request: GrantRequest<JwtBearerScheme, JwtBearerCredential>): Promise<GrantedToken> {
  const { ctx, toolkit, scheme, credential, config, signal } = request;
  const signer = await signerOf(scheme, credential, toolkit.name);
  const fill = (url: string) => (url.includes("{") ? fillBaseUrl(url, config, { wholeHost: true }) : url);
  const now = Math.floor(Date.now() / 1000);
  const scope = (scheme.scopes ?? []).join(" ");
  const assertion = await new SignJWT({
    ...(scope ? { scope } : {}),
    ...(credential.subject ? { sub: credential.subject } : {}),
  })
    .setProtectedHeader({ alg: "RS256", typ: "JWT", ...(signer.keyId ? { kid: signer.keyId } : {}) })
    .setIssuer(signer.issuer)
    .setAudience(fill(scheme.audience ?? signer.audience ?? scheme.tokenUrl))
    .setIssuedAt(now)
    .setExpirationTime(now + Math.min(scheme.assertionLifetime ?? DEFAULT_LIFETIME, MAX_ASSERTION_LIFETIME))
    .sign(signer.key);
  const answer = await requestGrant(
    ctx,
    fill(scheme.tokenUrl),
    {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString(),
    },
    { provider: toolkit.name, secrets: [assertion] },
    signal,
  );
  const accessToken = answerToken(answer, "access_token", toolkit.name);
  const expiresIn = typeof answer.expires_in === "number" && answer.expires_in > 0 ? Math.floor(answer.expires_in) : undefined;
  let values: Record<string, string>;
  try {
    values = readValues(answer, scheme.tokenConfig, "token answer");
  } catch (error) {
    if (error instanceof ValueError) throw new ToolsError("invalid_request", error.message);
    throw error;
  }
  return { accessToken, ...(expiresIn ? { expiresIn } : {}), ...(Object.keys(values).length ? { config: values } : {}) };
}

/** Who signs: the connection's service account, or the deployer's issuer and key. */
async function signerOf(
  scheme: JwtBearerScheme,
  credential: JwtBearerCredential,
  provider: string,
): Promise<{ key: CryptoKey; issuer: string; audience?: string; keyId?: string }> {
  if (scheme.unconfigured) throw new ToolsError("invalid_request", scheme.unconfigured);
  if (scheme.signer === "serviceAccount") {
    const account = credential.serviceAccount;
    if (!account) {
      throw new ToolsError(
        "invalid_request",
        `${provider} connects with a service account key: send "credentials": { "serviceAccountKey": "..." }.`,
      );
    }
    const key = await importKey(account.privateKey, "The service account key's private_key");
    return {
      key,
      issuer: account.clientEmail,
      audience: account.tokenUri,
      ...(account.privateKeyId ? { keyId: account.privateKeyId } : {}),
    };
  }
  if (!scheme.issuer || !scheme.privateKey) {
    throw new ToolsError(
      "invalid_request",
      `${provider}'s JWT bearer mode has no issuer or private key on this server; its operator must set them.`,
    );
  }
  return { key: await importKey(scheme.privateKey, `The server's private key for ${provider}`), issuer: scheme.issuer };
}

async function importKey(pem: string, what: string): Promise<CryptoKey> {
  try {
    return await importRsaPrivateKey(pem, what);
  } catch (error) {
    if (error instanceof PrivateKeyProblem) throw new ToolsError("invalid_request", error.message);
    throw error;
  }
}
