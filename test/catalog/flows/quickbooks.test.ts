import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, basicPair, type EmulatedRequest, type Flow, form, jsonBody, mint, startFlow } from "./emulation.js";

/*
 * QuickBooks Online (Intuit), as its documentation describes OAuth 2.0:
 * - https://developer.intuit.com/app/developer/qbo/docs/develop/authentication-and-authorization/oauth-2.0
 *   (consent at https://appcenter.intuit.com/connect/oauth2; the redirect carries code, state and
 *   the company's realmId; the code is exchanged at POST
 *   https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer with the client as HTTP Basic and a
 *   form body; the answer holds access_token, refresh_token, expires_in (3600),
 *   x_refresh_token_expires_in and token_type "bearer"; a refresh may return a new refresh token,
 *   and the latest one must be kept; a refused grant is a 400 with error "invalid_grant"; a person
 *   who declines comes back with error=access_denied)
 * - https://developer.intuit.com/.well-known/openid-sandbox-configuration (revocation_endpoint
 *   https://developer.api.intuit.com/v2/oauth2/tokens/revoke)
 * - https://oauth-pythonclient.readthedocs.io/en/latest/user-guide.html (revocation: POST with the
 *   client as Basic and a JSON body {"token": <refresh token>})
 * - https://developer.intuit.com/app/developer/qbo/docs/api/accounting/all-entities/companyinfo
 *   (GET /v3/company/{realmId}/companyinfo/{realmId}; the API answers XML unless the request
 *   accepts application/json; an expired token is a 401 AUTHENTICATION fault)
 */

const REALM = "9130357766900456";
const API = `https://quickbooks.api.intuit.com/v3/company/${REALM}`;

let flow: Flow;
const codes = new Set<string>();
const accessTokens = new Set<string>();
let liveRefreshToken = "";
const refreshTokensSeen: string[] = [];
const revoked: unknown[] = [];
let decline = false;

function clientIsBasic(request: EmulatedRequest): boolean {
  const pair = basicPair(request);
  return !!pair && pair[0] === flow.clientId && pair[1] === flow.clientSecret;
}

function issueTokens() {
  const accessToken = mint("eyJqbXRfQT.");
  accessTokens.add(accessToken);
  liveRefreshToken = mint("AB11");
  refreshTokensSeen.push(liveRefreshToken);
  return {
    token_type: "bearer",
    expires_in: 3600,
    refresh_token: liveRefreshToken,
    x_refresh_token_expires_in: 8726400,
    access_token: accessToken,
  };
}

const fault = {
  status: 401,
  body: {
    fault: {
      error: [{ message: "message=AuthenticationFailed; errorCode=003200; statusCode=401", detail: "Token expired", code: "3200" }],
      type: "AUTHENTICATION",
    },
  },
};

function emulate(request: EmulatedRequest) {
  const { host, method, path } = request;
  if (host === "appcenter.intuit.com" && path === "/connect/oauth2") {
    if (request.query.get("scope") !== "com.intuit.quickbooks.accounting") return { status: 400, body: "invalid scope" };
    if (decline) {
      const back = new URL(flow.callbackUrl);
      back.searchParams.set("error", "access_denied");
      back.searchParams.set("state", request.query.get("state")!);
      return { status: 302, headers: { location: back.href } };
    }
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code), { realmId: REALM });
  }
  if (host === "oauth.platform.intuit.com" && method === "POST" && path === "/oauth2/v1/tokens/bearer") {
    if (!clientIsBasic(request)) return { status: 401, body: { error: "invalid_client" } };
    const fields = form(request);
    if (fields.grant_type === "authorization_code" && codes.delete(fields.code ?? "")) return { body: issueTokens() };
    if (fields.grant_type === "refresh_token" && fields.refresh_token === liveRefreshToken) return { body: issueTokens() };
    return { status: 400, body: { error: "invalid_grant" } };
  }
  if (host === "developer.api.intuit.com" && method === "POST" && path === "/v2/oauth2/tokens/revoke") {
    if (!clientIsBasic(request)) return { status: 401, body: { error: "invalid_client" } };
    revoked.push(jsonBody(request));
    return { status: 200 };
  }
  if (host === "quickbooks.api.intuit.com") {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (!token || !accessTokens.has(token)) return fault;
    if (!/application\/json/.test(request.headers.accept ?? "")) {
      return { headers: { "content-type": "application/xml" }, body: "<IntuitResponse><CompanyInfo/></IntuitResponse>" };
    }
    if (path === `/v3/company/${REALM}/companyinfo/${REALM}`) {
      return { body: { CompanyInfo: { CompanyName: "Craig's Design and Landscaping Services", Id: "1" }, time: "2024-01-01T00:00:00Z" } };
    }
    if (path === `/v3/company/${REALM}/query`)
      return { body: { QueryResponse: { Customer: [{ Id: "1", DisplayName: "Amy's Bird Sanctuary" }] } } };
  }
  return { status: 404, body: { fault: { error: [{ message: "not found" }] } } };
}

beforeAll(async () => {
  flow = await startFlow({
    provider: "quickbooks",
    hosts: ["appcenter.intuit.com", "oauth.platform.intuit.com", "developer.api.intuit.com", "quickbooks.api.intuit.com"],
    emulate,
  });
});
afterAll(() => flow?.close());

describe("QuickBooks Online, end to end", () => {
  let connectionId: string;

  it("connects: Basic client auth, realmId from the callback into config, identified in the company's own path", async () => {
    const { authorizationUrl, connection } = await flow.connect();
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe("https://appcenter.intuit.com/connect/oauth2");
    const exchange = flow.at("oauth.platform.intuit.com").at(-1)!;
    expect(exchange.headers["content-type"]).toMatch(/application\/x-www-form-urlencoded/);
    expect(form(exchange)).toMatchObject({ grant_type: "authorization_code", redirect_uri: flow.callbackUrl });
    expect(form(exchange).client_secret).toBeUndefined();
    expect(connection.config).toEqual({ realmId: REALM });
    expect(connection.remoteUser).toBe("Craig's Design and Landscaping Services");
    expect(flow.at("quickbooks.api.intuit.com").at(-1)!.headers.accept).toBe("application/json");
    connectionId = connection.id;
  });

  it("a 401 on an expired token refreshes once with Basic and the refresh token, then retries", async () => {
    const firstRefresh = liveRefreshToken;
    accessTokens.clear(); // the hour is up
    const res = await flow.call("POST", "/proxy", {
      toolkit: "quickbooks",
      method: "GET",
      url: `${API}/query?query=${encodeURIComponent("select * from Customer")}`,
      connection_id: connectionId,
    });
    expect(res.json).toMatchObject({ successful: true, data: { QueryResponse: { Customer: [{ DisplayName: "Amy's Bird Sanctuary" }] } } });
    const refresh = flow.at("oauth.platform.intuit.com").at(-1)!;
    expect(basicPair(refresh)).toEqual([flow.clientId, flow.clientSecret]);
    expect(form(refresh)).toEqual({ grant_type: "refresh_token", refresh_token: firstRefresh });
    const calls = flow.at("quickbooks.api.intuit.com", `/v3/company/${REALM}/query`);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.headers.authorization).toBe(`Bearer ${[...accessTokens][0]}`);
  });

  it("keeps the rotated refresh token: the next refresh sends the new one", async () => {
    const rotated = liveRefreshToken;
    expect(rotated).not.toBe(refreshTokensSeen[0]);
    accessTokens.clear();
    const res = await flow.call("POST", "/proxy", {
      toolkit: "quickbooks",
      method: "GET",
      url: `${API}/companyinfo/${REALM}`,
      connection_id: connectionId,
    });
    expect(res.json).toMatchObject({ successful: true });
    expect(form(flow.at("oauth.platform.intuit.com").at(-1)!).refresh_token).toBe(rotated);
  });

  it("a person who declines at Intuit comes back with access_denied: no connection", async () => {
    decline = true;
    try {
      const started = await flow.call("POST", "/auth", { toolkit: "quickbooks" });
      const done = await flow.consent(started.json.authorizationUrl);
      expect(done.status).toBe(400);
      expect(JSON.parse(done.text).error).toBe("Access was denied at the provider, so no connection was made.");
      expect((await flow.call("GET", `/auth/${started.json.authorizationId}`)).json.status).toBe("failed");
    } finally {
      decline = false;
    }
  });

  it("deleting the connection revokes the latest refresh token: Basic, JSON {token}", async () => {
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    expect(revoked).toEqual([{ token: liveRefreshToken }]);
    const sent = flow.at("developer.api.intuit.com").at(-1)!;
    expect(sent.headers["content-type"]).toBe("application/json");
    expect((await flow.call("GET", "/connections?toolkit=quickbooks")).json.connections).toEqual([]);
    flow.assertNoLeaks([...refreshTokensSeen, ...accessTokens, flow.clientSecret, ...codes]);
  });
});
