import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * Attio, as its documentation describes OAuth:
 * - https://docs.attio.com/rest-api/endpoint-reference/oauth/oauth-20/authorize-endpoint (GET
 *   app.attio.com/authorize; the app's scopes are set in its settings)
 * - https://docs.attio.com/docs/oauth/token (POST app.attio.com/oauth/token with client_id and
 *   client_secret in the form; the token does not expire and has no refresh token)
 * - https://docs.attio.com/docs/oauth/revoke (POST app.attio.com/oauth/revoke with the token as a
 *   bearer in Authorization, or as `token` in a form body; 204 on success, 400 when no token is
 *   found or the header and body disagree)
 * - https://docs.attio.com/rest-api/endpoint-reference/meta/identify.md (GET /v2/self identifies
 *   the token and its workspace)
 */

let flow: Flow;
const codes = new Set<string>();
const live = new Set<string>();
const issued: string[] = [];

function emulate(request: EmulatedRequest) {
  const { host, method, path } = request;
  if (host === "app.attio.com" && path === "/authorize") {
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
  }
  if (host === "app.attio.com" && method === "POST" && path === "/oauth/token") {
    const fields = form(request);
    if (fields.client_secret !== flow.clientSecret || !codes.delete(fields.code ?? ""))
      return { status: 400, body: { error: "invalid_grant" } };
    const token = mint("attio_");
    live.add(token);
    issued.push(token);
    return { body: { access_token: token, token_type: "Bearer" } };
  }
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
  const body = request.body ? form(request).token : undefined;
  if (host === "app.attio.com" && method === "POST" && path === "/oauth/revoke") {
    const token = bearer ?? body;
    if (!token || (bearer && body && bearer !== body)) return { status: 400, body: { status_code: 400, type: "invalid_request_error" } };
    live.delete(token);
    return { status: 204 };
  }
  if (host === "api.attio.com" && path === "/v2/self") {
    if (!bearer || !live.has(bearer)) return { status: 401, body: { status_code: 401, type: "auth_error" } };
    return { body: { active: true, workspace_id: "ws-1", workspace_name: "Acme", workspace_slug: "acme" } };
  }
  return { status: 404, body: {} };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "attio", hosts: ["app.attio.com", "api.attio.com"], emulate });
});
afterAll(() => flow?.close());

describe("Attio, end to end", () => {
  it("connects, names the workspace, and revokes the token at /oauth/revoke when the connection is deleted", async () => {
    const { connection } = await flow.connect();
    expect(connection).toMatchObject({ remoteUser: "Acme", config: { workspaceId: "ws-1" } });
    const [token] = issued;
    expect((await flow.call("DELETE", `/connections/${connection.id}`)).status).toBe(204);
    const [revocation] = flow.at("app.attio.com", "/oauth/revoke");
    expect(revocation?.headers.authorization).toBe(`Bearer ${token}`);
    expect(live.has(token!)).toBe(false);
    flow.assertNoLeaks([...issued, flow.clientSecret]);
  });
});
