import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, type EmulatedAnswer, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * HubSpot's OAuth as it stands once v1 is gone:
 * - https://developers.hubspot.com/changelog/v1-oauth-api-deprecation (POST /oauth/v1/token,
 *   GET /oauth/v1/access-tokens/{token}, GET and DELETE /oauth/v1/refresh-tokens/{token} are
 *   deprecated and remain accessible until 16 February 2027; the dated endpoints replace them:
 *   POST /oauth/2026-03/token, POST /oauth/2026-03/token/introspect and
 *   POST /oauth/2026-03/token/revoke, which replaces DELETE /oauth/v1/refresh-tokens/{token}).
 *   This emulation answers v1 as it will after that date: not at all.
 * - https://developers.hubspot.com/docs/api-reference/legacy/authentication/oauth-tokens/v1/migration-guide
 *   (the same core OAuth 2.0 with standardized error responses)
 * - https://developers.hubspot.com/docs/api-reference/latest/authentication/oauth-tokens/revoke-token
 *   ("Deletes/Revokes provided Refresh Token")
 * - https://developers.hubspot.com/docs/api-reference/auth-oauth-v3/public-token/post-oauth-v3-token-introspect
 *   (the dated API's sibling request: a form with client_id, client_secret, token and
 *   token_type_hint; the revoke's own body was not read, so it is emulated on this shape)
 * - https://developers.hubspot.com/changelog/new-oauth-v3-api-endpoints-and-standardized-error-responses
 *   (errors carry RFC 6749's error and error_description, beside HubSpot's status and message)
 * - https://developers.hubspot.com/docs/api-reference/legacy/authentication/oauth-tokens/v1/guide
 *   (the token request is a form with client_id and client_secret; the answer has access_token,
 *   refresh_token, expires_in, token_type, hub_id and scopes)
 */

let flow: Flow;
const codes = new Set<string>();
const accessTokens = new Set<string>();
const refreshTokens = new Set<string>();
const revoked: string[] = [];
/** Access tokens the API refuses once with 401, as if they had expired. */
const refuseOnce = new Set<string>();
const PORTAL_ID = 62515;

function oauthError(status: number, error: string, description: string, legacy: string): EmulatedAnswer {
  return { status, body: { error, error_description: description, status: legacy, message: description } };
}

function issue(refreshToken = mint("na1-")) {
  const accessToken = mint("CJ");
  accessTokens.add(accessToken);
  refreshTokens.add(refreshToken);
  return {
    token_type: "bearer",
    refresh_token: refreshToken,
    access_token: accessToken,
    expires_in: 1800,
    hub_id: PORTAL_ID,
    scopes: ["oauth", "crm.objects.contacts.read"],
  };
}

function emulate(request: EmulatedRequest): EmulatedAnswer {
  const { host, method, path } = request;
  if (host === "app.hubspot.com" && path === "/oauth/authorize") {
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
  }
  if (host !== "api.hubapi.com") return { status: 404, body: "not found" };
  if (path.startsWith("/oauth/v1/"))
    return { status: 404, body: { status: "error", message: "v1 of the OAuth API is no longer available." } };
  if (method === "POST" && (path === "/oauth/2026-03/token" || path === "/oauth/2026-03/token/revoke")) {
    if (!/^application\/x-www-form-urlencoded/.test(request.headers["content-type"] ?? ""))
      return oauthError(400, "invalid_request", "The body must be a form.", "BAD_REQUEST");
    const fields = form(request);
    if (fields.client_id !== flow.clientId || fields.client_secret !== flow.clientSecret)
      return oauthError(401, "invalid_client", "missing or unknown client id or secret", "BAD_CLIENT_ID");
    if (path.endsWith("/revoke")) {
      if (
        Object.keys(fields).sort().join() !== "client_id,client_secret,token,token_type_hint" ||
        fields.token_type_hint !== "refresh_token"
      )
        return oauthError(400, "invalid_request", "Send token and token_type_hint=refresh_token.", "BAD_REQUEST");
      if (!refreshTokens.delete(fields.token!)) return oauthError(400, "invalid_grant", "refresh token is invalid", "BAD_REFRESH_TOKEN");
      revoked.push(fields.token!);
      return { status: 204 };
    }
    if (fields.grant_type === "refresh_token") {
      // HubSpot's refresh token stays the same; each refresh gives a new access token.
      if (!refreshTokens.has(fields.refresh_token ?? ""))
        return oauthError(400, "invalid_grant", "refresh token is invalid, expired or revoked", "BAD_REFRESH_TOKEN");
      return { body: issue(fields.refresh_token) };
    }
    if (fields.grant_type !== "authorization_code" || !codes.delete(fields.code ?? "") || fields.redirect_uri !== flow.callbackUrl)
      return oauthError(400, "invalid_grant", "auth code not found", "BAD_AUTH_CODE");
    return { body: issue() };
  }
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
  if (!accessTokens.has(token) || refuseOnce.delete(token))
    return { status: 401, body: { status: "error", message: "Authentication credentials not found.", category: "INVALID_AUTHENTICATION" } };
  if (method === "GET" && path === "/account-info/v3/details")
    return { body: { portalId: PORTAL_ID, accountType: "STANDARD", timeZone: "UTC" } };
  if (method === "GET" && path === "/crm/v3/objects/contacts")
    return { body: { results: [{ id: "1", properties: { email: "ada@example.com" } }] } };
  return { status: 404, body: { status: "error", message: "Not found" } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "hubspot", hosts: ["app.hubspot.com", "api.hubapi.com"], emulate });
});
afterAll(() => flow?.close());

function contacts(connectionId: string) {
  return flow.call("POST", "/proxy", {
    toolkit: "hubspot",
    method: "GET",
    url: "https://api.hubapi.com/crm/v3/objects/contacts",
    connection_id: connectionId,
  });
}

describe("HubSpot app (OAuth) on the dated 2026-03 endpoints, end to end", () => {
  let connectionId: string;

  it("connects: the code exchanged at POST /oauth/2026-03/token (a form with the client's id and secret), named by the portal", async () => {
    const { authorizationUrl, connection } = await flow.connect();
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe("https://app.hubspot.com/oauth/authorize");
    const exchange = flow.at("api.hubapi.com", "/oauth/2026-03/token").at(-1)!;
    expect(form(exchange)).toMatchObject({
      grant_type: "authorization_code",
      client_id: flow.clientId,
      client_secret: flow.clientSecret,
      redirect_uri: flow.callbackUrl,
    });
    expect(exchange.headers.authorization).toBeUndefined();
    expect(connection.remoteUser).toBe(String(PORTAL_ID));
    expect(connection.config).toEqual({ portalId: String(PORTAL_ID) });
    connectionId = connection.id;
    expect((await contacts(connectionId)).json).toMatchObject({ successful: true, data: { results: [{ id: "1" }] } });
  });

  it("a 401 refreshes at POST /oauth/2026-03/token with the refresh token and retries", async () => {
    const before = flow.at("api.hubapi.com", "/crm/v3/objects/contacts").at(-1)!.headers.authorization!.slice("Bearer ".length);
    refuseOnce.add(before);
    const res = await contacts(connectionId);
    expect(res.json, res.text).toMatchObject({ successful: true });
    const refresh = flow.at("api.hubapi.com", "/oauth/2026-03/token").at(-1)!;
    expect(form(refresh)).toMatchObject({ grant_type: "refresh_token", client_id: flow.clientId, client_secret: flow.clientSecret });
    expect(refreshTokens.has(form(refresh).refresh_token!)).toBe(true);
    expect(flow.at("api.hubapi.com", "/crm/v3/objects/contacts").at(-1)!.headers.authorization).not.toBe(`Bearer ${before}`);
  });

  it("deleting the connection revokes its refresh token at POST /oauth/2026-03/token/revoke, in the body, never in a URL", async () => {
    const [refreshToken] = [...refreshTokens];
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    const call = flow.at("api.hubapi.com", "/oauth/2026-03/token/revoke").at(-1)!;
    expect(call.method).toBe("POST");
    expect(call.headers["content-type"]).toMatch(/^application\/x-www-form-urlencoded/);
    expect(form(call)).toEqual({
      token: refreshToken,
      token_type_hint: "refresh_token",
      client_id: flow.clientId,
      client_secret: flow.clientSecret,
    });
    expect(revoked).toEqual([refreshToken]);
    expect(flow.logs.filter((line) => line.includes("revocation failed"))).toEqual([]);
  });

  it("nothing went to v1, no token travelled in a URL, and nothing secret reached an answer or a log line", () => {
    expect(flow.requests.filter((r) => r.path.startsWith("/oauth/v1/")).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    const secrets = [...accessTokens, ...refreshTokens, ...revoked, flow.clientSecret];
    for (const request of flow.requests) for (const secret of secrets) expect(request.target).not.toContain(secret);
    flow.assertNoLeaks([...secrets, ...codes]);
  });
});
