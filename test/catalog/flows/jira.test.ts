import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, type EmulatedRequest, type Flow, jsonBody, mint, startFlow } from "./emulation.js";

/*
 * Jira Cloud through Atlassian's OAuth 2.0 (3LO), as its documentation describes it:
 * - https://developer.atlassian.com/cloud/jira/platform/oauth-2-3lo-apps/ (the authorization URL
 *   https://auth.atlassian.com/authorize with audience=api.atlassian.com, client_id, a
 *   space-separated scope, redirect_uri, state, response_type=code and prompt=consent; the code is
 *   exchanged at POST https://auth.atlassian.com/oauth/token with a JSON body holding grant_type,
 *   client_id, client_secret, code and redirect_uri)
 * - https://developer.atlassian.com/cloud/oauth/getting-started/making-calls-to-api/ (GET
 *   https://api.atlassian.com/oauth/token/accessible-resources lists the sites, each with its cloud
 *   id as `id`; calls go to https://api.atlassian.com/ex/jira/{cloudId}/...)
 * - https://developer.atlassian.com/cloud/oauth/getting-started/refresh-tokens/ (offline_access
 *   gives a refresh token; refresh with the same JSON body and grant_type=refresh_token; every
 *   refresh returns a new refresh token and disables the one used; an unknown or used one is a
 *   403 with error "invalid_grant", "Unknown or invalid refresh token.")
 * - https://developer.atlassian.com/cloud/jira/platform/oauth-2-3lo-apps/#how-do-i-retrieve-the-public-profile-of-the-authenticated-user-
 *   (GET https://api.atlassian.com/me, with read:me, answers account_id, email and name)
 * Atlassian documents no revocation endpoint for 3LO tokens.
 */

const CLOUD_ID = "1324a887-45db-1bf4-1e99-ef0ff456d421";

let flow: Flow;
const codes = new Set<string>();
const accessTokens = new Set<string>();
const liveRefreshTokens = new Set<string>();
const allTokens: string[] = [];

function issueTokens() {
  const accessToken = mint("eyJraWQiOiJhdXRoLmF0bGFzc2lhbi5jb20.");
  const refreshToken = mint("eyJrZWZyZXNo.");
  accessTokens.add(accessToken);
  liveRefreshTokens.add(refreshToken);
  allTokens.push(accessToken, refreshToken);
  return {
    access_token: accessToken,
    expires_in: 3600,
    token_type: "Bearer",
    refresh_token: refreshToken,
    scope: "read:jira-work write:jira-work read:jira-user read:me offline_access",
  };
}

function emulate(request: EmulatedRequest) {
  const { host, method, path } = request;
  if (host === "auth.atlassian.com" && path === "/authorize") {
    const q = request.query;
    if (q.get("audience") !== "api.atlassian.com" || q.get("response_type") !== "code") {
      return { status: 400, body: "Invalid audience or response_type" };
    }
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
  }
  if (host === "auth.atlassian.com" && method === "POST" && path === "/oauth/token") {
    if (!/^application\/json/.test(request.headers["content-type"] ?? "")) {
      return { status: 415, body: { error: "unsupported_media_type" } };
    }
    const body = jsonBody(request) as Record<string, string>;
    if (body.client_id !== flow.clientId || body.client_secret !== flow.clientSecret) {
      return { status: 401, body: { error: "access_denied", error_description: "Unauthorized" } };
    }
    if (body.grant_type === "authorization_code") {
      if (!codes.delete(body.code ?? "") || body.redirect_uri !== flow.callbackUrl) {
        return { status: 403, body: { error: "invalid_grant", error_description: "Invalid authorization code" } };
      }
      return { body: issueTokens() };
    }
    if (body.grant_type === "refresh_token" && liveRefreshTokens.delete(body.refresh_token ?? "")) return { body: issueTokens() };
    return { status: 403, body: { error: "invalid_grant", error_description: "Unknown or invalid refresh token." } };
  }
  if (host === "api.atlassian.com") {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (!token || !accessTokens.has(token)) return { status: 401, body: { code: 401, message: "Unauthorized" } };
    if (path === "/me") return { body: { account_id: "5b10a2844c20165700ede21g", email: "mia@example.com", name: "Mia Krystof" } };
    if (path === "/oauth/token/accessible-resources") {
      return {
        body: [
          { id: CLOUD_ID, name: "acme", url: "https://acme.atlassian.net", scopes: ["read:jira-work", "write:jira-work"], avatarUrl: "" },
        ],
      };
    }
    if (path === `/ex/jira/${CLOUD_ID}/rest/api/3/myself`) return { body: { accountId: "5b10a2844c20165700ede21g", displayName: "Mia" } };
  }
  return { status: 404, body: { message: "Not Found" } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "jira", hosts: ["auth.atlassian.com", "api.atlassian.com"], emulate });
});
afterAll(() => flow?.close());

describe("Jira (Atlassian 3LO), end to end", () => {
  let connectionId: string;
  const myself = () => `https://api.atlassian.com/ex/jira/${CLOUD_ID}/rest/api/3/myself`;

  it("connects: audience and prompt=consent, a JSON token request, /me names the user, accessible-resources the site", async () => {
    const { authorizationUrl, connection } = await flow.connect();
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe("https://auth.atlassian.com/authorize");
    expect(authorizationUrl.searchParams.get("audience")).toBe("api.atlassian.com");
    expect(authorizationUrl.searchParams.get("prompt")).toBe("consent");
    expect(authorizationUrl.searchParams.get("scope")).toBe("read:jira-work write:jira-work read:jira-user read:me offline_access");
    const exchange = flow.at("auth.atlassian.com", "/oauth/token").at(-1)!;
    expect(exchange.headers.authorization).toBeUndefined();
    expect(jsonBody(exchange)).toMatchObject({
      grant_type: "authorization_code",
      client_id: flow.clientId,
      client_secret: flow.clientSecret,
      redirect_uri: flow.callbackUrl,
    });
    expect(connection.remoteUser).toBe("mia@example.com");
    expect(connection.config).toEqual({ cloudId: CLOUD_ID });
    connectionId = connection.id;
  });

  it("proxies to api.atlassian.com/ex/jira/{cloudId} with the bearer token", async () => {
    const res = await flow.call("POST", "/proxy", { toolkit: "jira", method: "GET", url: myself(), connection_id: connectionId });
    expect(res.json).toMatchObject({ successful: true, data: { displayName: "Mia" } });
    const elsewhere = await flow.call("POST", "/proxy", {
      toolkit: "jira",
      method: "GET",
      url: "https://api.atlassian.com/ex/jira/another-cloud/rest/api/3/myself",
      connection_id: connectionId,
    });
    expect(elsewhere.status).toBe(400);
  });

  it("refreshes on a 401 with a JSON body, and the next refresh uses the rotated token", async () => {
    const used: string[] = [];
    for (let round = 0; round < 2; round++) {
      const [current] = liveRefreshTokens;
      used.push(current!);
      accessTokens.clear(); // the hour is up
      const res = await flow.call("POST", "/proxy", { toolkit: "jira", method: "GET", url: myself(), connection_id: connectionId });
      expect(res.json, res.text).toMatchObject({ successful: true });
      const refresh = flow.at("auth.atlassian.com", "/oauth/token").at(-1)!;
      expect(refresh.headers["content-type"]).toMatch(/^application\/json/);
      expect(jsonBody(refresh)).toMatchObject({
        grant_type: "refresh_token",
        client_id: flow.clientId,
        client_secret: flow.clientSecret,
        refresh_token: current,
      });
    }
    expect(used[0]).not.toBe(used[1]);
  });

  it("a refresh token Atlassian no longer knows (403 invalid_grant) expires the connection with a way back", async () => {
    liveRefreshTokens.clear(); // the person removed the app from their connected apps
    accessTokens.clear();
    const res = await flow.call("POST", "/proxy", { toolkit: "jira", method: "GET", url: myself(), connection_id: connectionId });
    expect(res.status).toBe(409);
    expect(res.json.error).toBe(
      `Connection "${connectionId}" is expired. The provider refused the refresh token (invalid_grant: Unknown or invalid refresh token.). ` +
        'Reconnect it with POST /auth {"toolkit":"jira"}.',
    );
  });

  it("deleting the connection sends nothing to Atlassian, which has no revocation endpoint", async () => {
    const before = flow.requests.length;
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    expect(flow.requests.length).toBe(before);
    flow.assertNoLeaks([...allTokens, flow.clientSecret, ...codes]);
  });
});
