import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authorize,
  basicHeader,
  basicPair,
  type EmulatedAnswer,
  type EmulatedRequest,
  type Flow,
  jsonBody,
  mint,
  startFlow,
} from "./emulation.js";

/*
 * Notion, as its documentation describes a public connection and an internal integration:
 * - https://developers.notion.com/docs/authorization (authorization URL with owner=user; the code
 *   exchanged at POST /v1/oauth/token with the client's id and secret as HTTP Basic and a JSON body:
 *   the guide base64-encodes `${clientId}:${clientSecret}` as it stands, and the token reference
 *   says "the base64-encoded string username:password"; nothing is form-encoded first, so this
 *   emulation compares the whole header byte for byte and answers 401 invalid_client otherwise)
 * - https://developers.notion.com/reference/create-a-token (the answer: access_token, token_type,
 *   refresh_token, bot_id, workspace_id, workspace_name, owner; no expires_in)
 * - https://developers.notion.com/reference/refresh-a-token (grant_type refresh_token at the same
 *   endpoint, same Basic auth and JSON body; a new access token and a new refresh token)
 * - https://developers.notion.com/reference/revoke-token (POST /v1/oauth/revoke, Basic, JSON
 *   { token }, Notion-Version required)
 * - https://developers.notion.com/reference/get-self (GET /v1/users/me: the bot user, with
 *   bot.workspace_name)
 * - https://developers.notion.com/reference/versioning and
 *   https://developers.notion.com/reference/errors (every API request needs Notion-Version, else
 *   400 missing_version; a bad token is 401 unauthorized)
 * - https://developers.notion.com/reference/status-codes (every error is Notion's
 *   { object: "error", status, code, message }, the OAuth ones too: a bad code or refresh token is
 *   400 with code "invalid_grant", e.g. "Invalid code: this code has been revoked.")
 * The token endpoint's reference also lists Notion-Version among its headers; the handler sends
 * none there (it sends the toolkit's headers to the API only), so this emulation does not demand
 * it on /v1/oauth/token: see the report of this work.
 */

let flow: Flow;
const codes = new Set<string>();
const tokens = new Map<string, string>(); // access token → workspace name
const refreshTokens = new Set<string>();
const internalToken = mint("ntn_");
tokens.set(internalToken, "Ada's Internal Workspace");
const revoked: string[] = [];
/** Access tokens the API refuses once with 401, as if they had been invalidated. */
const refuseOnce = new Set<string>();

const WORKSPACE_ID = "3c90c3cc-0d44-4b50-8888-8dd25736052a";

function issue() {
  const accessToken = mint("ntn_oauth_");
  const refreshToken = mint("nrt_");
  tokens.set(accessToken, "Ada's Workspace");
  refreshTokens.add(refreshToken);
  return {
    access_token: accessToken,
    token_type: "bearer",
    refresh_token: refreshToken,
    bot_id: "b3414d65-1224-4ff7-8ffe-cc9d8773d601",
    workspace_name: "Ada's Workspace",
    workspace_icon: "https://example.com/icon.png",
    workspace_id: WORKSPACE_ID,
    owner: { type: "user", user: { object: "user", id: "e79a0b74-3aba-4149-9f74-0bb5791a6ee6", type: "person" } },
    duplicated_template_id: null,
    request_id: crypto.randomUUID(),
  };
}

function notionError(status: number, code: string, message: string) {
  return { status, body: { object: "error", status, code, message } };
}

function emulate(request: EmulatedRequest): EmulatedAnswer {
  const { host, method, path } = request;
  if (host !== "api.notion.com") return { status: 404, body: "not found" };
  if (path === "/v1/oauth/authorize") {
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
  }
  const clientOk = request.headers.authorization === basicHeader(flow.clientId, flow.clientSecret);
  if (method === "POST" && path === "/v1/oauth/token") {
    if (!clientOk) return { status: 401, body: { error: "invalid_client" } };
    if (!/^application\/json/.test(request.headers["content-type"] ?? "")) return notionError(400, "invalid_json", "Body must be JSON.");
    const body = jsonBody(request);
    if (body.grant_type === "refresh_token") {
      if (!refreshTokens.delete(String(body.refresh_token))) return notionError(400, "invalid_grant", "Invalid refresh token.");
      return { body: issue() };
    }
    if (!codes.delete(String(body.code))) return notionError(400, "invalid_grant", "Invalid code: this code has been revoked.");
    if (body.redirect_uri !== flow.callbackUrl) return notionError(400, "invalid_grant", "Invalid redirect_uri.");
    return { body: issue() };
  }
  if (!request.headers["notion-version"]) {
    return notionError(400, "missing_version", "Notion-Version header failed validation: Notion-Version header should be defined.");
  }
  if (method === "POST" && path === "/v1/oauth/revoke") {
    if (!clientOk) return notionError(401, "unauthorized", "Invalid client.");
    const token = String(jsonBody(request).token);
    tokens.delete(token);
    revoked.push(token);
    return { body: { request_id: crypto.randomUUID() } };
  }
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
  const workspace = tokens.get(token);
  if (!workspace || refuseOnce.delete(token)) return notionError(401, "unauthorized", "API token is invalid.");
  if (path === "/v1/users/me") {
    return {
      body: {
        object: "user",
        id: "b3414d65-1224-4ff7-8ffe-cc9d8773d601",
        name: "Tools proxy",
        type: "bot",
        bot: { owner: { type: "workspace", workspace: true }, workspace_name: workspace },
      },
    };
  }
  if (method === "POST" && path === "/v1/search") return { body: { object: "list", results: [{ object: "page", id: "p1" }] } };
  return notionError(404, "object_not_found", "Could not find that object.");
}

beforeAll(async () => {
  // Notion's client ids are UUIDs and its secrets start `secret_`: both hold characters that
  // RFC 6749's form-encoding escapes (`-`, `_`).
  flow = await startFlow({
    provider: "notion",
    hosts: ["api.notion.com"],
    emulate,
    clientId: crypto.randomUUID(),
    clientSecret: mint("secret_"),
  });
});
afterAll(() => flow?.close());

function search(connectionId: string) {
  return flow.call("POST", "/proxy", {
    toolkit: "notion",
    method: "POST",
    url: "https://api.notion.com/v1/search",
    body: { query: "roadmap" },
    connection_id: connectionId,
  });
}

describe("Notion public connection, end to end", () => {
  let connectionId: string;

  it("connects: owner=user, Basic client auth with a JSON body, workspace_id into config, named by /v1/users/me", async () => {
    const { authorizationUrl, connection } = await flow.connect();
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe("https://api.notion.com/v1/oauth/authorize");
    expect(authorizationUrl.searchParams.get("owner")).toBe("user");
    expect(authorizationUrl.searchParams.get("response_type")).toBe("code");
    expect(authorizationUrl.searchParams.has("scope")).toBe(false);
    const exchange = flow.at("api.notion.com", "/v1/oauth/token").at(-1)!;
    expect(exchange.headers.authorization).toBe(basicHeader(flow.clientId, flow.clientSecret));
    expect(basicPair(exchange)).toEqual([flow.clientId, flow.clientSecret]);
    expect(exchange.headers["content-type"]).toMatch(/^application\/json/);
    expect(jsonBody(exchange)).toMatchObject({ grant_type: "authorization_code", redirect_uri: flow.callbackUrl });
    expect(jsonBody(exchange).client_secret).toBeUndefined();
    expect(connection.remoteUser).toBe("Ada's Workspace");
    expect(connection.config).toEqual({ workspaceId: WORKSPACE_ID });
    expect(flow.at("api.notion.com", "/v1/users/me").at(-1)!.headers["notion-version"]).toBe("2025-09-03");
    connectionId = connection.id;
  });

  it("proxies with the bearer token and the Notion-Version header the API requires", async () => {
    const res = await search(connectionId);
    expect(res.json).toMatchObject({ successful: true, data: { object: "list" } });
    const sent = flow.at("api.notion.com", "/v1/search").at(-1)!;
    expect(sent.headers["notion-version"]).toBe("2025-09-03");
    expect(sent.headers.authorization).toMatch(/^Bearer ntn_oauth_/);
  });

  it("a 401 refreshes once at /v1/oauth/token (Basic, JSON) and retries with the new token; the refresh token rotates", async () => {
    const before = flow.at("api.notion.com", "/v1/search").at(-1)!.headers.authorization!.slice("Bearer ".length);
    const [oldRefresh] = [...refreshTokens].slice(-1);
    refuseOnce.add(before);
    const res = await search(connectionId);
    expect(res.json, res.text).toMatchObject({ successful: true, data: { object: "list" } });
    const refresh = flow.at("api.notion.com", "/v1/oauth/token").at(-1)!;
    expect(refresh.headers.authorization).toBe(basicHeader(flow.clientId, flow.clientSecret));
    expect(refresh.headers["content-type"]).toMatch(/^application\/json/);
    expect(jsonBody(refresh)).toEqual({ grant_type: "refresh_token", refresh_token: oldRefresh });
    const retried = flow.at("api.notion.com", "/v1/search").at(-1)!;
    expect(retried.headers.authorization).not.toBe(`Bearer ${before}`);
    // The next refresh uses the refresh token the first one returned.
    const current = retried.headers.authorization!.slice("Bearer ".length);
    const [newRefresh] = [...refreshTokens].slice(-1);
    refuseOnce.add(current);
    expect((await search(connectionId)).json).toMatchObject({ successful: true });
    expect(jsonBody(flow.at("api.notion.com", "/v1/oauth/token").at(-1)!)).toEqual({
      grant_type: "refresh_token",
      refresh_token: newRefresh,
    });
  });

  it("a wrong code is Notion's 400 invalid_grant: the callback fails and no connection is made", async () => {
    const started = await flow.call("POST", "/auth", { toolkit: "notion" });
    const atProvider = await flow.consent(started.json.authorizationUrl);
    expect(atProvider.status).toBe(200);
    const again = await flow.call("POST", "/auth", { toolkit: "notion" });
    const replay = new URL(atProvider.callback);
    replay.searchParams.set("state", new URL(again.json.authorizationUrl).searchParams.get("state")!);
    const res = await fetch(replay, { headers: { accept: "application/json" } });
    expect(await res.json()).toEqual({
      code: "invalid_request",
      error: "The provider refused the code exchange (invalid_grant). Start the connection again.",
    });
    expect((await flow.call("GET", `/auth/${again.json.authorizationId}`)).json.status).toBe("failed");
  });

  it("deleting the connection revokes its token at /v1/oauth/revoke with Basic, JSON and Notion-Version", async () => {
    const current = flow.at("api.notion.com", "/v1/search").at(-1)!.headers.authorization!.slice("Bearer ".length);
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    const call = flow.at("api.notion.com", "/v1/oauth/revoke").at(-1)!;
    expect(call.headers.authorization).toBe(basicHeader(flow.clientId, flow.clientSecret));
    expect(call.headers["content-type"]).toMatch(/^application\/json/);
    expect(call.headers["notion-version"]).toBe("2025-09-03");
    expect(jsonBody(call)).toEqual({ token: current });
    expect(revoked).toEqual([current]);
    expect(flow.logs.filter((line) => line.includes("revocation failed"))).toEqual([]);
  });

  it("a refresh token Notion refuses (its 400 invalid_grant) expires the connection, which says how to reconnect", async () => {
    const { connection } = await flow.connect();
    const current = flow.at("api.notion.com", "/v1/users/me").at(-1)!.headers.authorization!.slice("Bearer ".length);
    refreshTokens.clear();
    refuseOnce.add(current);
    const res = await search(connection.id);
    expect(res.status, res.text).toBe(409);
    expect(res.json.error).toContain("The provider refused the refresh token (invalid_grant: Invalid refresh token.).");
    expect(res.json.error).toContain('Reconnect it with POST /auth {"toolkit":"notion"}');
  });

  it("an internal integration token is the second mode: verified by /v1/users/me, refused on Notion's 401", async () => {
    const bad = await flow.call("POST", "/auth", { toolkit: "notion", mode: "bearer", credentials: { token: mint("ntn_") } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe("Notion refused these credentials (401 or 403). Check them and send them again.");
    const good = await flow.call("POST", "/auth", { toolkit: "notion", credentials: { token: internalToken } });
    expect(good.status, good.text).toBe(201);
    expect(good.json.connection.remoteUser).toBe("Ada's Internal Workspace");
    expect((await search(good.json.connection.id)).json).toMatchObject({ successful: true });
    expect(flow.at("api.notion.com", "/v1/search").at(-1)!.headers.authorization).toBe(`Bearer ${internalToken}`);
  });

  it("nothing secret reached an answer or a log line", () => {
    flow.assertNoLeaks([...tokens.keys(), ...revoked, ...refreshTokens, flow.clientSecret, ...codes]);
  });
});
