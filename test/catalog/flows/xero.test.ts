import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, basicPair, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * Xero. Its own pages read for this emulation:
 * - https://developer.xero.com/documentation/oauth2/pkce-flow (authorize at
 *   https://login.xero.com/identity/connect/authorize with a space-separated scope; after the
 *   flow, the app lists the tenants the person connected and sends a tenant id with every call)
 * - https://raw.githubusercontent.com/XeroAPI/Xero-OpenAPI/master/xero-identity.yaml (GET
 *   https://api.xero.com/connections answers tenants with tenantId, tenantName and tenantType)
 * Read on third-party pages, Xero's own auth-flow page not found by search:
 * - https://skillmd.ai/skills/xero (the code is exchanged at POST
 *   https://identity.xero.com/connect/token with the client as HTTP Basic and a form body
 *   grant_type, code, redirect_uri; the answer holds access_token, expires_in 1800, token_type
 *   "Bearer", refresh_token and scope)
 * - https://npmjs.com/package/xero-oauth2.0 (offline_access gives a refresh token; every refresh
 *   returns a new access token and a new refresh token)
 * - https://mcp.waymark.network/r/ab0ad5ce-3697-484f-90ef-9a95df54f552 (calls without the
 *   xero-tenant-id header are refused with 403; an app the person disconnected gets invalid_grant
 *   on refresh)
 * - https://github.com/calcinai/oauth2-xero (README: a grant is revoked with its refresh token;
 *   the entry's revocation endpoint https://identity.xero.com/connect/revocation is RFC 7009)
 */

const TENANT = "fe79f7dd-b6d4-4a92-ba7b-538af6289c58";
const API = "https://api.xero.com/api.xro/2.0";

let flow: Flow;
const codes = new Set<string>();
const accessTokens = new Set<string>();
const refreshTokens = new Set<string>();
const allTokens: string[] = [];
const revoked: Record<string, string>[] = [];

function issueTokens() {
  const accessToken = mint("eyJhbGciOiJSUzI1NiJ9.");
  const refreshToken = mint("xrt");
  accessTokens.add(accessToken);
  refreshTokens.add(refreshToken);
  allTokens.push(accessToken, refreshToken);
  return {
    access_token: accessToken,
    expires_in: 1800,
    token_type: "Bearer",
    refresh_token: refreshToken,
    scope: "offline_access accounting.transactions accounting.contacts accounting.settings.read",
  };
}

function clientIsBasic(request: EmulatedRequest): boolean {
  const pair = basicPair(request);
  return !!pair && pair[0] === flow.clientId && pair[1] === flow.clientSecret;
}

function emulate(request: EmulatedRequest) {
  const { host, method, path } = request;
  if (host === "login.xero.com" && path === "/identity/connect/authorize") {
    if (!request.query.get("scope")?.split(" ").includes("offline_access")) return { status: 400, body: "invalid_scope" };
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
  }
  if (host === "identity.xero.com" && method === "POST") {
    if (!clientIsBasic(request)) return { status: 400, body: { error: "invalid_client" } };
    const fields = form(request);
    if (path === "/connect/revocation") {
      revoked.push(fields);
      refreshTokens.delete(fields.token ?? "");
      return { status: 200 };
    }
    if (path === "/connect/token") {
      if (fields.grant_type === "authorization_code" && codes.delete(fields.code ?? "")) return { body: issueTokens() };
      if (fields.grant_type === "refresh_token" && refreshTokens.delete(fields.refresh_token ?? "")) return { body: issueTokens() };
      return { status: 400, body: { error: "invalid_grant" } };
    }
  }
  if (host === "api.xero.com") {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (!token || !accessTokens.has(token)) {
      return { status: 401, body: { Type: null, Title: "Unauthorized", Status: 401, Detail: "TokenExpired: token expired" } };
    }
    if (path === "/connections") {
      return {
        body: [
          {
            id: "7cb59f93-2964-421d-bb5e-a0f7a4572a44",
            authEventId: "d99ecdfe-391d-43d2-b834-17636ba90e8d",
            tenantId: TENANT,
            tenantType: "ORGANISATION",
            tenantName: "Demo Company (NZ)",
            createdDateUtc: "2019-12-07T18:46:19.5165400",
            updatedDateUtc: "2019-12-07T18:46:19.5187840",
          },
        ],
      };
    }
    if (request.headers["xero-tenant-id"] !== TENANT) {
      return { status: 403, body: { Type: null, Title: "Forbidden", Status: 403, Detail: "AuthenticationUnsuccessful" } };
    }
    if (path === "/api.xro/2.0/Organisation") return { body: { Organisations: [{ Name: "Demo Company (NZ)" }] } };
  }
  return { status: 404, body: { Title: "Not Found" } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "xero", hosts: ["login.xero.com", "identity.xero.com", "api.xero.com"], emulate });
});
afterAll(() => flow?.close());

describe("Xero, end to end", () => {
  let connectionId: string;
  const organisation = (connection_id: string) => ({ toolkit: "xero", method: "GET", url: `${API}/Organisation`, connection_id });

  it("connects: Basic client auth, and the connections lookup reads the tenant into config", async () => {
    const { authorizationUrl, connection } = await flow.connect();
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe("https://login.xero.com/identity/connect/authorize");
    expect(authorizationUrl.searchParams.get("scope")).toBe(
      "offline_access accounting.transactions accounting.contacts accounting.settings.read",
    );
    const exchange = flow.at("identity.xero.com", "/connect/token").at(-1)!;
    expect(form(exchange)).toMatchObject({ grant_type: "authorization_code", redirect_uri: flow.callbackUrl });
    expect(form(exchange).client_secret).toBeUndefined();
    expect(connection).toMatchObject({ remoteUser: "Demo Company (NZ)", config: { tenantId: TENANT } });
    // The tenant is not known yet when the connections are listed, so the header is left out.
    expect(flow.at("api.xero.com", "/connections").at(-1)!.headers["xero-tenant-id"]).toBeUndefined();
    connectionId = connection.id;
  });

  it("proxied calls carry the xero-tenant-id default header and the Accept header", async () => {
    const res = await flow.call("POST", "/proxy", organisation(connectionId));
    expect(res.json).toMatchObject({ successful: true, data: { Organisations: [{ Name: "Demo Company (NZ)" }] } });
    const sent = flow.at("api.xero.com", "/api.xro/2.0/Organisation").at(-1)!;
    expect(sent.headers["xero-tenant-id"]).toBe(TENANT);
    expect(sent.headers.accept).toBe("application/json");
  });

  it("refreshes after the 30 minutes with Basic, keeps the rotated refresh token, and retries with the tenant", async () => {
    for (let round = 0; round < 2; round++) {
      const [current] = refreshTokens;
      accessTokens.clear();
      const res = await flow.call("POST", "/proxy", organisation(connectionId));
      expect(res.json, res.text).toMatchObject({ successful: true });
      const refresh = flow.at("identity.xero.com", "/connect/token").at(-1)!;
      expect(basicPair(refresh)).toEqual([flow.clientId, flow.clientSecret]);
      expect(form(refresh)).toEqual({ grant_type: "refresh_token", refresh_token: current });
      expect(flow.at("api.xero.com", "/api.xro/2.0/Organisation").at(-1)!.headers["xero-tenant-id"]).toBe(TENANT);
    }
  });

  it("deleting the connection revokes the refresh token at Xero's RFC 7009 endpoint with Basic", async () => {
    const [current] = refreshTokens;
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    expect(revoked[0]).toEqual({ token: current });
    expect(basicPair(flow.at("identity.xero.com", "/connect/revocation").at(-1)!)).toEqual([flow.clientId, flow.clientSecret]);
  });

  it("an app disconnected in Xero refreshes into invalid_grant: the connection expires and says how to reconnect", async () => {
    const { connection } = await flow.connect();
    refreshTokens.clear();
    accessTokens.clear();
    const res = await flow.call("POST", "/proxy", organisation(connection.id));
    expect(res.status).toBe(409);
    expect(res.json.error).toContain("The provider refused the refresh token (invalid_grant).");
    expect(res.json.error).toContain('Reconnect it with POST /auth {"toolkit":"xero"}');
    flow.assertNoLeaks([...allTokens, flow.clientSecret, ...codes]);
  });
});
