import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, basicPair, type EmulatedAnswer, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * Salesforce, as its documentation describes a connected app's web server flow:
 * - https://help.salesforce.com/HTViewHelpDoc?id=xcloud.remoteaccess_oauth_web_server_flow_ca.htm
 *   (authorization at /services/oauth2/authorize with PKCE; the code exchanged at
 *   /services/oauth2/token with client_id and client_secret in the form body; the answer holds
 *   access_token, refresh_token, signature, scope, instance_url, id, token_type and issued_at, and
 *   no expires_in; a refresh answers a new access token and no new refresh token)
 * - https://login.salesforce.com/.well-known/openid-configuration (the token, revocation and
 *   userinfo endpoints on login.salesforce.com)
 * - https://help.salesforce.com/HTViewHelpDoc?id=remoteaccess_using_userinfo_endpoint.htm
 *   (userinfo: sub, preferred_username)
 * - https://developer.salesforce.com/docs/atlas.en-us.mobile_sdk.meta/mobile_sdk/oauth_revoking_tokens.htm
 *   (POST /services/oauth2/revoke with token= in a form body; revoking a refresh token revokes its
 *   access tokens too; 200 on success, 400 invalid_token for a token that is not valid)
 * - https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm
 *   (an expired session is 401 with errorCode INVALID_SESSION_ID)
 */

let flow: Flow;
const codes = new Set<string>();
const grants = new Map<string, Set<string>>(); // refresh token → its access tokens
const accessTokens = new Set<string>();
const issued: string[] = [];
const refuseOnce = new Set<string>();
let instanceUrl = "https://acme.my.salesforce.com";

const ID = "https://login.salesforce.com/id/00Dxx0000001gPLEAY/005xx000001SwiUAAS";

function newAccessToken(refresh: string): string {
  const token = mint("00Dxx0000001gPL!AR8AQ");
  accessTokens.add(token);
  issued.push(token);
  grants.get(refresh)!.add(token);
  return token;
}

function tokenAnswer(accessToken: string) {
  return {
    access_token: accessToken,
    signature: mint(""),
    scope: "refresh_token id api",
    instance_url: instanceUrl,
    id: ID,
    token_type: "Bearer",
    issued_at: String(Date.now()),
  };
}

function emulate(request: EmulatedRequest): EmulatedAnswer {
  const { host, method, path } = request;
  if (host === "login.salesforce.com") {
    if (path === "/services/oauth2/authorize") {
      return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
    }
    const fields = form(request);
    if (method === "POST" && path === "/services/oauth2/token") {
      if (fields.client_id !== flow.clientId || fields.client_secret !== flow.clientSecret) {
        return { status: 400, body: { error: "invalid_client", error_description: "invalid client credentials" } };
      }
      if (fields.grant_type === "refresh_token") {
        if (!grants.has(fields.refresh_token ?? ""))
          return { status: 400, body: { error: "invalid_grant", error_description: "expired access/refresh token" } };
        return { body: tokenAnswer(newAccessToken(fields.refresh_token!)) };
      }
      if (!codes.delete(fields.code ?? ""))
        return { status: 400, body: { error: "invalid_grant", error_description: "expired authorization code" } };
      const refresh = mint("5Aep861");
      grants.set(refresh, new Set());
      return { body: { ...tokenAnswer(newAccessToken(refresh)), refresh_token: refresh } };
    }
    if (method === "POST" && path === "/services/oauth2/revoke") {
      const token = fields.token ?? "";
      const grant = grants.get(token);
      if (grant) {
        for (const access of grant) accessTokens.delete(access);
        grants.delete(token);
        return { status: 200 };
      }
      if (accessTokens.delete(token)) return { status: 200 };
      return { status: 400, body: { error: "invalid_token", error_description: "Token was invalid" } };
    }
  }
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
  if (!accessTokens.has(token) || refuseOnce.delete(token)) {
    return { status: 401, body: [{ message: "Session expired or invalid", errorCode: "INVALID_SESSION_ID" }] };
  }
  if (host === "login.salesforce.com" && path === "/services/oauth2/userinfo") {
    return {
      body: {
        sub: ID,
        user_id: "005xx000001SwiUAAS",
        organization_id: "00Dxx0000001gPLEAY",
        preferred_username: "ada@acme.com",
        email: "ada@acme.com",
      },
    };
  }
  if (host === "acme.my.salesforce.com" && path === "/services/data/v62.0/query") {
    return { body: { totalSize: 1, done: true, records: [{ attributes: { type: "Account" }, Id: "001xx000003DGb2AAG" }] } };
  }
  return { status: 404, body: [{ errorCode: "NOT_FOUND", message: "The requested resource does not exist" }] };
}

beforeAll(async () => {
  flow = await startFlow({
    provider: "salesforce",
    hosts: ["login.salesforce.com", "acme.my.salesforce.com", "other.my.salesforce.com", "na123.salesforce.com"],
    emulate,
  });
});
afterAll(() => flow?.close());

function query(connectionId: string, url = "https://acme.my.salesforce.com/services/data/v62.0/query?q=SELECT+Id+FROM+Account") {
  return flow.call("POST", "/proxy", { toolkit: "salesforce", method: "GET", url, connection_id: connectionId });
}

describe("Salesforce connected app, end to end", () => {
  let connectionId: string;
  let refreshToken: string;

  it("connects: PKCE, the secret in the body, no expires_in, instance_url's My Domain kept as config.instance", async () => {
    const { authorizationUrl, connection } = await flow.connect();
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe("https://login.salesforce.com/services/oauth2/authorize");
    expect(authorizationUrl.searchParams.get("scope")).toBe("api refresh_token id");
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    const exchange = flow.at("login.salesforce.com", "/services/oauth2/token").at(-1)!;
    expect(basicPair(exchange)).toBeNull();
    expect(form(exchange)).toMatchObject({ grant_type: "authorization_code", client_id: flow.clientId, client_secret: flow.clientSecret });
    expect(form(exchange).code_verifier).toBeTruthy();
    expect(connection.remoteUser).toBe("ada@acme.com");
    expect(connection.config).toEqual({ instance: "acme" });
    connectionId = connection.id;
    refreshToken = [...grants.keys()][0]!;
  });

  it("proxies to the instance's My Domain, and nowhere else", async () => {
    const res = await query(connectionId);
    expect(res.json).toMatchObject({ successful: true, data: { totalSize: 1 } });
    expect(flow.at("acme.my.salesforce.com").at(-1)!.headers.authorization).toMatch(/^Bearer 00Dxx0000001gPL!/);
    const elsewhere = await query(connectionId, "https://other.my.salesforce.com/services/data/v62.0/query?q=SELECT+Id+FROM+Account");
    expect(elsewhere.json?.successful).not.toBe(true);
    expect(flow.at("other.my.salesforce.com")).toEqual([]);
  });

  it("without expires_in the token is refreshed on INVALID_SESSION_ID (401), with the secret in the body, keeping the refresh token", async () => {
    for (let round = 0; round < 2; round++) {
      const current = flow.at("acme.my.salesforce.com").at(-1)!.headers.authorization!.slice("Bearer ".length);
      refuseOnce.add(current);
      const res = await query(connectionId);
      expect(res.json, res.text).toMatchObject({ successful: true, data: { totalSize: 1 } });
    }
    const refreshes = flow.at("login.salesforce.com", "/services/oauth2/token").filter((r) => form(r).grant_type === "refresh_token");
    expect(refreshes.map((r) => form(r))).toEqual(
      [0, 1].map(() => ({
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        client_id: flow.clientId,
        client_secret: flow.clientSecret,
      })),
    );
  });

  it("an instance_url outside My Domain (a legacy instance) fails the connection instead of routing to it", async () => {
    instanceUrl = "https://na123.salesforce.com";
    try {
      const started = await flow.call("POST", "/auth", { toolkit: "salesforce" });
      const done = await flow.consent(started.json.authorizationUrl);
      expect(done.status).toBe(400);
      expect(JSON.parse(done.text).error).toBe(
        'The provider\'s token answer did not hold a usable "instance_url", which this toolkit needs as "instance". No connection was made.',
      );
      expect((await flow.call("GET", `/auth/${started.json.authorizationId}`)).json.status).toBe("failed");
      expect(flow.at("na123.salesforce.com")).toEqual([]);
    } finally {
      instanceUrl = "https://acme.my.salesforce.com";
    }
  });

  it("deleting the connection revokes the refresh token (and with it the access token) at /services/oauth2/revoke", async () => {
    const accessToken = flow.at("acme.my.salesforce.com").at(-1)!.headers.authorization!.slice("Bearer ".length);
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    const calls = flow.at("login.salesforce.com", "/services/oauth2/revoke");
    expect(calls.map((r) => form(r).token)).toEqual([refreshToken, accessToken]);
    expect(calls[0]!.headers["content-type"]).toMatch(/^application\/x-www-form-urlencoded/);
    expect(grants.has(refreshToken)).toBe(false);
    expect(accessTokens.has(accessToken)).toBe(false);
    // Salesforce answers 400 invalid_token for the access token its refresh token's revocation ended: no failure.
    expect(flow.logs.filter((line) => line.includes("revocation failed"))).toEqual([]);
  });

  it("nothing secret reached an answer or a log line", () => {
    flow.assertNoLeaks([...issued, refreshToken, flow.clientSecret, ...codes]);
  });
});
