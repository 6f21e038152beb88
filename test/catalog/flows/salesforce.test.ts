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
 * - https://help.salesforce.com/s/articleView?id=xcloud.remoteaccess_oauth_endpoints.htm&language=en_US&type=5
 *   (the OAuth endpoints live on login.salesforce.com, a My Domain such as MyCompany.my.salesforce.com,
 *   or for sandboxes test.salesforce.com or MyDomainName--SandboxName.sandbox.my.salesforce.com).
 *   Each login host here is its own authorization server: a code, refresh token or access token
 *   it issued is known to it alone, so a request sent to the wrong host fails.
 */

let flow: Flow;
/** Code → the login host that issued it. */
const codes = new Map<string, string>();
const grants = new Map<string, Set<string>>(); // refresh token → its access tokens
/** Refresh or access token → the login host that issued it. */
const issuers = new Map<string, string>();
const accessTokens = new Set<string>();
const issued: string[] = [];
const refuseOnce = new Set<string>();
/** Each login host and the instance its org lives on. */
const instances: Record<string, string> = {
  "login.salesforce.com": "https://acme.my.salesforce.com",
  "test.salesforce.com": "https://acme--dev.sandbox.my.salesforce.com",
  "acme--uat.sandbox.my.salesforce.com": "https://acme--uat.sandbox.my.salesforce.com",
};
let instanceUrl: string | undefined; // a test's replacement for the host's own

const ID = "https://login.salesforce.com/id/00Dxx0000001gPLEAY/005xx000001SwiUAAS";

function newAccessToken(refresh: string): string {
  const token = mint("00Dxx0000001gPL!AR8AQ");
  accessTokens.add(token);
  issued.push(token);
  grants.get(refresh)!.add(token);
  issuers.set(token, issuers.get(refresh)!);
  return token;
}

function tokenAnswer(accessToken: string) {
  return {
    access_token: accessToken,
    signature: mint(""),
    scope: "refresh_token id api",
    instance_url: instanceUrl ?? instances[issuers.get(accessToken)!],
    id: ID,
    token_type: "Bearer",
    issued_at: String(Date.now()),
  };
}

function emulate(request: EmulatedRequest): EmulatedAnswer {
  const { host, method, path } = request;
  if (Object.hasOwn(instances, host) && path.startsWith("/services/oauth2/") && path !== "/services/oauth2/userinfo") {
    if (path === "/services/oauth2/authorize") {
      return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.set(code, host));
    }
    const fields = form(request);
    if (method === "POST" && path === "/services/oauth2/token") {
      if (fields.client_id !== flow.clientId || fields.client_secret !== flow.clientSecret) {
        return { status: 400, body: { error: "invalid_client", error_description: "invalid client credentials" } };
      }
      if (fields.grant_type === "refresh_token") {
        if (!grants.has(fields.refresh_token ?? "") || issuers.get(fields.refresh_token!) !== host)
          return { status: 400, body: { error: "invalid_grant", error_description: "expired access/refresh token" } };
        return { body: tokenAnswer(newAccessToken(fields.refresh_token!)) };
      }
      if (codes.get(fields.code ?? "") !== host)
        return { status: 400, body: { error: "invalid_grant", error_description: "expired authorization code" } };
      codes.delete(fields.code!);
      const refresh = mint("5Aep861");
      grants.set(refresh, new Set());
      issuers.set(refresh, host);
      return { body: { ...tokenAnswer(newAccessToken(refresh)), refresh_token: refresh } };
    }
    if (method === "POST" && path === "/services/oauth2/revoke") {
      const token = fields.token ?? "";
      if (issuers.get(token) !== host) return { status: 400, body: { error: "invalid_token", error_description: "Token was invalid" } };
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
  if (issuers.get(token) === host && path === "/services/oauth2/userinfo") {
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
  if (`https://${host}` === instances[issuers.get(token)!] && path === "/services/data/v62.0/query") {
    return { body: { totalSize: 1, done: true, records: [{ attributes: { type: "Account" }, Id: "001xx000003DGb2AAG" }] } };
  }
  return { status: 404, body: [{ errorCode: "NOT_FOUND", message: "The requested resource does not exist" }] };
}

beforeAll(async () => {
  flow = await startFlow({
    provider: "salesforce",
    hosts: [
      ...Object.keys(instances),
      ...Object.values(instances).map((url) => new URL(url).hostname),
      "acme--dev.my.salesforce.com",
      "other.my.salesforce.com",
      "na123.salesforce.com",
      "evil.example",
    ],
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
    expect(connection.config).toEqual({ loginHost: "login.salesforce.com", instance: "acme" });
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
      instanceUrl = undefined;
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

  it("GET /toolkit/salesforce lists the login host input: optional, its default production, its hosts", async () => {
    const res = await flow.call("GET", "/toolkit/salesforce");
    expect(res.json.inputs).toEqual([
      expect.objectContaining({
        name: "loginHost",
        type: "host",
        optional: true,
        default: "login.salesforce.com",
        hosts: ["login.salesforce.com", "test.salesforce.com", "*.my.salesforce.com", "*.sandbox.my.salesforce.com"],
      }),
    ]);
  });

  it.each([
    ["test.salesforce.com", "acme--dev.sandbox.my.salesforce.com", "acme--dev.sandbox"],
    ["ACME--UAT.sandbox.my.salesforce.com", "acme--uat.sandbox.my.salesforce.com", "acme--uat.sandbox"],
  ])("a sandbox signing in at %s: every OAuth request goes there, the API to %s", async (given, apiHost, instance) => {
    const loginHost = given.toLowerCase();
    const before = flow.requests.length;
    const { authorizationUrl, connection } = await flow.connect({ config: { loginHost: given } });
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`https://${loginHost}/services/oauth2/authorize`);
    expect(connection.config).toEqual({ loginHost, instance });
    expect(connection.remoteUser).toBe("ada@acme.com");

    const res = await query(connection.id, `https://${apiHost}/services/data/v62.0/query?q=SELECT+Id+FROM+Account`);
    expect(res.json, res.text).toMatchObject({ successful: true, data: { totalSize: 1 } });
    // The production instance of the same name is not this connection's.
    const production = await query(connection.id, "https://acme.my.salesforce.com/services/data/v62.0/query?q=SELECT+Id+FROM+Account");
    expect(production.json?.successful).not.toBe(true);

    // An expired session: the refresh goes to the sandbox's login host too.
    refuseOnce.add(flow.at(apiHost).at(-1)!.headers.authorization!.slice("Bearer ".length));
    expect((await query(connection.id, `https://${apiHost}/services/data/v62.0/query?q=SELECT+Id+FROM+Account`)).json).toMatchObject({
      successful: true,
    });
    expect((await flow.call("DELETE", `/connections/${connection.id}`)).status).toBe(204);
    expect(flow.logs.filter((line) => line.includes("revocation failed"))).toEqual([]);

    const oauthCalls = flow.requests.slice(before).filter((r) => r.path.startsWith("/services/oauth2/"));
    expect(oauthCalls.map((r) => `${r.host} ${r.path}`)).toEqual([
      `${loginHost} /services/oauth2/authorize`,
      `${loginHost} /services/oauth2/token`,
      `${loginHost} /services/oauth2/userinfo`,
      `${loginHost} /services/oauth2/token`,
      `${loginHost} /services/oauth2/revoke`,
      `${loginHost} /services/oauth2/revoke`,
    ]);
    expect(form(oauthCalls[3]!).grant_type).toBe("refresh_token");
  });

  it.each([
    "evil.example",
    "login.salesforce.com.evil.example",
    "salesforce.com",
    "a.b.my.salesforce.com",
    "127.0.0.1",
    "login.salesforce.com:8443",
    "https://test.salesforce.com",
  ])("a login host that is not Salesforce's (%s) is a 400 naming the input, before any request", async (loginHost) => {
    const before = flow.requests.length;
    const res = await flow.call("POST", "/auth", { toolkit: "salesforce", config: { loginHost } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      code: "invalid_request",
      error:
        "config.loginHost is not valid: it must be one of these hosts, * being one DNS label: login.salesforce.com, test.salesforce.com, " +
        "*.my.salesforce.com, *.sandbox.my.salesforce.com (default login.salesforce.com). Fix it and send the request again.",
    });
    expect(flow.requests.length).toBe(before);
  });

  it("nothing secret reached an answer or a log line", () => {
    flow.assertNoLeaks([...issued, ...grants.keys(), ...issuers.keys(), refreshToken, flow.clientSecret, ...codes.keys()]);
  });
});
