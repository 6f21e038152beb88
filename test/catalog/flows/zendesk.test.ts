import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, basicPair, type EmulatedRequest, type Flow, jsonBody, mint, startFlow } from "./emulation.js";

/*
 * Zendesk Support, as its documentation describes OAuth and API tokens:
 * - https://support.zendesk.com/hc/en-us/articles/4408845965210 (authorization at
 *   https://{subdomain}.zendesk.com/oauth/authorizations/new with response_type=code, client_id,
 *   redirect_uri, a space-separated scope and state)
 * - https://developer.zendesk.com/api-reference/ticketing/oauth/grant_type_tokens/ (POST
 *   https://{subdomain}.zendesk.com/oauth/tokens with a JSON body: grant_type, code, client_id,
 *   client_secret, redirect_uri, scope, and code_verifier with PKCE; the same endpoint refreshes)
 * - https://support.zendesk.com/hc/en-us/articles/9182123625370 (a refresh returns a new access
 *   token and a new refresh token and deletes the previous pair)
 * - https://developer.zendesk.com/documentation/api-basics/authentication/revoking-oauth-token
 *   (DELETE /api/v2/oauth/tokens/current.json with the token revokes it)
 * - https://developer.zendesk.com/api-reference/ticketing/users/users/#show-the-currently-authenticated-user
 *   (GET /api/v2/users/me.json; a wrong credential is a 401 "Couldn't authenticate you", while a
 *   request with no credential at all is answered 200 with the anonymous user)
 * - https://support.zendesk.com/hc/en-us/articles/4408889192858 (an API token is sent as Basic
 *   with the username {email}/token)
 */

const SUB = "acme";
const HOST = `${SUB}.zendesk.com`;
const API = `https://${HOST}/api/v2`;
const API_TOKEN = mint("zd_");

let flow: Flow;
const codes = new Set<string>();
const accessTokens = new Set<string>();
const refreshTokens = new Set<string>();
const allTokens: string[] = [];
const revoked: string[] = [];

function issueTokens() {
  const accessToken = mint("zdat");
  const refreshToken = mint("zdrt");
  accessTokens.add(accessToken);
  refreshTokens.add(refreshToken);
  allTokens.push(accessToken, refreshToken);
  return {
    access_token: accessToken,
    token_type: "bearer",
    scope: "read write",
    expires_in: 172800,
    refresh_token: refreshToken,
    refresh_token_expires_in: 7776000,
  };
}

function emulate(request: EmulatedRequest) {
  const { host, method, path } = request;
  if (host !== HOST) return { status: 404, body: "no such account" };
  if (path === "/oauth/authorizations/new") {
    if (request.query.get("scope") !== "read write") return { status: 400, body: "invalid scope" };
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
  }
  if (method === "POST" && path === "/oauth/tokens") {
    if (!/^application\/json/.test(request.headers["content-type"] ?? "")) return { status: 400, body: { error: "invalid_request" } };
    const body = jsonBody(request) as Record<string, string>;
    if (body.client_id !== flow.clientId || body.client_secret !== flow.clientSecret) {
      return { status: 401, body: { error: "invalid_client", error_description: "Client authentication failed." } };
    }
    if (body.grant_type === "authorization_code" && codes.delete(body.code ?? "") && body.redirect_uri === flow.callbackUrl) {
      return { body: issueTokens() };
    }
    if (body.grant_type === "refresh_token" && refreshTokens.has(body.refresh_token ?? "")) {
      refreshTokens.clear();
      accessTokens.clear();
      return { body: issueTokens() };
    }
    return {
      status: 400,
      body: { error: "invalid_grant", error_description: "The provided authorization grant is invalid, expired, or revoked." },
    };
  }
  const authorization = request.headers.authorization;
  if (!authorization) return { body: { user: { id: null, name: "Anonymous user", email: "invalid@example.com" } } };
  const bearer = /^Bearer (.+)$/.exec(authorization)?.[1];
  const pair = basicPair(request);
  const email = bearer && accessTokens.has(bearer) ? "agent@acme.test" : pair?.[1] === API_TOKEN ? pair[0].replace(/\/token$/, "") : null;
  if (!email) return { status: 401, body: { error: "Couldn't authenticate you" } };
  if (method === "DELETE" && path === "/api/v2/oauth/tokens/current.json" && bearer) {
    accessTokens.delete(bearer);
    revoked.push(bearer);
    return { status: 204 };
  }
  if (path === "/api/v2/users/me.json") return { body: { user: { id: 35436, name: "Agent", email } } };
  if (path === "/api/v2/tickets.json") return { body: { tickets: [{ id: 35436, subject: "Help, my printer is on fire!" }] } };
  return { status: 404, body: { error: "InvalidEndpoint" } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "zendesk", hosts: [HOST], emulate });
});
afterAll(() => flow?.close());

describe("Zendesk, end to end", () => {
  let connectionId: string;
  const tickets = (connection_id: string) => ({ toolkit: "zendesk", method: "GET", url: `${API}/tickets.json`, connection_id });

  it("connects on the subdomain's own host: JSON token request with the secret and PKCE verifier", async () => {
    const { authorizationUrl, connection } = await flow.connect({ config: { subdomain: SUB } });
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`https://${HOST}/oauth/authorizations/new`);
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    const exchange = flow.at(HOST, "/oauth/tokens").at(-1)!;
    expect(jsonBody(exchange)).toMatchObject({
      grant_type: "authorization_code",
      client_id: flow.clientId,
      client_secret: flow.clientSecret,
      redirect_uri: flow.callbackUrl,
      code_verifier: expect.stringMatching(/^[\w-]{43,}$/),
    });
    expect(connection).toMatchObject({ remoteUser: "agent@acme.test", config: { subdomain: SUB } });
    connectionId = connection.id;
  });

  it('`subdomain: "a.b"` and other bad values are 400s naming subdomain, and reach no URL in either mode', async () => {
    const before = flow.requests.length;
    for (const subdomain of ["a.b", "acme.zendesk.com/evil", "evil.com"]) {
      const oauth = await flow.call("POST", "/auth", { toolkit: "zendesk", config: { subdomain } });
      const basic = await flow.call("POST", "/auth", {
        toolkit: "zendesk",
        credentials: { username: "agent@acme.test/token", password: API_TOKEN },
        config: { subdomain },
      });
      for (const res of [oauth, basic]) {
        expect(res.status).toBe(400);
        expect(res.json.error).toContain("config.subdomain is not valid");
        expect(res.json.error).toContain("^[a-z0-9][a-z0-9-]{0,62}$");
      }
    }
    expect(flow.requests.length).toBe(before);
  });

  it("refreshes on a 401, and keeps the pair Zendesk rotated", async () => {
    for (let round = 0; round < 2; round++) {
      const [current] = refreshTokens;
      accessTokens.clear();
      const res = await flow.call("POST", "/proxy", tickets(connectionId));
      expect(res.json, res.text).toMatchObject({ successful: true, data: { tickets: [{ subject: "Help, my printer is on fire!" }] } });
      expect(jsonBody(flow.at(HOST, "/oauth/tokens").at(-1)!)).toMatchObject({
        grant_type: "refresh_token",
        refresh_token: current,
        client_id: flow.clientId,
        client_secret: flow.clientSecret,
      });
    }
  });

  it("a wrong code is Zendesk's 400 invalid_grant: the callback fails and no connection is made", async () => {
    const started = await flow.call("POST", "/auth", { toolkit: "zendesk", config: { subdomain: SUB } });
    const state = new URL(started.json.authorizationUrl).searchParams.get("state")!;
    const res = await fetch(`${flow.callbackUrl}?code=${mint("wrong")}&state=${state}`, { headers: { accept: "application/json" } });
    expect(await res.json()).toEqual({
      code: "invalid_request",
      error: "The provider refused the code exchange (invalid_grant). Start the connection again.",
    });
    expect((await flow.call("GET", "/connections?toolkit=zendesk")).json.connections).toHaveLength(1);
  });

  it("deleting the connection revokes its current token with DELETE /oauth/tokens/current.json", async () => {
    const [current] = accessTokens;
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    expect(revoked).toEqual([current]);
  });

  it("the API-token mode: Basic {email}/token, verified by /users/me.json, refused when Zendesk refuses it", async () => {
    const bad = await flow.call("POST", "/auth", {
      toolkit: "zendesk",
      credentials: { username: "agent@acme.test/token", password: mint("zd_") },
      config: { subdomain: SUB },
    });
    expect(bad.status).toBe(400);
    const good = await flow.call("POST", "/auth", {
      toolkit: "zendesk",
      credentials: { username: "agent@acme.test/token", password: API_TOKEN },
      config: { subdomain: SUB },
    });
    expect(good.status, good.text).toBe(201);
    expect(good.json.connection).toMatchObject({ remoteUser: "agent@acme.test", config: { subdomain: SUB } });
    const res = await flow.call("POST", "/proxy", tickets(good.json.connection.id));
    expect(res.json).toMatchObject({ successful: true });
    expect(basicPair(flow.at(HOST, "/api/v2/tickets.json").at(-1)!)).toEqual(["agent@acme.test/token", API_TOKEN]);
    flow.assertNoLeaks([...allTokens, API_TOKEN, flow.clientSecret, ...codes]);
  });
});
