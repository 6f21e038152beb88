import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, basicPair, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * Zoho CRM (US data centre), as Zoho's documentation describes OAuth and its revocation:
 * - https://zoho.com/meeting/api-integration/authentication.html (GET accounts.zoho.com/oauth/v2/auth
 *   with comma-separated scopes, access_type=offline and prompt=consent, which makes Zoho issue a
 *   refresh token on every consent)
 * - https://www.zoho.com/phonebridge/developer/v3/access-refresh.html (POST {accounts}/oauth/v2/token
 *   with grant_type, client_id, client_secret, redirect_uri and code in the body)
 * - https://www.zoho.com/developer/oauth/revoke-oauth-token.html (POST {accounts}/oauth/v2/revoke/token
 *   with the client as HTTP Basic over the raw id:secret, and token and token_type, one of
 *   refresh_token or access_token; revoking a refresh token also revokes its access tokens)
 * The page shows token and token_type as query parameters. The handler sends them in a form body
 * instead, so that no token is ever part of a URL that a deployer's fetch, proxy or tracing may
 * record; this emulation reads them from either place, and that Zoho reads the body is the
 * entry's unconfirmed fact.
 */

const ACCOUNTS = "accounts.zoho.com";
const API = "www.zohoapis.com";

let flow: Flow;
const codes = new Set<string>();
const accessTokens = new Set<string>();
const refreshTokens = new Set<string>();
const allTokens: string[] = [];

function emulate(request: EmulatedRequest) {
  const { host, method, path } = request;
  if (host === ACCOUNTS && path === "/oauth/v2/auth") {
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
  }
  if (host === ACCOUNTS && method === "POST" && path === "/oauth/v2/token") {
    const fields = form(request);
    if (fields.client_id !== flow.clientId || fields.client_secret !== flow.clientSecret) return { body: { error: "invalid_client" } };
    if (!codes.delete(fields.code ?? "")) return { body: { error: "invalid_code" } };
    const accessToken = mint("1000.at");
    const refreshToken = mint("1000.rt");
    accessTokens.add(accessToken);
    refreshTokens.add(refreshToken);
    allTokens.push(accessToken, refreshToken);
    return {
      body: {
        access_token: accessToken,
        refresh_token: refreshToken,
        api_domain: `https://${API}`,
        token_type: "Bearer",
        expires_in: 3600,
      },
    };
  }
  if (host === ACCOUNTS && method === "POST" && path === "/oauth/v2/revoke/token") {
    const pair = basicPair(request);
    if (pair?.[0] !== flow.clientId || pair[1] !== flow.clientSecret) return { status: 401, body: { error: "invalid_client" } };
    const fields = { ...form(request), ...Object.fromEntries(request.query) };
    const known = fields.token_type === "refresh_token" ? refreshTokens : fields.token_type === "access_token" ? accessTokens : null;
    if (!known?.delete(fields.token ?? "")) return { status: 400, body: { error: "invalid_token" } };
    if (fields.token_type === "refresh_token") accessTokens.clear();
    return { body: { status: "success" } };
  }
  const bearer = /^Zoho-oauthtoken (.+)$/.exec(request.headers.authorization ?? "")?.[1];
  if (host === API && bearer && accessTokens.has(bearer) && path === "/crm/v8/users") {
    return { body: { users: [{ id: "1", email: "ada@zylker.test" }] } };
  }
  return { status: 401, body: { code: "INVALID_TOKEN" } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "zoho-crm", hosts: [ACCOUNTS, API], emulate });
});
afterAll(() => flow?.close());

describe("Zoho CRM, end to end", () => {
  let connectionId: string;

  it("connects: comma-separated scopes, offline access with consent, and the client in the token request's body", async () => {
    const { authorizationUrl, connection } = await flow.connect();
    expect(authorizationUrl.searchParams.get("scope")).toBe("ZohoCRM.modules.ALL,ZohoCRM.users.READ");
    expect(authorizationUrl.searchParams.get("access_type")).toBe("offline");
    expect(authorizationUrl.searchParams.get("prompt")).toBe("consent");
    expect(connection.remoteUser).toBe("ada@zylker.test");
    connectionId = connection.id;
  });

  it("deleting the connection revokes its refresh token at /oauth/v2/revoke/token, the client as Basic, no token in the URL", async () => {
    const [refreshToken] = refreshTokens;
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    const revocations = flow.at(ACCOUNTS, "/oauth/v2/revoke/token");
    expect(revocations).toHaveLength(1);
    expect(form(revocations[0]!)).toEqual({ token: refreshToken, token_type: "refresh_token" });
    expect(revocations[0]!.target).toBe("/oauth/v2/revoke/token");
    expect(refreshTokens.size).toBe(0);
    expect(flow.logs.some((line) => line.includes("revocation failed"))).toBe(false);
    flow.assertNoLeaks([...allTokens, flow.clientSecret]);
  });
});
