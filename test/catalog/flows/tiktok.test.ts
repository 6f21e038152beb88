import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, type EmulatedAnswer, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * TikTok's Login Kit (OAuth v2), which names the client's id `client_key`, as its documentation
 * describes it:
 * - https://developers.tiktok.com/doc/login-kit-web (GET https://www.tiktok.com/v2/auth/authorize/
 *   with client_key, comma-separated scope, response_type=code, redirect_uri and state)
 * - https://developers.tiktok.com/doc/oauth-user-access-token-management (POST
 *   https://open.tiktokapis.com/v2/oauth/token/, form-encoded: client_key, client_secret, code,
 *   grant_type=authorization_code, redirect_uri, and code_verifier for PKCE; a refresh sends
 *   client_key, client_secret, grant_type=refresh_token and refresh_token. The answer: open_id,
 *   scope (comma-separated), access_token, expires_in (24 hours), refresh_token, refresh_expires_in
 *   (365 days), token_type "Bearer"; a failure: error, error_description and log_id. Revocation:
 *   POST /v2/oauth/revoke/ with client_key, client_secret and the access token as token)
 * - https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info (GET /v2/user/info/?fields=...
 *   answering { data: { user: {...} }, error: { code: "ok", message, log_id } })
 * The emulation refuses any request that names the client `client_id`.
 */

const AUTH = "www.tiktok.com";
const API = "open.tiktokapis.com";

let flow: Flow;
const codes = new Map<string, string>(); // code → its PKCE challenge
const accessTokens = new Set<string>();
const refreshTokens = new Set<string>();
const allTokens: string[] = [];
const refuseOnce = new Set<string>();
let expireNextCode = false;

function failure(error: string, description: string): EmulatedAnswer {
  return { status: 400, body: { error, error_description: description, log_id: "20230602143722A6F8A0B3E1B2C3D4E5F6" } };
}

function issue(): EmulatedAnswer {
  const access = mint("act.");
  const refresh = mint("rft.");
  accessTokens.add(access);
  refreshTokens.add(refresh);
  allTokens.push(access, refresh);
  return {
    body: {
      access_token: access,
      expires_in: 86400,
      open_id: "723f24d7-e717-40f8-a2b6-cb8464cd23b4",
      refresh_expires_in: 31536000,
      refresh_token: refresh,
      scope: "user.info.basic,user.info.profile",
      token_type: "Bearer",
    },
  };
}

function emulate(request: EmulatedRequest): EmulatedAnswer {
  const { host, method, path } = request;
  if (host === AUTH && path === "/v2/auth/authorize/") {
    if (request.query.has("client_id")) return { status: 400, body: "param_error: client_key" };
    const asKey = new URLSearchParams(request.query);
    asKey.set("client_id", request.query.get("client_key") ?? "");
    return authorize({ ...request, query: asKey }, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) =>
      codes.set(code, request.query.get("code_challenge") ?? ""),
    );
  }
  if (host === API && method === "POST" && path === "/v2/oauth/token/") {
    const fields = form(request);
    if (fields.client_id !== undefined || fields.client_key !== flow.clientId || fields.client_secret !== flow.clientSecret) {
      return failure("invalid_client", "Client key or secret is incorrect.");
    }
    if (fields.grant_type === "refresh_token") {
      if (!refreshTokens.delete(fields.refresh_token ?? "")) return failure("invalid_grant", "Refresh token is invalid or expired.");
      return issue();
    }
    if (fields.grant_type !== "authorization_code" || fields.redirect_uri !== flow.callbackUrl || !fields.code_verifier) {
      return failure("invalid_request", "The request parameters are malformed.");
    }
    if (!codes.delete(fields.code ?? "") || expireNextCode) return failure("invalid_grant", "Authorization code is expired.");
    return issue();
  }
  if (host === API && method === "POST" && path === "/v2/oauth/revoke/") {
    const fields = form(request);
    if (fields.client_key !== flow.clientId || fields.client_secret !== flow.clientSecret || fields.client_id !== undefined) {
      return failure("invalid_client", "Client key or secret is incorrect.");
    }
    accessTokens.delete(fields.token ?? "");
    return { body: {} };
  }
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
  if (host === API && (!accessTokens.has(token) || refuseOnce.delete(token))) {
    return {
      status: 401,
      body: { error: { code: "access_token_invalid", message: "The access token is invalid or not found in the request.", log_id: "x" } },
    };
  }
  if (host === API && path === "/v2/user/info/") {
    return {
      body: {
        data: { user: { open_id: "723f24d7-e717-40f8-a2b6-cb8464cd23b4", display_name: "Ada", username: "ada.creates" } },
        error: { code: "ok", message: "", log_id: "20220829194722CBE87ED59D524E727021" },
      },
    };
  }
  return { status: 404, body: { error: { code: "not_found", message: "", log_id: "x" } } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "tiktok", hosts: [AUTH, API], emulate });
});
afterAll(() => flow?.close());

describe("TikTok (client_key in place of client_id), end to end", () => {
  let connectionId: string;

  it("authorizes with client_key and comma-separated scopes, exchanges the code with client_key, and names the account", async () => {
    const { authorizationUrl, connection } = await flow.connect();
    expect(authorizationUrl.searchParams.get("client_key")).toBe(flow.clientId);
    expect(authorizationUrl.searchParams.has("client_id")).toBe(false);
    expect(authorizationUrl.searchParams.get("scope")).toContain("user.info.basic,user.info.profile");
    const exchange = form(flow.at(API, "/v2/oauth/token/")[0]!);
    expect(Object.keys(exchange).sort()).toEqual(
      ["client_key", "client_secret", "code", "code_verifier", "grant_type", "redirect_uri"].sort(),
    );
    expect(connection.remoteUser).toBe("ada.creates");
    connectionId = connection.id;
  });

  it("refreshes with client_key after the API refuses the token, and retries", async () => {
    const [current] = [...accessTokens];
    refuseOnce.add(current!);
    const res = await flow.call("POST", "/proxy", {
      toolkit: "tiktok",
      method: "GET",
      url: "https://open.tiktokapis.com/v2/user/info/?fields=open_id,username",
      connection_id: connectionId,
    });
    expect(res.json, res.text).toMatchObject({ successful: true, data: { data: { user: { username: "ada.creates" } } } });
    const refresh = form(flow.at(API, "/v2/oauth/token/").at(-1)!);
    expect(refresh.grant_type).toBe("refresh_token");
    expect(refresh.client_key).toBe(flow.clientId);
    expect(refresh.client_id).toBeUndefined();
  });

  it("revokes the access token with client_key when the connection is deleted", async () => {
    const current = allTokens.at(-2); // the access token of the last answer, the refresh's
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    const revoke = flow.at(API, "/v2/oauth/revoke/");
    expect(revoke).toHaveLength(1);
    expect(form(revoke[0]!)).toEqual({ token: current, client_key: flow.clientId, client_secret: flow.clientSecret });
    expect(flow.logs.some((line) => line.includes("revocation failed"))).toBe(false);
  });

  it("reports TikTok's refusal of a code (error, error_description, log_id) without a connection", async () => {
    expireNextCode = true;
    try {
      const started = await flow.call("POST", "/auth", { toolkit: "tiktok" });
      const done = await flow.consent(started.json.authorizationUrl);
      expect(done.status).toBe(400);
      expect(JSON.parse(done.text).error).toContain("invalid_grant");
      expect((await flow.call("GET", `/auth/${started.json.authorizationId}`)).json.status).toBe("failed");
    } finally {
      expireNextCode = false;
    }
    flow.assertNoLeaks([...allTokens, flow.clientSecret]);
  });
});
