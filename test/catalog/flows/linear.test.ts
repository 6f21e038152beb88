import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, type EmulatedRequest, type Flow, form, jsonBody, mint, startFlow } from "./emulation.js";

/*
 * Linear, as its documentation describes OAuth 2 and its API:
 * - https://linear.app/developers/oauth-2-0-authentication (authorize at linear.app/oauth/authorize
 *   with `scope` comma-separated, e.g. "read,write"; POST https://api.linear.app/oauth/token with
 *   the client's id and secret in the form; revoke at https://api.linear.app/oauth/revoke)
 * - https://linear.app/developers/graphql (one endpoint, POST https://api.linear.app/graphql with a
 *   JSON `query`; the authenticated user is `viewer`)
 *   and https://linear.app/docs/oauth/authentication ("All OAuth2 applications were migrated to the
 *   new refresh token system on April 1, 2026")
 * The "who am I" request is a GraphQL query, so the identify lookup sends a JSON body.
 */

let flow: Flow;
const codes = new Set<string>();
const tokens = new Map<string, string>(); // access token → email
const revoked: string[] = [];
const refreshTokens: string[] = [];

function emulate(request: EmulatedRequest) {
  const { host, method, path } = request;
  if (host === "linear.app" && path === "/oauth/authorize") {
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
  }
  if (host === "api.linear.app" && method === "POST" && path === "/oauth/token") {
    const fields = form(request);
    if (fields.client_secret !== flow.clientSecret || !codes.delete(fields.code ?? ""))
      return { status: 400, body: { error: "invalid_grant" } };
    const accessToken = mint("lin_oauth_");
    const refreshToken = mint("lin_refresh_");
    refreshTokens.push(refreshToken);
    tokens.set(accessToken, "ada@example.com");
    // Since 2026 every Linear app gets short-lived tokens with a refresh token (the page above).
    return {
      body: {
        access_token: accessToken,
        token_type: "Bearer",
        expires_in: 86399,
        refresh_token: refreshToken,
        scope: "read,write",
      },
    };
  }
  if (host === "api.linear.app" && method === "POST" && path === "/oauth/revoke") {
    revoked.push(form(request).token ?? "");
    return { status: 200, body: "" };
  }
  if (host === "api.linear.app" && method === "POST" && path === "/graphql") {
    const email = tokens.get(/^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "");
    if (!email) return { status: 401, body: { errors: [{ message: "Authentication required, not authenticated" }] } };
    if (request.headers["content-type"] !== "application/json")
      return { status: 400, body: { errors: [{ message: "Must provide query string." }] } };
    const query = String(jsonBody(request).query);
    if (query.includes("viewer")) return { body: { data: { viewer: { id: "u-1", email } } } };
    return { body: { data: { issues: { nodes: [{ identifier: "ENG-1" }] } } } };
  }
  return { status: 404, body: { errors: [{ message: "not found" }] } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "linear", hosts: ["linear.app", "api.linear.app"], emulate });
});
afterAll(() => flow?.close());

describe("Linear OAuth, end to end", () => {
  let connectionId: string;

  it("connects: comma-separated scopes, and the account from the GraphQL viewer query", async () => {
    const { authorizationUrl, connection } = await flow.connect();
    expect(authorizationUrl.searchParams.get("scope")).toBe("read,write");
    const lookup = flow.at("api.linear.app", "/graphql").at(-1)!;
    expect(lookup.method).toBe("POST");
    expect(jsonBody(lookup)).toEqual({ query: "{ viewer { id email } }" });
    expect(connection.remoteUser).toBe("ada@example.com");
    connectionId = connection.id;
  });

  it("proxies GraphQL with the bearer token, and revokes it when the connection is deleted", async () => {
    const res = await flow.call("POST", "/proxy", {
      toolkit: "linear",
      method: "POST",
      url: "https://api.linear.app/graphql",
      body: { query: "{ issues { nodes { identifier } } }" },
      connection_id: connectionId,
    });
    expect(res.json).toMatchObject({ successful: true, data: { data: { issues: { nodes: [{ identifier: "ENG-1" }] } } } });
    const [token] = [...tokens.keys()];
    expect(flow.at("api.linear.app", "/graphql").at(-1)!.headers.authorization).toBe(`Bearer ${token}`);
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    // RFC 7009, the refresh token first: revoking it ends the grant.
    expect(revoked).toEqual([refreshTokens[0], token]);
    flow.assertNoLeaks([...tokens.keys(), ...refreshTokens, flow.clientSecret]);
  });
});
