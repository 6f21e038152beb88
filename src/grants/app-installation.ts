import { SignJWT } from "jose";
import { ToolsError } from "../core/errors.js";
import type { AppInstallationCredential, AppInstallationScheme } from "../credentials/auth-schemes.js";
import { definitionUrl, fillHeaders } from "../oauth/values.js";
import { answerToken, requestGrant } from "./grant-http.js";
import type { GrantedToken, GrantRequest } from "./grant-types.js";
import { importRsaPrivateKey, PrivateKeyProblem } from "./private-key.js";

/** Where an installation token is asked for when the scheme does not say, under the toolkit's first base URL. */
export const INSTALLATION_TOKEN_PATH = "/app/installations/{installationId}/access_tokens";
/** What an installation id is: GitHub's numeric id of the app's installation on an account. */
export const INSTALLATION_ID = /^[0-9]{1,20}$/;
/** `iat` this far in the past, against clock drift, as GitHub recommends. */
const ISSUED_BEFORE_S = 60;
/** `exp` this far ahead: under GitHub's 10-minute limit however late the request arrives. */
const EXPIRES_AFTER_S = 9 * 60;

/**
 * A GitHub App installation token. The app JWT (RS256; `iat` 60 s in the past, `exp` at most 10
 * minutes on, `iss` the app's id: https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/generating-a-json-web-token-jwt-for-a-github-app)
 * is sent as `Authorization: Bearer` to `POST /app/installations/{installation_id}/access_tokens`
 * (https://docs.github.com/en/rest/apps/apps#create-an-installation-access-token-for-an-app), with
 * the toolkit's headers (GitHub's `Accept`, API version and `User-Agent`). Its `201` answer holds
 * `token` and `expires_at` (an hour on).
 */
export async function appInstallationGrant(request: GrantRequest<AppInstallationScheme, AppInstallationCredential>): Promise<GrantedToken> {
  const { ctx, toolkit, scheme, credential, config, signal } = request;
  if (scheme.unconfigured || !scheme.appId || !scheme.privateKey) {
    throw new ToolsError(
      "invalid_request",
      scheme.unconfigured ??
        `${toolkit.name}'s app installation mode has no app id or private key on this server; its operator must set them.`,
    );
  }
  const { appId, privateKey } = scheme;
  if (!INSTALLATION_ID.test(credential.installationId)) {
    throw new ToolsError("invalid_request", installationIdProblem);
  }
  let key: CryptoKey;
  try {
    key = await importRsaPrivateKey(privateKey, `The server's private key of the ${toolkit.name} app`);
  } catch (error) {
    if (error instanceof PrivateKeyProblem) throw new ToolsError("invalid_request", error.message);
    throw error;
  }
  const now = Math.floor(Date.now() / 1000);
  const appJwt = await new SignJWT({})
    .setProtectedHeader({ alg: "RS256", typ: "JWT" })
    .setIssuer(appId)
    .setIssuedAt(now - ISSUED_BEFORE_S)
    .setExpirationTime(now + EXPIRES_AFTER_S)
    .sign(key);
  const headers = new Headers(fillHeaders(toolkit.headers, config));
  if (!headers.has("accept")) headers.set("accept", "application/vnd.github+json");
  headers.set("authorization", `Bearer ${appJwt}`);
  const path = (scheme.tokenUrl ?? INSTALLATION_TOKEN_PATH).replaceAll("{installationId}", credential.installationId);
  const answer = await requestGrant(
    ctx,
    definitionUrl(toolkit, path, config),
    { method: "POST", headers },
    { provider: toolkit.name, secrets: [appJwt] },
    signal,
  );
  const accessToken = answerToken(answer, "token", toolkit.name);
  const expiresAt = typeof answer.expires_at === "string" ? Date.parse(answer.expires_at) : Number.NaN;
  const expiresIn = Math.floor((expiresAt - Date.now()) / 1000);
  return { accessToken, ...(expiresIn > 0 ? { expiresIn } : {}) };
}

/** The sentence for an installation id that is not one. */
export const installationIdProblem =
  "credentials.installationId must be the number of the app's installation (the digits at the end of its settings page, github.com/settings/installations/<id>).";
