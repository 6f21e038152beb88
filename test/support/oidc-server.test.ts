/**
 * Proves the OAuth 2 / OpenID Connect test fixture (test/support/oidc-server.ts) behaves like a
 * real authorization server, using oauth4webapi directly (not tools-proxy): discovery, the code
 * flow with PKCE and `iss`, userinfo, refresh-token rotation, revocation, denial, and the hooks
 * the library's tests rely on (token request counter, TTL, fault injection, bulk revocation).
 */
import * as oauth from "oauth4webapi";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { authorizeWithFetch, type OidcServer, startOidcServer } from "./oidc-server.js";

const REDIRECT_URI = "https://app.test/proxy/tools/auth/callback";
const insecure = { [oauth.allowInsecureRequests]: true } as const;

let server: OidcServer;
let as: oauth.AuthorizationServer;
let client: oauth.Client;
let clientAuth: oauth.ClientAuth;
const consoleSpies: Array<ReturnType<typeof vi.spyOn>> = [];

beforeAll(async () => {
  for (const method of ["log", "info", "warn", "error", "debug"] as const) consoleSpies.push(vi.spyOn(console, method));
  server = await startOidcServer({ redirectUris: [REDIRECT_URI] });
  const issuer = new URL(server.issuer);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  client = { client_id: server.clientId };
  clientAuth = oauth.ClientSecretBasic(server.clientSecret);
});

afterAll(async () => {
  await server?.close();
});

afterEach(() => {
  server.setAccessTokenTtl(3600);
  server.setTokenDelay(0);
});

/** Builds an authorization URL the way a client would; returns it with its state and PKCE verifier. */
async function authorizationRequest(scope = "openid profile email notes:read") {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: server.clientId,
    redirect_uri: REDIRECT_URI,
    response_type: "code",
    scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
  }).toString();
  return { url, state, codeVerifier };
}

/** Runs the whole code flow and returns the token response. */
async function connect(login = "alice", scope?: string) {
  const request = await authorizationRequest(scope);
  const callback = await authorizeWithFetch(request.url, { login });
  const params = oauth.validateAuthResponse(as, client, callback, request.state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, REDIRECT_URI, request.codeVerifier, insecure);
  return oauth.processAuthorizationCodeResponse(as, client, response);
}

async function refresh(refreshToken: string, auth = clientAuth) {
  return oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, insecure));
}

async function userinfo(accessToken: string, sub = "alice") {
  return oauth.processUserInfoResponse(as, client, sub, await oauth.userInfoRequest(as, client, accessToken, insecure));
}

describe("OIDC fixture", () => {
  it("publishes standard metadata for an http loopback issuer", () => {
    expect(server.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(as.issuer).toBe(server.issuer);
    expect(as.authorization_endpoint).toBe(server.endpoints.authorization);
    expect(as.token_endpoint).toBe(server.endpoints.token);
    expect(as.userinfo_endpoint).toBe(server.endpoints.userinfo);
    expect(as.revocation_endpoint).toBe(server.endpoints.revocation);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.code_challenge_methods_supported).toEqual(["S256"]);
    expect(as.scopes_supported).toEqual(expect.arrayContaining(["openid", "offline_access", "notes:read", "notes:write"]));
    expect(as.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
  });

  it("runs the authorization code flow with PKCE, iss, userinfo and a refresh token", async () => {
    const request = await authorizationRequest();
    const before = server.tokenRequests.length;
    const callback = await authorizeWithFetch(request.url, { login: "alice" });

    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(callback.searchParams.get("iss")).toBe(server.issuer);
    expect(callback.searchParams.get("state")).toBe(request.state);
    const params = oauth.validateAuthResponse(as, client, callback, request.state);
    expect(params.get("code")).toBeTruthy();

    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      REDIRECT_URI,
      request.codeVerifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens.token_type.toLowerCase()).toBe("bearer");
    expect(tokens.access_token).toBeTruthy();
    expect(tokens.refresh_token).toBeTruthy();
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope?.split(" ").sort()).toEqual(["email", "notes:read", "openid", "profile"]);
    expect(oauth.getValidatedIdTokenClaims(tokens)?.sub).toBe("alice");

    const info = await userinfo(tokens.access_token);
    expect(info).toMatchObject(server.userinfoFor("alice"));
    expect(info).toEqual({ sub: "alice", name: "Alice", email: "alice@example.test", email_verified: true });

    expect(server.tokenRequests.slice(before)).toEqual([
      { grantType: "authorization_code", at: expect.any(Number), authMethod: "client_secret_basic", status: 200 },
    ]);
  });

  it("rejects the authorization response when iss or state do not match", async () => {
    const request = await authorizationRequest();
    const callback = await authorizeWithFetch(request.url);
    expect(() => oauth.validateAuthResponse(as, client, callback, "another-state")).toThrow(/state/);
    const forged = new URL(callback);
    forged.searchParams.set("iss", "http://127.0.0.1:1");
    expect(() => oauth.validateAuthResponse(as, client, forged, request.state)).toThrow(/iss/);
  });

  it("fails the code exchange for a wrong PKCE verifier, a replayed code, and a wrong secret", async () => {
    const request = await authorizationRequest();
    const params = oauth.validateAuthResponse(as, client, await authorizeWithFetch(request.url), request.state);
    const wrongVerifier = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      REDIRECT_URI,
      oauth.generateRandomCodeVerifier(),
      insecure,
    );
    await expect(oauth.processAuthorizationCodeResponse(as, client, wrongVerifier)).rejects.toMatchObject({ error: "invalid_grant" });

    const again = await authorizationRequest();
    const againParams = oauth.validateAuthResponse(as, client, await authorizeWithFetch(again.url), again.state);
    const badSecret = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic("nope"),
      againParams,
      REDIRECT_URI,
      again.codeVerifier,
      insecure,
    );
    // A 401 with WWW-Authenticate: oauth4webapi reports it as a challenge error.
    await expect(oauth.processAuthorizationCodeResponse(as, client, badSecret)).rejects.toMatchObject({
      status: 401,
      cause: [{ scheme: "basic", parameters: { error: "invalid_client" } }],
    });
    const ok = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, againParams, REDIRECT_URI, again.codeVerifier, insecure);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, ok);
    const replay = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      againParams,
      REDIRECT_URI,
      again.codeVerifier,
      insecure,
    );
    await expect(oauth.processAuthorizationCodeResponse(as, client, replay)).rejects.toMatchObject({ error: "invalid_grant" });
    // A replayed code revokes what it issued (RFC 6749 §4.1.2).
    expect(await server.isAccessTokenActive(tokens.access_token)).toBe(false);
  });

  it("accepts client_secret_post as well", async () => {
    const tokens = await connect();
    const before = server.tokenRequests.length;
    const rotated = await refresh(tokens.refresh_token!, oauth.ClientSecretPost(server.clientSecret));
    expect(rotated.access_token).toBeTruthy();
    expect(server.tokenRequests.slice(before).map((r) => r.authMethod)).toEqual(["client_secret_post"]);
  });

  it("rotates the refresh token on every use and rejects the old one with invalid_grant", async () => {
    const tokens = await connect();
    const before = server.tokenRequests.length;
    const first = await refresh(tokens.refresh_token!);
    expect(first.refresh_token).toBeTruthy();
    expect(first.refresh_token).not.toBe(tokens.refresh_token);
    expect(first.access_token).not.toBe(tokens.access_token);
    expect(first.scope?.split(" ").sort()).toEqual(["email", "notes:read", "openid", "profile"]);
    expect((await userinfo(first.access_token)).sub).toBe("alice");

    const second = await refresh(first.refresh_token!);
    expect(second.refresh_token).not.toBe(first.refresh_token);

    // Reusing a rotated refresh token fails, and (reuse detection) revokes the whole grant.
    await expect(refresh(tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    await expect(refresh(second.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    expect(await server.isAccessTokenActive(second.access_token)).toBe(false);

    expect(server.tokenRequests.slice(before).map((r) => [r.grantType, r.status])).toEqual([
      ["refresh_token", 200],
      ["refresh_token", 200],
      ["refresh_token", 400],
      ["refresh_token", 400],
    ]);
  });

  it("lets only one of two concurrent refreshes with the same token succeed", async () => {
    const tokens = await connect();
    server.setTokenDelay(50);
    const results = await Promise.allSettled([refresh(tokens.refresh_token!), refresh(tokens.refresh_token!)]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const rejected = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ error: "invalid_grant" });
    // Reuse detection revokes the grant, so even the winner's new tokens are dead.
    const winner = (results.find((r) => r.status === "fulfilled") as PromiseFulfilledResult<oauth.TokenEndpointResponse>).value;
    expect(await server.isAccessTokenActive(winner.access_token)).toBe(false);
    await expect(refresh(winner.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("revokes tokens: revoking either token revokes its whole grant", async () => {
    const before = server.revocations.length;

    const a = await connect();
    const atRevocation = await oauth.revocationRequest(as, client, clientAuth, a.access_token, {
      ...insecure,
      additionalParameters: { token_type_hint: "access_token" },
    });
    await oauth.processRevocationResponse(atRevocation);
    await expect(userinfo(a.access_token)).rejects.toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect(await server.isAccessTokenActive(a.access_token)).toBe(false);
    // oidc-provider revokes every token of the grant, the refresh token included.
    await expect(refresh(a.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });

    const b = await connect();
    const refreshed = await refresh(b.refresh_token!);
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token!, insecure));
    await expect(refresh(refreshed.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    expect(await server.isAccessTokenActive(refreshed.access_token)).toBe(false);

    // Revoking an unknown token is still a 200 (RFC 7009 §2.2).
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, "not-a-token", insecure));

    expect(server.revocations.slice(before)).toEqual([
      { token: a.access_token, tokenTypeHint: "access_token", at: expect.any(Number), authMethod: "client_secret_basic", status: 200 },
      { token: refreshed.refresh_token, at: expect.any(Number), authMethod: "client_secret_basic", status: 200 },
      { token: "not-a-token", at: expect.any(Number), authMethod: "client_secret_basic", status: 200 },
    ]);
  });

  it("redirects with error=access_denied when the user cancels consent", async () => {
    const request = await authorizationRequest();
    const before = server.tokenRequests.length;
    const callback = await authorizeWithFetch(request.url, { login: "alice", decision: "deny" });
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expect(callback.searchParams.get("state")).toBe(request.state);
    expect(callback.searchParams.get("iss")).toBe(server.issuer);
    expect(() => oauth.validateAuthResponse(as, client, callback, request.state)).toThrow(oauth.AuthorizationResponseError);
    expect(server.tokenRequests.length).toBe(before);
  });

  it("refuses an authorization request without PKCE or with an unregistered redirect_uri", async () => {
    const request = await authorizationRequest();
    const noPkce = new URL(request.url);
    noPkce.searchParams.delete("code_challenge");
    noPkce.searchParams.delete("code_challenge_method");
    const callback = await authorizeWithFetch(noPkce);
    expect(callback.searchParams.get("error")).toBe("invalid_request");

    const foreign = new URL(request.url);
    foreign.searchParams.set("redirect_uri", "https://evil.test/callback");
    await expect(authorizeWithFetch(foreign)).rejects.toThrow(/redirect_uri/);
  });

  it("issues access tokens with the configured lifetime", async () => {
    server.setAccessTokenTtl(3);
    const tokens = await connect();
    const issued = Date.now();
    expect(tokens.expires_in).toBe(3);
    // Checked while clearly inside the lifetime, then polled until it ends (a loaded machine is slow).
    if (Date.now() - issued < 2000) expect(await server.isAccessTokenActive(tokens.access_token)).toBe(true);
    while (await server.isAccessTokenActive(tokens.access_token)) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(Date.now() - issued).toBeGreaterThanOrEqual(2000);
    server.setAccessTokenTtl(3600);
    const refreshed = await refresh(tokens.refresh_token!);
    expect(refreshed.expires_in).toBe(3600);
    expect(await server.isAccessTokenActive(refreshed.access_token)).toBe(true);
  });

  it("invalidates refresh tokens, access tokens or whole grants on demand", async () => {
    const a = await connect();
    await server.invalidateRefreshTokens();
    await expect(refresh(a.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    expect(await server.isAccessTokenActive(a.access_token)).toBe(true);

    const b = await connect();
    await server.revokeAccessTokens();
    expect(await server.isAccessTokenActive(b.access_token)).toBe(false);
    const b2 = await refresh(b.refresh_token!);

    await server.revokeAllGrants();
    expect(await server.isAccessTokenActive(b2.access_token)).toBe(false);
    await expect(refresh(b2.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("injects token endpoint failures without consuming the grant", async () => {
    const tokens = await connect();
    server.failNextTokenRequests(1, { status: 503, error: "temporarily_unavailable", grantType: "refresh_token" });
    const before = server.tokenRequests.length;
    const failed = await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure);
    expect(failed.status).toBe(503);
    expect(await failed.json()).toEqual({ error: "temporarily_unavailable", error_description: "injected by the test fixture" });
    const ok = await refresh(tokens.refresh_token!);
    expect(ok.access_token).toBeTruthy();
    expect(server.tokenRequests.slice(before).map((r) => [r.status, r.injected ?? false])).toEqual([
      [503, true],
      [200, false],
    ]);
  });

  it("serves a protected resource that checks tokens, expiry and scopes", async () => {
    // Long enough for the checks below on a loaded machine; its end is then waited for.
    server.setAccessTokenTtl(4);
    const tokens = await connect("alice", "openid notes:read");
    const api = (path: string, token?: string, init: RequestInit = {}) =>
      fetch(`${server.apiBaseUrl}${path}`, {
        ...init,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers ?? {}) },
      });

    const notes = await api("/notes", tokens.access_token);
    expect(notes.status).toBe(200);
    expect(await notes.json()).toMatchObject({ sub: "alice", notes: expect.any(Array) });
    expect(await (await api("/me", tokens.access_token)).json()).toEqual({
      sub: "alice",
      scope: "openid notes:read",
      clientId: server.clientId,
    });

    const write = await api("/notes", tokens.access_token, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(write.status).toBe(403);
    expect(write.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    expect((await api("/notes")).status).toBe(401);

    while (await server.isAccessTokenActive(tokens.access_token)) await new Promise((resolve) => setTimeout(resolve, 50));
    const expired = await api("/notes", tokens.access_token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get("www-authenticate")).toContain('error="invalid_token"');

    const refreshed = await refresh(tokens.refresh_token!);
    expect((await api("/notes", refreshed.access_token)).status).toBe(200);
    expect(server.apiRequests.slice(-3).map((r) => r.status)).toEqual([401, 401, 200]);
    expect(server.apiRequests.at(-1)).toMatchObject({ method: "GET", path: "/api/notes", accessToken: refreshed.access_token });
  });

  it("uses account claims from options", async () => {
    const custom = await startOidcServer({
      redirectUris: ["http://127.0.0.1:9/cb"],
      tokenEndpointAuthMethod: "client_secret_post",
      accounts: { bob: { email: "robert@corp.test", name: "Robert" } },
    });
    try {
      expect(custom.userinfoFor("bob")).toEqual({ sub: "bob", name: "Robert", email: "robert@corp.test", email_verified: true });
      const issuer = new URL(custom.issuer);
      const meta = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
      const c: oauth.Client = { client_id: custom.clientId };
      const verifier = oauth.generateRandomCodeVerifier();
      const url = new URL(meta.authorization_endpoint!);
      url.search = new URLSearchParams({
        client_id: custom.clientId,
        redirect_uri: "http://127.0.0.1:9/cb",
        response_type: "code",
        scope: "openid email profile",
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
      }).toString();
      const callback = await custom.authorizeWithFetch(url, { login: "bob" });
      expect(callback.origin).toBe("http://127.0.0.1:9");
      const params = oauth.validateAuthResponse(meta, c, callback, oauth.expectNoState);
      const auth = oauth.ClientSecretPost(custom.clientSecret);
      const tokens = await oauth.processAuthorizationCodeResponse(
        meta,
        c,
        await oauth.authorizationCodeGrantRequest(meta, c, auth, params, "http://127.0.0.1:9/cb", verifier, insecure),
      );
      const info = await oauth.processUserInfoResponse(meta, c, "bob", await oauth.userInfoRequest(meta, c, tokens.access_token, insecure));
      expect(info).toEqual(custom.userinfoFor("bob"));
    } finally {
      await custom.close();
    }
  });

  it("stays quiet and error-free", () => {
    for (const spy of consoleSpies) expect(spy).not.toHaveBeenCalled();
    expect(server.serverErrors).toEqual([]);
  });
});
