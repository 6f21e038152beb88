import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, type EmulatedAnswer, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * Instagram's Business Login, whose code exchange yields a one-hour token that must be exchanged
 * for a 60-day one, then renewed, as Meta documents it:
 * - https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login
 *   (GET www.instagram.com/oauth/authorize with client_id, redirect_uri, response_type=code and
 *   comma-separated scopes; POST api.instagram.com/oauth/access_token with client_id,
 *   client_secret, grant_type=authorization_code, redirect_uri and code in a form, answering
 *   { data: [{ access_token, user_id, permissions }] }, a short-lived token)
 * - https://developers.facebook.com/docs/instagram-platform/reference/access_token (GET
 *   graph.instagram.com/access_token?grant_type=ig_exchange_token&client_secret=...&access_token=...
 *   answering { access_token, token_type: "bearer", expires_in: 5183944 }, a 60-day token)
 * - https://developers.facebook.com/docs/instagram-platform/reference/refresh_access_token (GET
 *   graph.instagram.com/refresh_access_token?grant_type=ig_refresh_token&access_token=... with the
 *   long-lived token itself; the same answer shape; an expired token is an OAuthException 190)
 * The emulation's API refuses the short-lived token, as a test of the exchange having happened.
 */

const WWW = "www.instagram.com";
const API = "api.instagram.com";
const GRAPH = "graph.instagram.com";

let flow: Flow;
const codes = new Set<string>();
const shortLived = new Set<string>();
const longLived = new Set<string>();
const refuseOnce = new Set<string>();
const all: string[] = [];
let refuseRefresh = false;

function oauthException(message: string): EmulatedAnswer {
  return { status: 400, body: { error: { message, type: "OAuthException", code: 190, fbtrace_id: "AbCdEf" } } };
}

function longToken(): EmulatedAnswer {
  const token = mint("IGAA");
  longLived.add(token);
  all.push(token);
  return { body: { access_token: token, token_type: "bearer", expires_in: 5183944 } };
}

function emulate(request: EmulatedRequest): EmulatedAnswer {
  const { host, method, path, query } = request;
  if (host === WWW && path === "/oauth/authorize") {
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
  }
  if (host === API && method === "POST" && path === "/oauth/access_token") {
    const fields = form(request);
    if (fields.client_id !== flow.clientId || fields.client_secret !== flow.clientSecret) return oauthException("Invalid client");
    if (fields.grant_type !== "authorization_code" || fields.redirect_uri !== flow.callbackUrl || !codes.delete(fields.code ?? "")) {
      return { status: 400, body: { error_type: "OAuthException", code: 400, error_message: "Invalid authorization code" } };
    }
    const token = mint("IGQW");
    shortLived.add(token);
    all.push(token);
    return { body: { data: [{ access_token: token, user_id: "17841400000000000", permissions: "instagram_business_basic" }] } };
  }
  if (host === GRAPH && method === "GET" && path === "/access_token") {
    if (query.get("grant_type") !== "ig_exchange_token" || query.get("client_secret") !== flow.clientSecret) {
      return oauthException("Invalid exchange");
    }
    if (!shortLived.delete(query.get("access_token") ?? "")) return oauthException("Invalid OAuth access token");
    return longToken();
  }
  if (host === GRAPH && method === "GET" && path === "/refresh_access_token") {
    if (query.get("grant_type") !== "ig_refresh_token" || refuseRefresh) return oauthException("Error validating access token");
    if (!longLived.delete(query.get("access_token") ?? "")) return oauthException("Invalid OAuth access token");
    return longToken();
  }
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
  // A token refused once answers 401 here, so that the handler renews after a refusal; Instagram
  // itself may answer 400 with code 190, after which the token is renewed near its expiry instead.
  if (host === GRAPH && refuseOnce.delete(token)) return { ...oauthException("Invalid OAuth access token"), status: 401 };
  if (host === GRAPH && !longLived.has(token)) return oauthException("Invalid OAuth access token");
  if (host === GRAPH && path === "/v26.0/me") return { body: { user_id: "17841400000000000", username: "ada.studio" } };
  return { status: 404, body: { error: { message: "Unknown path", type: "OAuthException", code: 803 } } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "instagram", hosts: [WWW, API, GRAPH], emulate });
});
afterAll(() => flow?.close());

describe("Instagram (a short-lived token exchanged for a 60-day one, renewed with itself), end to end", () => {
  let connectionId: string;

  it("exchanges the code, then the one-hour token for a 60-day one, and names the account with the latter", async () => {
    const { connection } = await flow.connect();
    expect(connection.remoteUser).toBe("ada.studio");
    connectionId = connection.id;
    const exchange = flow.at(GRAPH, "/access_token");
    expect(exchange).toHaveLength(1);
    expect(exchange[0]!.query.get("grant_type")).toBe("ig_exchange_token");
    expect(shortLived.size).toBe(0);
    expect(longLived.size).toBe(1);
  });

  it("renews the token with ig_refresh_token and the token itself when the API refuses it, then retries", async () => {
    const [current] = [...longLived];
    refuseOnce.add(current!);
    const res = await flow.call("POST", "/proxy", {
      toolkit: "instagram",
      method: "GET",
      url: "https://graph.instagram.com/v26.0/me?fields=user_id,username",
      connection_id: connectionId,
    });
    expect(res.json, res.text).toMatchObject({ successful: true, data: { username: "ada.studio" } });
    const refresh = flow.at(GRAPH, "/refresh_access_token");
    expect(refresh).toHaveLength(1);
    expect(refresh[0]!.query.get("access_token")).toBe(current);
    expect(longLived.has(current!)).toBe(false);
  });

  it("expires the connection when Instagram refuses the renewal", async () => {
    const [current] = [...longLived];
    refuseOnce.add(current!);
    refuseRefresh = true;
    const res = await flow.call("POST", "/proxy", {
      toolkit: "instagram",
      method: "GET",
      url: "https://graph.instagram.com/v26.0/me",
      connection_id: connectionId,
    });
    expect(res.json.code, res.text).toBe("connection_required");
    expect(res.json.error).toContain("The provider refused to renew the token");
    const listed = await flow.call("GET", "/connections?toolkit=instagram");
    expect(listed.json.connections.find((c: { id: string }) => c.id === connectionId)?.status ?? "expired").toBe("expired");
    flow.assertNoLeaks([...all, flow.clientSecret]);
  });
});
