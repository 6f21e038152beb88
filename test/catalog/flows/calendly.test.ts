import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, basicPair, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * Calendly, as its documentation describes OAuth:
 * - https://developer.calendly.com/api-docs/calendly-o-auth/o-auth/get-oauth-authorize.md (GET
 *   auth.calendly.com/oauth/authorize)
 * - https://developer.calendly.com/api-docs/calendly-o-auth/o-auth/post-oauth-refresh-token.md
 *   (POST auth.calendly.com/oauth/token, a form; a web client passes client_id and client_secret
 *   as HTTP Basic; access tokens last 2 hours)
 * - https://developer.calendly.com/api-docs/calendly-o-auth/o-auth/post-oauth-revoke.md (POST
 *   auth.calendly.com/oauth/revoke, a form body with client_id, client_secret and token, each
 *   required; 400 invalid_request otherwise)
 * - https://developer.calendly.com/docs/api-guides/how-to-find-the-organization-or-user-uri.md (GET
 *   /users/me answers the organization URI as current_organization); resource.email is the entry's.
 */

let flow: Flow;
const codes = new Set<string>();
const live = new Set<string>();
const issued: string[] = [];
const refreshTokens: string[] = [];

function emulate(request: EmulatedRequest) {
  const { host, method, path } = request;
  if (host === "auth.calendly.com" && path === "/oauth/authorize") {
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
  }
  if (host === "auth.calendly.com" && method === "POST" && path === "/oauth/token") {
    const pair = basicPair(request);
    if (pair?.[0] !== flow.clientId || pair[1] !== flow.clientSecret) return { status: 401, body: { error: "invalid_client" } };
    if (!codes.delete(form(request).code ?? "")) return { status: 400, body: { error: "invalid_grant" } };
    const access = mint("cal_at");
    const refresh = mint("cal_rt");
    live.add(access).add(refresh);
    issued.push(access, refresh);
    refreshTokens.push(refresh);
    return { body: { access_token: access, refresh_token: refresh, token_type: "Bearer", expires_in: 7200 } };
  }
  if (host === "auth.calendly.com" && method === "POST" && path === "/oauth/revoke") {
    const fields = form(request);
    if (!fields.client_id || !fields.client_secret || !fields.token) {
      return { status: 400, body: { error: "invalid_request", error_description: "client_id, client_secret and token are required" } };
    }
    if (fields.client_id !== flow.clientId || fields.client_secret !== flow.clientSecret)
      return { status: 403, body: { error: "forbidden" } };
    live.delete(fields.token);
    return { status: 200, body: {} };
  }
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
  if (host === "api.calendly.com" && path === "/users/me" && bearer && live.has(bearer)) {
    return { body: { resource: { email: "ada@example.com", current_organization: "https://api.calendly.com/organizations/ORG1" } } };
  }
  return { status: 401, body: { title: "Unauthenticated" } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "calendly", hosts: ["auth.calendly.com", "api.calendly.com"], emulate });
});
afterAll(() => flow?.close());

describe("Calendly, end to end", () => {
  it("connects with the client as Basic, keeps the organization's id, and revokes with the client and token in the form body", async () => {
    const { connection } = await flow.connect();
    // current_organization is the organization's URI (the organization-URI guide); its last segment is kept.
    expect(connection).toMatchObject({ remoteUser: "ada@example.com", config: { organization: "ORG1" } });
    expect((await flow.call("DELETE", `/connections/${connection.id}`)).status).toBe(204);
    const revocations = flow.at("auth.calendly.com", "/oauth/revoke");
    expect(revocations.map((r) => form(r))).toEqual([
      { client_id: flow.clientId, client_secret: flow.clientSecret, token: refreshTokens[0] },
    ]);
    expect(live.has(refreshTokens[0]!)).toBe(false);
    expect(flow.logs.some((line) => line.includes("revocation failed"))).toBe(false);
    flow.assertNoLeaks([...issued, flow.clientSecret]);
  });
});
