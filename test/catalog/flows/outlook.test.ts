import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicPair, type EmulatedAnswer, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * Outlook through Microsoft Graph and the Microsoft identity platform (v2.0), as Microsoft documents it:
 * - https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow
 *   (https://login.microsoftonline.com/{tenant}/oauth2/v2.0/authorize and /token, where tenant is
 *   common, organizations, consumers or a tenant ID; PKCE S256; a web app sends client_secret in
 *   the form body; the answer holds token_type Bearer, scope, expires_in, ext_expires_in,
 *   access_token and, with offline_access, refresh_token; a refresh answers a new refresh token,
 *   which replaces the old one; errors are 400 with error, error_description (AADSTS codes) and
 *   error_codes)
 * - https://learn.microsoft.com/en-us/graph/api/user-get (GET /me: userPrincipalName)
 * - https://learn.microsoft.com/en-us/graph/errors (401 InvalidAuthenticationToken for an expired token)
 * The identity platform has no revocation endpoint for a client's tokens, so deleting a connection
 * sends nothing upstream.
 */

let flow: Flow;
const TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const pending = new Map<string, { tenant: string; challenge: string }>();
const refreshTokens = new Map<string, string>(); // refresh token → tenant
const accessTokens = new Set<string>();
const issued: string[] = [];
const refuseOnce = new Set<string>();

function tokens(tenant: string) {
  const access = mint("eyJ0eXAiOiJKV1Qi.");
  const refresh = mint("0.AXoA");
  accessTokens.add(access);
  refreshTokens.set(refresh, tenant);
  issued.push(access, refresh);
  return {
    token_type: "Bearer",
    scope: "User.Read Mail.ReadWrite Mail.Send Calendars.ReadWrite",
    expires_in: 3599,
    ext_expires_in: 3599,
    access_token: access,
    refresh_token: refresh,
  };
}

function aadError(code: number, error: string, description: string) {
  return {
    status: 400,
    body: {
      error,
      error_description: `AADSTS${code}: ${description}`,
      error_codes: [code],
      timestamp: new Date().toISOString(),
      trace_id: crypto.randomUUID(),
      correlation_id: crypto.randomUUID(),
    },
  };
}

function emulate(request: EmulatedRequest): EmulatedAnswer {
  const { host, method, path } = request;
  if (host === "login.microsoftonline.com") {
    const match = /^\/([^/]+)\/oauth2\/v2\.0\/(authorize|token)$/.exec(path);
    if (!match) return { status: 404, body: "not found" };
    const [, tenant, endpoint] = match as unknown as [string, string, string];
    if (endpoint === "authorize") {
      const q = request.query;
      if (q.get("client_id") !== flow.clientId) return aadError(700016, "unauthorized_client", "Application not found in the directory.");
      if (q.get("redirect_uri") !== flow.callbackUrl) return aadError(50011, "invalid_request", "The redirect URI does not match.");
      const code = mint("0.ATcA");
      pending.set(code, { tenant, challenge: q.get("code_challenge") ?? "" });
      const back = new URL(flow.callbackUrl);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state")!);
      return { status: 302, headers: { location: back.href } };
    }
    if (method !== "POST") return { status: 405, body: "" };
    const fields = form(request);
    if (fields.client_id !== flow.clientId || fields.client_secret !== flow.clientSecret) {
      return aadError(7000215, "invalid_client", "Invalid client secret provided.");
    }
    if (fields.grant_type === "refresh_token") {
      const issuedFor = refreshTokens.get(fields.refresh_token ?? "");
      if (issuedFor !== tenant)
        return aadError(70008, "invalid_grant", "The provided authorization code or refresh token has expired due to inactivity.");
      refreshTokens.delete(fields.refresh_token!); // rotated: the new one replaces it
      return { body: tokens(tenant) };
    }
    const authorization = pending.get(fields.code ?? "");
    pending.delete(fields.code ?? "");
    if (!authorization || authorization.tenant !== tenant) {
      return aadError(70008, "invalid_grant", "The provided authorization code or refresh token has expired due to inactivity.");
    }
    if (
      createHash("sha256")
        .update(fields.code_verifier ?? "")
        .digest("base64url") !== authorization.challenge
    ) {
      return aadError(
        501481,
        "invalid_grant",
        "The Code_Verifier does not match the code_challenge supplied in the authorization request.",
      );
    }
    return { body: tokens(tenant) };
  }
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
  if (!accessTokens.has(token) || refuseOnce.delete(token)) {
    return {
      status: 401,
      body: { error: { code: "InvalidAuthenticationToken", message: "Lifetime validation failed, the token is expired." } },
    };
  }
  if (host === "graph.microsoft.com" && path === "/v1.0/me") {
    return {
      body: {
        id: "87d349ed-44d7-43e1-9a83-5f2406dee5bd",
        displayName: "Adele Vance",
        userPrincipalName: "AdeleV@contoso.com",
        mail: "AdeleV@contoso.com",
      },
    };
  }
  if (host === "graph.microsoft.com" && path === "/v1.0/me/messages") return { body: { value: [{ id: "AAMkAGI2", subject: "Hello" }] } };
  return { status: 404, body: { error: { code: "ResourceNotFound", message: "Not found" } } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "outlook", hosts: ["login.microsoftonline.com", "graph.microsoft.com"], emulate });
});
afterAll(() => flow?.close());

function messages(connectionId: string) {
  return flow.call("POST", "/proxy", {
    toolkit: "outlook",
    method: "GET",
    url: "https://graph.microsoft.com/v1.0/me/messages",
    connection_id: connectionId,
  });
}

const PATTERN = "^(common|organizations|consumers|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$";

describe("Outlook through the Microsoft identity platform, end to end", () => {
  let connectionId: string;

  it("a malformed tenant is a 400 naming the input and its pattern (a missing one its default, common), before any request leaves", async () => {
    const before = flow.requests.length;
    // Missing, it takes its default: the sign-in starts at the common endpoint.
    const missing = await flow.call("POST", "/auth", { toolkit: "outlook" });
    expect(missing.status).toBe(200);
    expect(new URL(missing.json.authorizationUrl).pathname).toBe("/common/oauth2/v2.0/authorize");
    for (const tenant of ["evil.com", "a.b", "evil.com/", "contoso", "common/../x"]) {
      const res = await flow.call("POST", "/auth", { toolkit: "outlook", config: { tenant } });
      expect(res.status, tenant).toBe(400);
      expect(res.json.error, tenant).toMatch(/^config\.tenant is not valid: it must be one DNS label/);
      expect(res.json.error, tenant).toContain(PATTERN);
    }
    expect(flow.requests.length).toBe(before);
  });

  it("connects with a tenant ID in the OAuth URLs: PKCE, the secret in the body, named by Graph /me", async () => {
    const { authorizationUrl, connection } = await flow.connect({ config: { tenant: TENANT } });
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`https://login.microsoftonline.com/${TENANT}/oauth2/v2.0/authorize`);
    expect(authorizationUrl.searchParams.get("scope")).toBe("offline_access User.Read Mail.ReadWrite Mail.Send Calendars.ReadWrite");
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    const exchange = flow.at("login.microsoftonline.com", `/${TENANT}/oauth2/v2.0/token`).at(-1)!;
    expect(basicPair(exchange)).toBeNull();
    expect(form(exchange)).toMatchObject({
      grant_type: "authorization_code",
      client_id: flow.clientId,
      client_secret: flow.clientSecret,
      redirect_uri: flow.callbackUrl,
    });
    expect(connection.remoteUser).toBe("AdeleV@contoso.com");
    expect(connection.config).toEqual({ tenant: TENANT });
    connectionId = connection.id;
  });

  it("the common tenant connects too", async () => {
    const { authorizationUrl, connection } = await flow.connect({ config: { tenant: "common" } });
    expect(authorizationUrl.pathname).toBe("/common/oauth2/v2.0/authorize");
    expect(flow.at("login.microsoftonline.com", "/common/oauth2/v2.0/token")).toHaveLength(1);
    expect(connection.config).toEqual({ tenant: "common" });
    expect((await flow.call("DELETE", `/connections/${connection.id}`)).status).toBe(204);
  });

  it("a 401 from Graph refreshes at the connection's tenant, and each refresh uses the refresh token the last one returned", async () => {
    const used: string[] = [];
    expect((await messages(connectionId)).json).toMatchObject({ successful: true });
    for (let round = 0; round < 2; round++) {
      const current = flow.at("graph.microsoft.com", "/v1.0/me/messages").at(-1)!.headers.authorization!.slice("Bearer ".length);
      refuseOnce.add(current);
      const res = await messages(connectionId);
      expect(res.json, res.text).toMatchObject({ successful: true, data: { value: [{ subject: "Hello" }] } });
      const refresh = flow.at("login.microsoftonline.com", `/${TENANT}/oauth2/v2.0/token`).at(-1)!;
      expect(form(refresh)).toMatchObject({ grant_type: "refresh_token", client_id: flow.clientId, client_secret: flow.clientSecret });
      used.push(form(refresh).refresh_token!);
    }
    // Rotation: the emulation forgets a refresh token once used, so the second refresh succeeding
    // with a different token shows the new one was stored.
    expect(used[0]).not.toBe(used[1]);
  });

  it("an expired code is Microsoft's 400 invalid_grant (AADSTS70008): the callback fails without a connection", async () => {
    const started = await flow.call("POST", "/auth", { toolkit: "outlook", config: { tenant: TENANT } });
    const atProvider = await flow.consent(started.json.authorizationUrl);
    const again = await flow.call("POST", "/auth", { toolkit: "outlook", config: { tenant: TENANT } });
    const replay = new URL(atProvider.callback);
    replay.searchParams.set("state", new URL(again.json.authorizationUrl).searchParams.get("state")!);
    const res = await fetch(replay, { headers: { accept: "application/json" } });
    expect((await res.json()).error).toBe("The provider refused the code exchange (invalid_grant). Start the connection again.");
    expect((await flow.call("GET", `/auth/${again.json.authorizationId}`)).json.status).toBe("failed");
  });

  it("deleting the connection sends nothing upstream: Microsoft has no revocation endpoint for it", async () => {
    const before = flow.requests.length;
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    expect(flow.requests.length).toBe(before);
  });

  it("nothing secret reached an answer or a log line", () => {
    flow.assertNoLeaks([...issued, flow.clientSecret, ...pending.keys()]);
  });
});
