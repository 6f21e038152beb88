import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogToolkit } from "../../../src/catalog/index.js";
import { basicPair, type EmulatedAnswer, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * Gmail through Google's OAuth 2.0 for web server applications, as Google documents it:
 * - https://developers.google.com/identity/protocols/oauth2/web-server (authorization URL with
 *   access_type=offline and prompt=consent, PKCE S256; the code exchange at
 *   https://oauth2.googleapis.com/token answering access_token, expires_in, refresh_token, scope,
 *   token_type and, with openid, id_token; a refresh answers no new refresh token, the old one stays
 *   valid; revocation at https://oauth2.googleapis.com/revoke with token=, where revoking a token
 *   ends the whole grant, answers 200, or 400 for an error; a user who declines is sent back with
 *   error=access_denied)
 * - https://developers.google.com/identity/openid-connect/reference (ID token claims: iss
 *   https://accounts.google.com, aud the client id, sub, email, nonce; the userinfo endpoint
 *   https://openidconnect.googleapis.com/v1/userinfo answering sub and email)
 * - https://developers.google.com/workspace/gmail/api/reference/rest (the API under
 *   https://gmail.googleapis.com/gmail/v1, a bad token answered with 401 UNAUTHENTICATED)
 * Google's discovery document lists client_secret_post and client_secret_basic for the token
 * endpoint; the emulation accepts either and the test checks the one the handler uses.
 */

let flow: Flow;
const pending = new Map<string, { challenge: string; nonce: string }>(); // code → what the authorization carried
const grants = new Map<string, { refresh: string; access: Set<string> }>(); // refresh token → its grant
const accessTokens = new Map<string, string>(); // access token → refresh token of its grant
const refuseOnce = new Set<string>();
const revokeCalls: string[] = [];
let deny = false;

const SUB = "110169484474386276334";
const EMAIL = "ada@example.com";

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString("base64url");
}

/** An ID token as Google's would read (RS256 in its header); its signature is not checked by a client that got it over TLS. */
function idToken(nonce: string): string {
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: "https://accounts.google.com",
    aud: flow.clientId,
    azp: flow.clientId,
    sub: SUB,
    email: EMAIL,
    email_verified: true,
    nonce,
    iat: now,
    exp: now + 3600,
  };
  return `${base64url(JSON.stringify({ alg: "RS256", kid: "k1", typ: "JWT" }))}.${base64url(JSON.stringify(claims))}.${base64url("signature")}`;
}

function clientAuthOk(request: EmulatedRequest): boolean {
  const pair = basicPair(request);
  const fields = form(request);
  const [id, secret] = pair ?? [fields.client_id, fields.client_secret];
  return id === flow.clientId && secret === flow.clientSecret;
}

function newAccessToken(refresh: string): string {
  const token = mint("ya29.");
  accessTokens.set(token, refresh);
  grants.get(refresh)!.access.add(token);
  return token;
}

function emulate(request: EmulatedRequest): EmulatedAnswer {
  const { host, method, path } = request;
  if (host === "accounts.google.com" && path === "/o/oauth2/v2/auth") {
    const q = request.query;
    if (q.get("client_id") !== flow.clientId || q.get("redirect_uri") !== flow.callbackUrl)
      return { status: 400, body: "redirect_uri_mismatch" };
    const back = new URL(flow.callbackUrl);
    back.searchParams.set("state", q.get("state")!);
    if (deny) back.searchParams.set("error", "access_denied");
    else {
      const code = mint("4/0A");
      pending.set(code, { challenge: q.get("code_challenge")!, nonce: q.get("nonce")! });
      back.searchParams.set("code", code);
    }
    return { status: 302, headers: { location: back.href } };
  }
  if (host === "oauth2.googleapis.com" && method === "POST" && path === "/token") {
    const fields = form(request);
    if (!clientAuthOk(request)) return { status: 401, body: { error: "invalid_client", error_description: "Unauthorized" } };
    if (fields.grant_type === "refresh_token") {
      if (!grants.has(fields.refresh_token ?? ""))
        return { status: 400, body: { error: "invalid_grant", error_description: "Token has been expired or revoked." } };
      // No refresh_token in a refresh's answer: the one the client holds stays valid.
      return {
        body: {
          access_token: newAccessToken(fields.refresh_token!),
          expires_in: 3599,
          scope: "https://www.googleapis.com/auth/gmail.modify openid https://www.googleapis.com/auth/userinfo.email",
          token_type: "Bearer",
        },
      };
    }
    const authorization = pending.get(fields.code ?? "");
    pending.delete(fields.code ?? "");
    if (!authorization || fields.redirect_uri !== flow.callbackUrl)
      return { status: 400, body: { error: "invalid_grant", error_description: "Bad Request" } };
    const verified =
      createHash("sha256")
        .update(fields.code_verifier ?? "")
        .digest("base64url") === authorization.challenge;
    if (!verified) return { status: 400, body: { error: "invalid_grant", error_description: "Invalid code verifier." } };
    const refresh = mint("1//0g");
    grants.set(refresh, { refresh, access: new Set() });
    return {
      body: {
        access_token: newAccessToken(refresh),
        expires_in: 3599,
        refresh_token: refresh,
        scope: "https://www.googleapis.com/auth/gmail.modify openid https://www.googleapis.com/auth/userinfo.email",
        token_type: "Bearer",
        id_token: idToken(authorization.nonce),
      },
    };
  }
  if (host === "oauth2.googleapis.com" && method === "POST" && path === "/revoke") {
    const token = form(request).token ?? "";
    revokeCalls.push(token);
    const grant = grants.get(token) ?? grants.get(accessTokens.get(token) ?? "");
    if (!grant) return { status: 400, body: { error: "invalid_token", error_description: "Token expired or revoked" } };
    // Revoking either token of a grant ends the grant.
    for (const access of grant.access) accessTokens.delete(access);
    grants.delete(grant.refresh);
    return { body: {} };
  }
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
  if (!accessTokens.has(token) || refuseOnce.delete(token)) {
    return {
      status: 401,
      body: { error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } },
    };
  }
  if (host === "openidconnect.googleapis.com" && path === "/v1/userinfo") return { body: { sub: SUB, email: EMAIL, email_verified: true } };
  if (host === "gmail.googleapis.com" && path === "/gmail/v1/users/me/messages")
    return { body: { messages: [{ id: "18c1", threadId: "18c1" }], resultSizeEstimate: 1 } };
  return { status: 404, body: { error: { code: 404, message: "Not Found" } } };
}

beforeAll(async () => {
  flow = await startFlow({
    provider: "gmail",
    hosts: ["accounts.google.com", "oauth2.googleapis.com", "openidconnect.googleapis.com", "gmail.googleapis.com"],
    emulate,
  });
});
afterAll(() => flow?.close());

function listMessages(connectionId: string) {
  return flow.call("POST", "/proxy", {
    toolkit: "gmail",
    method: "GET",
    url: "https://gmail.googleapis.com/gmail/v1/users/me/messages",
    connection_id: connectionId,
  });
}

describe("Gmail through Google OAuth, end to end", () => {
  let connectionId: string;
  let refreshToken: string;

  it("connects: offline access with consent, PKCE and a nonce, the ID token checked, the account read from userinfo", async () => {
    const { authorizationUrl, connection } = await flow.connect();
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe("https://accounts.google.com/o/oauth2/v2/auth");
    const q = authorizationUrl.searchParams;
    expect(q.get("access_type")).toBe("offline");
    expect(q.get("prompt")).toBe("consent");
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("nonce")).toBeTruthy();
    expect(q.get("scope")).toBe("openid email https://www.googleapis.com/auth/gmail.modify");
    const exchange = flow.at("oauth2.googleapis.com", "/token").at(-1)!;
    expect(basicPair(exchange)).toEqual([flow.clientId, flow.clientSecret]);
    expect(form(exchange)).toMatchObject({ grant_type: "authorization_code", redirect_uri: flow.callbackUrl });
    expect(form(exchange).code_verifier).toBeTruthy();
    expect(flow.at("openidconnect.googleapis.com", "/v1/userinfo")).toHaveLength(1);
    expect(connection.remoteUser).toBe(EMAIL);
    connectionId = connection.id;
    refreshToken = [...grants.keys()][0]!;
  });

  it("proxies with the bearer token", async () => {
    const res = await listMessages(connectionId);
    expect(res.json).toMatchObject({ successful: true, data: { resultSizeEstimate: 1 } });
    expect(flow.at("gmail.googleapis.com").at(-1)!.headers.authorization).toMatch(/^Bearer ya29\./);
  });

  it("a 401 refreshes: Google's answer has no refresh token, so the one held is kept for the next refresh", async () => {
    for (let round = 0; round < 2; round++) {
      const current = flow.at("gmail.googleapis.com").at(-1)!.headers.authorization!.slice("Bearer ".length);
      refuseOnce.add(current);
      const res = await listMessages(connectionId);
      expect(res.json, res.text).toMatchObject({ successful: true });
      expect(flow.at("gmail.googleapis.com").at(-1)!.headers.authorization).not.toBe(`Bearer ${current}`);
    }
    const refreshes = flow.at("oauth2.googleapis.com", "/token").filter((r) => form(r).grant_type === "refresh_token");
    expect(refreshes.map((r) => form(r).refresh_token)).toEqual([refreshToken, refreshToken]);
    expect(basicPair(refreshes[0]!)).toEqual([flow.clientId, flow.clientSecret]);
  });

  it("a person who declines at Google comes back with access_denied: no connection", async () => {
    deny = true;
    try {
      const started = await flow.call("POST", "/auth", { toolkit: "gmail" });
      const done = await flow.consent(started.json.authorizationUrl);
      expect(done.status).toBe(400);
      expect(JSON.parse(done.text)).toEqual({
        code: "invalid_request",
        error: "Access was denied at the provider, so no connection was made.",
      });
      expect((await flow.call("GET", `/auth/${started.json.authorizationId}`)).json.status).toBe("failed");
    } finally {
      deny = false;
    }
  });

  it("deleting the connection revokes the grant at Google's revoke endpoint; the access token's 400 after it is no failure", async () => {
    const accessToken = flow.at("gmail.googleapis.com").at(-1)!.headers.authorization!.slice("Bearer ".length);
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    const calls = flow.at("oauth2.googleapis.com", "/revoke");
    // The refresh token first: that ends the grant, so Google answers the access token with 400 invalid_token.
    expect(calls.map((r) => form(r).token)).toEqual([refreshToken, accessToken]);
    expect(calls[0]!.headers["content-type"]).toMatch(/^application\/x-www-form-urlencoded/);
    expect(grants.size).toBe(0);
    expect(flow.logs.filter((line) => line.includes("revocation failed"))).toEqual([]);
  });

  it("the five Google toolkits share one client: without it, Gmail names Google's variables", () => {
    const scheme = catalogToolkit("gmail").auth;
    expect(scheme.type === "oauth2" && scheme.unconfigured).toMatch(/TOOLS_PROXY_GOOGLE_CLIENT_ID and TOOLS_PROXY_GOOGLE_CLIENT_SECRET/);
  });

  it("nothing secret reached an answer or a log line", () => {
    flow.assertNoLeaks([...accessTokens.keys(), ...revokeCalls, refreshToken, flow.clientSecret, ...pending.keys()]);
  });
});
