import type { TokenExchangeScheme } from "../credentials/auth-schemes.js";
import { definitionUrl, readValues } from "../oauth/values.js";
import { GrantError, type GrantedToken, type GrantRequest } from "./grant.js";
import { fillJson, fillTemplate } from "./template.js";
import { readToken, requestToken } from "./token-request.js";

/**
 * A two-step exchange: the scheme's request, its `{placeholders}` filled with the typed fields and
 * the connection's config (the URL with the config only, so that no secret goes into a URL), and
 * the token and its lifetime read at the scheme's paths.
 */
export async function tokenExchangeGrant(request: GrantRequest<TokenExchangeScheme>): Promise<GrantedToken> {
  const { toolkit, scheme, config } = request;
  const values = { ...config, ...request.credential };
  const format = scheme.request.format ?? "json";
  const headers: Record<string, string> = {
    accept: "application/json",
    ...(scheme.request.body === undefined
      ? {}
      : { "content-type": format === "json" ? "application/json" : "application/x-www-form-urlencoded" }),
  };
  for (const [name, value] of Object.entries(scheme.request.headers ?? {})) headers[name.toLowerCase()] = fillTemplate(value, values);
  const filled = scheme.request.body === undefined ? undefined : fillJson(scheme.request.body, values);
  const body =
    filled === undefined
      ? undefined
      : format === "json"
        ? JSON.stringify(filled)
        : new URLSearchParams(filled as Record<string, string>).toString();
  const url = definitionUrl(toolkit, scheme.request.url, config);
  const answer = await requestToken(request, {
    url,
    method: scheme.request.method ?? "POST",
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const token = readToken(toolkit, answer, scheme);
  const expiresIn = token.expiresIn ?? scheme.lifetime;
  let found: Record<string, string> | undefined;
  try {
    found = scheme.tokenConfig ? readValues(answer, scheme.tokenConfig, "token answer") : undefined;
  } catch (error) {
    throw new GrantError("answer", (error as Error).message);
  }
  return { accessToken: token.accessToken, ...(expiresIn === undefined ? {} : { expiresIn }), ...(found ? { config: found } : {}) };
}
