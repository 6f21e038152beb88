import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicPair, type EmulatedAnswer, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * Dropbox, as its documentation describes OAuth with short-lived tokens:
 * - https://dropbox.tech/developers/using-oauth-2-0-with-offline-access (token_access_type=offline
 *   on the authorization URL yields a refresh token beside a short-lived access token with
 *   expires_in; a refresh answers a new access token and no new refresh token)
 * - https://www.dropbox.com/developers/documentation/http/documentation (POST /oauth2/token on
 *   api.dropboxapi.com, the app key and secret as HTTP Basic or in the body, PKCE with S256; RPC
 *   endpoints take a JSON body or none; an expired token is 401 with expired_access_token;
 *   POST /2/auth/token/revoke disables the access token it is called with and its refresh token;
 *   POST /2/users/get_current_account names the account)
 */

let flow: Flow;
const pending = new Map<string, string>(); // code → code_challenge
const refreshTokens = new Map<string, Set<string>>(); // refresh token → its access tokens
const accessTokens = new Map<string, string>(); // access token → its refresh token
const issued: string[] = [];
const refuseOnce = new Set<string>();

function newAccessToken(refresh: string): string {
  const token = mint("sl.");
  accessTokens.set(token, refresh);
  refreshTokens.get(refresh)!.add(token);
  issued.push(token);
  return token;
}

function emulate(request: EmulatedRequest): EmulatedAnswer {
  const { host, method, path } = request;
  if (host === "www.dropbox.com" && path === "/oauth2/authorize") {
    const q = request.query;
    if (q.get("client_id") !== flow.clientId || q.get("redirect_uri") !== flow.callbackUrl)
      return { status: 400, body: "invalid redirect_uri" };
    const code = mint("code-");
    pending.set(code, q.get("code_challenge") ?? "");
    const back = new URL(flow.callbackUrl);
    back.searchParams.set("code", code);
    back.searchParams.set("state", q.get("state")!);
    return { status: 302, headers: { location: back.href } };
  }
  if (host === "api.dropboxapi.com" && method === "POST" && path === "/oauth2/token") {
    const fields = form(request);
    const [id, secret] = basicPair(request) ?? [fields.client_id, fields.client_secret];
    if (id !== flow.clientId || secret !== flow.clientSecret)
      return { status: 400, body: { error: "invalid_client", error_description: "Invalid client_id or client_secret" } };
    if (fields.grant_type === "refresh_token") {
      if (!refreshTokens.has(fields.refresh_token ?? ""))
        return { status: 400, body: { error: "invalid_grant", error_description: "refresh token is invalid or revoked" } };
      return { body: { access_token: newAccessToken(fields.refresh_token!), token_type: "bearer", expires_in: 14400 } };
    }
    const challenge = pending.get(fields.code ?? "");
    pending.delete(fields.code ?? "");
    if (challenge === undefined)
      return { status: 400, body: { error: "invalid_grant", error_description: "code doesn't exist or has expired" } };
    if (
      createHash("sha256")
        .update(fields.code_verifier ?? "")
        .digest("base64url") !== challenge
    ) {
      return { status: 400, body: { error: "invalid_grant", error_description: "invalid code verifier" } };
    }
    const refresh = mint("rt-");
    refreshTokens.set(refresh, new Set());
    return {
      body: {
        access_token: newAccessToken(refresh),
        expires_in: 14400,
        token_type: "bearer",
        scope: "account_info.read files.content.read files.content.write files.metadata.read",
        refresh_token: refresh,
        account_id: "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc",
        uid: "12345",
      },
    };
  }
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
  if (!accessTokens.has(token) || refuseOnce.delete(token)) {
    return { status: 401, body: { error_summary: "expired_access_token/", error: { ".tag": "expired_access_token" } } };
  }
  // An RPC endpoint without arguments takes no body; a JSON content type with an empty body is refused.
  if (/json/.test(request.headers["content-type"] ?? "") && request.body === "") {
    return {
      status: 400,
      headers: { "content-type": "text/plain" },
      body: "Error in call to API function: request body: could not decode input as JSON",
    };
  }
  if (host === "api.dropboxapi.com" && method === "POST" && path === "/2/users/get_current_account") {
    return {
      body: {
        account_id: "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc",
        email: "franz@example.com",
        name: { display_name: "Franz Ferdinand" },
      },
    };
  }
  if (host === "api.dropboxapi.com" && method === "POST" && path === "/2/auth/token/revoke") {
    // The access token and its refresh token, with every access token of that refresh token.
    const refresh = accessTokens.get(token)!;
    for (const access of refreshTokens.get(refresh) ?? []) accessTokens.delete(access);
    refreshTokens.delete(refresh);
    return { body: "null", headers: { "content-type": "application/json" } };
  }
  if (host === "api.dropboxapi.com" && method === "POST" && path === "/2/files/list_folder") {
    return { body: { entries: [{ ".tag": "file", name: "Prime_Numbers.txt" }], has_more: false } };
  }
  if (host === "content.dropboxapi.com" && method === "POST" && path === "/2/files/download") {
    return {
      headers: { "content-type": "application/octet-stream", "dropbox-api-result": '{"name":"Prime_Numbers.txt"}' },
      body: "2 3 5 7",
    };
  }
  return { status: 404, body: "not found" };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "dropbox", hosts: ["www.dropbox.com", "api.dropboxapi.com", "content.dropboxapi.com"], emulate });
});
afterAll(() => flow?.close());

function listFolder(connectionId: string) {
  return flow.call("POST", "/proxy", {
    toolkit: "dropbox",
    method: "POST",
    url: "https://api.dropboxapi.com/2/files/list_folder",
    body: { path: "" },
    connection_id: connectionId,
  });
}

describe("Dropbox with offline access, end to end", () => {
  let connectionId: string;
  let refreshToken: string;

  it("connects: token_access_type=offline with PKCE, Basic client auth, the account's email from get_current_account", async () => {
    const { authorizationUrl, connection } = await flow.connect();
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe("https://www.dropbox.com/oauth2/authorize");
    expect(authorizationUrl.searchParams.get("token_access_type")).toBe("offline");
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("scope")).toBe("account_info.read files.metadata.read files.content.read files.content.write");
    const exchange = flow.at("api.dropboxapi.com", "/oauth2/token").at(-1)!;
    expect(basicPair(exchange)).toEqual([flow.clientId, flow.clientSecret]);
    expect(form(exchange)).toMatchObject({ grant_type: "authorization_code", redirect_uri: flow.callbackUrl });
    const lookup = flow.at("api.dropboxapi.com", "/2/users/get_current_account").at(-1)!;
    expect(lookup.method).toBe("POST");
    expect(lookup.body).toBe("");
    expect(connection.remoteUser).toBe("franz@example.com");
    connectionId = connection.id;
    refreshToken = [...refreshTokens.keys()][0]!;
  });

  it("proxies with the bearer token on both base URLs (RPC and content)", async () => {
    expect((await listFolder(connectionId)).json).toMatchObject({ successful: true, data: { has_more: false } });
    const download = await flow.call("POST", "/proxy", {
      toolkit: "dropbox",
      method: "POST",
      url: "https://content.dropboxapi.com/2/files/download",
      headers: { "Dropbox-API-Arg": '{"path":"/Prime_Numbers.txt"}' },
      connection_id: connectionId,
    });
    expect(download.json, download.text).toMatchObject({ successful: true });
    const sent = flow.at("content.dropboxapi.com", "/2/files/download").at(-1)!;
    expect(sent.headers.authorization).toMatch(/^Bearer sl\./);
    expect(sent.headers["dropbox-api-arg"]).toBe('{"path":"/Prime_Numbers.txt"}');
  });

  it("an expired short-lived token (401 expired_access_token) is refreshed once; the refresh token stays the same", async () => {
    for (let round = 0; round < 2; round++) {
      const current = flow.at("api.dropboxapi.com", "/2/files/list_folder").at(-1)!.headers.authorization!.slice("Bearer ".length);
      refuseOnce.add(current);
      const res = await listFolder(connectionId);
      expect(res.json, res.text).toMatchObject({ successful: true });
      expect(flow.at("api.dropboxapi.com", "/2/files/list_folder").at(-1)!.headers.authorization).not.toBe(`Bearer ${current}`);
    }
    const refreshes = flow.at("api.dropboxapi.com", "/oauth2/token").filter((r) => form(r).grant_type === "refresh_token");
    expect(refreshes.map((r) => form(r))).toEqual([0, 1].map(() => ({ grant_type: "refresh_token", refresh_token: refreshToken })));
    expect(refreshes.every((r) => basicPair(r)?.[1] === flow.clientSecret)).toBe(true);
  });

  it("a code Dropbox no longer knows is its 400 invalid_grant: no connection", async () => {
    const started = await flow.call("POST", "/auth", { toolkit: "dropbox" });
    const atProvider = await flow.consent(started.json.authorizationUrl);
    const again = await flow.call("POST", "/auth", { toolkit: "dropbox" });
    const replay = new URL(atProvider.callback);
    replay.searchParams.set("state", new URL(again.json.authorizationUrl).searchParams.get("state")!);
    const res = await fetch(replay, { headers: { accept: "application/json" } });
    expect((await res.json()).error).toBe("The provider refused the code exchange (invalid_grant). Start the connection again.");
    expect((await flow.call("GET", `/auth/${again.json.authorizationId}`)).json.status).toBe("failed");
  });

  it("deleting the connection calls /2/auth/token/revoke with the bearer token and no body", async () => {
    const current = flow.at("api.dropboxapi.com", "/2/files/list_folder").at(-1)!.headers.authorization!;
    const before = (await flow.call("GET", "/connections?toolkit=dropbox")).json.connections.length;
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    const call = flow.at("api.dropboxapi.com", "/2/auth/token/revoke").at(-1)!;
    expect(call.method).toBe("POST");
    expect(call.headers.authorization).toBe(current);
    expect(call.body).toBe("");
    expect(refreshTokens.has(refreshToken)).toBe(false);
    expect(flow.logs.filter((line) => line.includes("revocation failed"))).toEqual([]);
    expect((await flow.call("GET", "/connections?toolkit=dropbox")).json.connections.length).toBe(before - 1);
  });

  it("nothing secret reached an answer or a log line", () => {
    flow.assertNoLeaks([...issued, refreshToken, flow.clientSecret, ...pending.keys()]);
  });
});
