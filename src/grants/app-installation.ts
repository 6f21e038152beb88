import { SignJWT } from "jose";
import { ToolsError } from "../core/errors.js";
import type { AppInstallationScheme } from "../credentials/grant-schemes.js";
import { definitionUrl, fillHeaders } from "../oauth/values.js";
import { GrantError, type GrantedToken, type GrantRequest } from "./grant.js";
import { importRsaPrivateKey, PrivateKeyProblem } from "./private-key.js";
import { readToken, requestToken } from "./token-request.js";

/** Where an installation token is asked for when the scheme does not say, under the toolkit's first base URL. */
export const INSTALLATION_TOKEN_PATH = "/app/installations/{installationId}/access_tokens";
/** What an installation id is: GitHub's number of the app's installation on an account. */
const INSTALLATION_ID = /^[0-9]{1,20}$/;
/** `iat` this far in the past, against clock drift, as GitHub recommends. */
const ISSUED_BEFORE_S = 60;
/** `exp` this far ahead: under GitHub's 10-minute limit however the clocks drift. */
const EXPIRES_AFTER_S = 9 * 60;

/**
 * A GitHub App installation token. The app JWT (RS256, with jose; `iat` 60 s in the past, `exp`
 * at most 10 minutes on, `iss` the app's id:
 * https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/generating-a-json-web-token-jwt-for-a-github-app)
 * goes as `Authorization: Bearer` to `POST /app/installations/{installation_id}/access_tokens`
 * (https://docs.github.com/en/rest/apps/apps#create-an-installation-access-token-for-an-app), with
 * the toolkit's headers (GitHub's `Accept`, API version and `User-Agent`). Its `201` answer holds
 * `token` and `expires_at` (an hour on). An installation id that is not one is a refusal; the
 * deployer's missing or unreadable key a 400 that says so at connection, a 503 at renewal.
 */
export async function appInstallationGrant(request: GrantRequest<AppInstallationScheme>): Promise<GrantedToken> {
  const { ctx, toolkit, scheme, credential, config } = request;
  if (scheme.unconfigured || !scheme.appId || !scheme.privateKey) {
    throw new ToolsError(
      "invalid_request",
      scheme.unconfigured ??
        `${toolkit.name}'s app installation mode has no app id or private key on this server; its operator must set them.`,
    );
  }
  const installationId = credential.installationId?.trim() ?? "";
  if (!INSTALLATION_ID.test(installationId)) throw new GrantError("refused", INSTALLATION_ID_PROBLEM);
  let key: CryptoKey;
  try {
    key = await importRsaPrivateKey(scheme.privateKey, `The server's private key of the ${toolkit.name} app`);
  } catch (error) {
    if (error instanceof PrivateKeyProblem) throw new ToolsError("invalid_request", `${error.message} Its operator must fix it.`);
    throw error;
  }
  const now = Math.floor(Date.now() / 1000);
  const appJwt = await new SignJWT({})
    .setProtectedHeader({ alg: "RS256", typ: "JWT" })
    .setIssuer(scheme.appId)
    .setIssuedAt(now - ISSUED_BEFORE_S)
    .setExpirationTime(now + EXPIRES_AFTER_S)
    .sign(key);
  const headers = Object.fromEntries(new Headers(fillHeaders(toolkit.headers, config)));
  headers.accept ??= "application/vnd.github+json";
  headers.authorization = `Bearer ${appJwt}`;
  const path = (scheme.tokenUrl ?? INSTALLATION_TOKEN_PATH).replaceAll("{installationId}", installationId);
  const answer = await requestToken(
    { ctx, toolkit, signal: request.signal, credential: { appJwt } },
    { url: definitionUrl(toolkit, path, config), headers },
  );
  return readToken(toolkit, answer, { token: "token", expiresAt: "expires_at" });
}

/** The sentence for an installation id that is not one. */
export const INSTALLATION_ID_PROBLEM =
  "The installation id must be the number of the app's installation: the digits at the end of its settings page (github.com/settings/installations/<id>).";
