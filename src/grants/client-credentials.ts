import { type ClientCredentialsScheme, clientBasicAuthorization } from "../credentials/auth-schemes.js";
import { definitionUrl, readValues } from "../oauth/values.js";
import { GrantError, type GrantedToken, type GrantRequest } from "./grant.js";
import { fillTemplate } from "./template.js";
import { readToken, requestToken } from "./token-request.js";

/**
 * OAuth 2 client credentials (RFC 6749 4.4): a form POST of `grant_type` (default
 * `client_credentials`), `scope`, `audience` and the scheme's `tokenParams` to the token URL, the
 * client authenticated with HTTP Basic or in the body; the answer's `access_token` and `expires_in`.
 */
export async function clientCredentialsGrant(request: GrantRequest<ClientCredentialsScheme>): Promise<GrantedToken> {
  const { toolkit, scheme, config } = request;
  const { clientId, clientSecret } = clientOf(scheme, request.credential);
  const body = new URLSearchParams({ grant_type: scheme.grantType ?? "client_credentials" });
  const values = { ...config, ...request.credential };
  for (const [name, value] of Object.entries(scheme.tokenParams ?? {})) body.set(name, fillTemplate(value, values));
  if (scheme.scopes?.length) body.set("scope", scheme.scopes.join(scheme.scopeSeparator ?? " "));
  if (scheme.audience) body.set("audience", fillTemplate(scheme.audience, config));
  const headers: Record<string, string> = { accept: "application/json", "content-type": "application/x-www-form-urlencoded" };
  if ((scheme.tokenEndpointAuthMethod ?? "client_secret_basic") === "client_secret_basic") {
    headers.authorization = clientBasicAuthorization(clientId, clientSecret, scheme.clientBasicEncoding);
  } else {
    body.set("client_id", clientId);
    body.set("client_secret", clientSecret);
  }
  const url = definitionUrl(toolkit, scheme.tokenUrl, config);
  const answer = await requestToken({ ...request, credential: { clientId, clientSecret } }, { url, headers, body: body.toString() });
  const token = readToken(toolkit, answer, { token: "access_token", expiresIn: hasExpiresIn(answer) ? "expires_in" : undefined });
  return { ...token, ...(scheme.tokenConfig ? { config: readAnswerValues(answer, scheme) } : {}) };
}

/** The client's id and secret: typed by the person, or the deployer's. */
function clientOf(scheme: ClientCredentialsScheme, typed: Record<string, string>): { clientId: string; clientSecret: string } {
  const clientId = scheme.client === "deployer" ? scheme.clientId : typed.clientId;
  const clientSecret = scheme.client === "deployer" ? scheme.clientSecret : typed.clientSecret;
  if (!clientId || !clientSecret) {
    throw new GrantError("refused", scheme.unconfigured ?? "The client id and client secret are both needed; connect again with them.");
  }
  return { clientId, clientSecret };
}

/** RFC 6749 makes `expires_in` optional: read it when the answer has it. */
function hasExpiresIn(answer: unknown): boolean {
  return answer !== null && typeof answer === "object" && "expires_in" in answer && (answer as { expires_in: unknown }).expires_in != null;
}

function readAnswerValues(answer: unknown, scheme: ClientCredentialsScheme): Record<string, string> {
  try {
    return readValues(answer, scheme.tokenConfig, "token answer");
  } catch (error) {
    throw new GrantError("answer", (error as Error).message);
  }
}
