import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogToolkit } from "../../src/catalog/index.js";
import { basicHeader, type EmulatedRequest, form, mint } from "../catalog/flows/emulation.js";
import { type Rig, startRig } from "./rig.js";

/*
 * Client credentials as three more providers document them:
 * - Microsoft Graph app-only, https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-client-creds-grant-flow
 *   and https://learn.microsoft.com/en-us/graph/auth-v2-service: POST
 *   https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token, `Content-Type:
 *   application/x-www-form-urlencoded`, the body's client_id, scope
 *   `https%3A%2F%2Fgraph.microsoft.com%2F.default`, client_secret and grant_type=client_credentials;
 *   the answer `{ token_type: "Bearer", expires_in, ext_expires_in, access_token }`; a wrong secret
 *   `invalid_client` with an AADSTS7000215 description.
 * - Zoom server-to-server apps, https://developers.zoom.us/docs/rooms/s2s-oauth/: POST
 *   https://zoom.us/oauth/token with the client as HTTP Basic, grant_type=account_credentials and
 *   account_id; a one-hour token, no refresh token.
 * - Auth0's Management API, https://auth0.com/docs/secure/tokens/access-tokens/management-api-access-tokens/get-management-api-access-tokens-for-production:
 *   POST https://{yourDomain}/oauth/token, form body grant_type=client_credentials, client_id,
 *   client_secret and audience=https://{yourDomain}/api/v2/; the answer access_token, token_type
 *   and expires_in (https://auth0.com/docs/secure/tokens/access-tokens/get-access-tokens).
 * Form parameters are compared as the exact pairs each page lists, each value's bytes as sent
 * (form-encoded), in the order this engine sends them (form order carries no meaning).
 */

const TENANT = crypto.randomUUID();
const MS = { id: crypto.randomUUID(), secret: mint("Qs~8Q~") };
const ZOOM = { id: mint("zc"), secret: mint("zs"), account: mint("acc") };
const A0 = { id: mint("a0"), secret: mint("a0s-"), domain: "acme.eu.auth0.com" };
const HOSTS = ["login.microsoftonline.com", "graph.microsoft.com", "zoom.us", "api.zoom.us", A0.domain];

let rig: Rig;
const live = new Set<string>();

function issue(lifetime: number, extra: Record<string, unknown> = {}) {
  const token = mint("eyJ0");
  live.add(token);
  return { body: { token_type: "Bearer", expires_in: lifetime, ...extra, access_token: token } };
}

function bearer(request: EmulatedRequest) {
  return live.has(/^Bearer (.+)$/i.exec(request.headers.authorization ?? "")?.[1] ?? "");
}

function emulate(request: EmulatedRequest) {
  const body = form(request);
  if (request.host === "login.microsoftonline.com" && request.path === `/${TENANT}/oauth2/v2.0/token`) {
    if (body.client_id !== MS.id || body.client_secret !== MS.secret) {
      return {
        status: 401,
        body: { error: "invalid_client", error_description: "AADSTS7000215: Invalid client secret provided.", error_codes: [7000215] },
      };
    }
    return issue(3599, { ext_expires_in: 3599 });
  }
  if (request.host === "graph.microsoft.com") return bearer(request) ? { body: { value: [] } } : { status: 401, body: {} };
  if (request.host === "zoom.us" && request.path === "/oauth/token") {
    if (request.headers.authorization !== basicHeader(ZOOM.id, ZOOM.secret))
      return { status: 401, body: { reason: "Invalid client_id or client_secret", error: "invalid_client" } };
    if (body.grant_type !== "account_credentials" || body.account_id !== ZOOM.account)
      return { status: 400, body: { reason: "Invalid account_id", error: "invalid_request" } };
    return issue(3600, { scope: "user:read:admin" });
  }
  if (request.host === "api.zoom.us")
    return bearer(request)
      ? { body: { email: "owner@acme.test", id: "z1" } }
      : { status: 401, body: { code: 124, message: "Invalid access token." } };
  if (request.host === A0.domain && request.path === "/oauth/token") {
    if (body.client_id !== A0.id || body.client_secret !== A0.secret)
      return { status: 401, body: { error: "access_denied", error_description: "Unauthorized" } };
    return issue(86400);
  }
  if (request.host === A0.domain && request.path.startsWith("/api/v2/")) return bearer(request) ? { body: [] } : { status: 401, body: {} };
  return { status: 404, body: {} };
}

beforeAll(async () => {
  rig = await startRig({ hosts: HOSTS, emulate, toolkits: ["microsoft-graph", "zoom", "auth0"].map((slug) => catalogToolkit(slug)) });
});
afterAll(() => rig.close());

describe("Microsoft Graph app-only", () => {
  it("asks the tenant's token endpoint with the documented form, and Graph gets the token as Bearer", async () => {
    const res = await rig.call("POST", "/auth", {
      toolkit: "microsoft-graph",
      config: { tenant: TENANT },
      credentials: { clientId: MS.id, clientSecret: MS.secret },
    });
    expect(res.status, res.text).toBe(201);
    const sent = rig.at("login.microsoftonline.com").at(-1)!;
    expect(sent.method).toBe("POST");
    expect(sent.target).toBe(`/${TENANT}/oauth2/v2.0/token`);
    expect(sent.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body.split("&")).toEqual([
      "grant_type=client_credentials",
      "scope=https%3A%2F%2Fgraph.microsoft.com%2F.default",
      `client_id=${MS.id}`,
      `client_secret=${encodeURIComponent(MS.secret).replaceAll("~", "%7E")}`,
    ]);
    const users = await rig.call("POST", "/proxy", {
      toolkit: "microsoft-graph",
      method: "GET",
      url: "https://graph.microsoft.com/v1.0/users",
      connection_id: res.json.connection.id,
    });
    expect(users.json).toMatchObject({ successful: true, data: { value: [] } });
  });

  it("a wrong secret is a 400 quoting Microsoft's AADSTS sentence; a tenant that is not a GUID is refused first", async () => {
    const wrong = mint("Qs~8Q~");
    const before = rig.at("login.microsoftonline.com").length;
    const bad = await rig.call("POST", "/auth", {
      toolkit: "microsoft-graph",
      config: { tenant: TENANT },
      credentials: { clientId: MS.id, clientSecret: wrong },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toContain("AADSTS7000215: Invalid client secret provided.");
    const common = await rig.call("POST", "/auth", {
      toolkit: "microsoft-graph",
      config: { tenant: "common" },
      credentials: { clientId: MS.id, clientSecret: MS.secret },
    });
    expect(common.status).toBe(400);
    expect(common.json.error).toMatch(/config\.tenant/);
    expect(rig.at("login.microsoftonline.com").length).toBe(before + 1);
    rig.assertNoLeaks([wrong, MS.secret]);
  });
});

describe("Zoom server-to-server", () => {
  it("sends grant_type=account_credentials with the typed account ID, the client as Basic, and names the account", async () => {
    const res = await rig.call("POST", "/auth", {
      toolkit: "zoom",
      mode: "clientCredentials",
      credentials: { clientId: ZOOM.id, clientSecret: ZOOM.secret, accountId: ZOOM.account },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.connection.remoteUser).toBe("owner@acme.test");
    const sent = rig.at("zoom.us", "/oauth/token").at(-1)!;
    expect(sent.headers.authorization).toBe(basicHeader(ZOOM.id, ZOOM.secret));
    expect(sent.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(sent.body).toBe(`grant_type=account_credentials&account_id=${ZOOM.account}`);
    const me = await rig.passthrough("zoom", "v2/users/me", res.json.connection.id);
    expect(me.status, me.text).toBe(200);
    expect(rig.at("api.zoom.us").at(-1)!.headers.authorization).toMatch(/^Bearer eyJ0/);
  });

  it("chooses the mode from the fields sent, and refuses a missing account ID naming it", async () => {
    const res = await rig.call("POST", "/auth", { toolkit: "zoom", credentials: { clientId: ZOOM.id, clientSecret: ZOOM.secret } });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(/accountId is missing/);
  });
});

describe("Auth0 Management API", () => {
  it("asks with the audience of the tenant's Management API and calls it with the token", async () => {
    const res = await rig.call("POST", "/auth", {
      toolkit: "auth0",
      config: { tenant: "acme", region: "eu" },
      credentials: { clientId: A0.id, clientSecret: A0.secret },
    });
    expect(res.status, res.text).toBe(201);
    const sent = rig.at(A0.domain, "/oauth/token").at(-1)!;
    expect(sent.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(sent.body.split("&")).toEqual([
      "grant_type=client_credentials",
      "audience=https%3A%2F%2Facme.eu.auth0.com%2Fapi%2Fv2%2F",
      `client_id=${A0.id}`,
      `client_secret=${encodeURIComponent(A0.secret)}`,
    ]);
    const users = await rig.passthrough("auth0", "users", res.json.connection.id);
    expect(users.status, users.text).toBe(200);
  });
});
