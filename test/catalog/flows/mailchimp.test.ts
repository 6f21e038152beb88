import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, basicPair, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * Mailchimp Marketing, as its documentation describes OAuth 2 and API keys:
 * - https://developer.mailchimp.com/documentation/mailchimp/guides/how-to-use-oauth2/
 *   (authorize at https://login.mailchimp.com/oauth2/authorize, token at
 *   https://login.mailchimp.com/oauth2/token, metadata at https://login.mailchimp.com/oauth2/metadata;
 *   tokens do not expire, so there is no refresh token; there are no scopes)
 * - https://mailchimp.com/developer/marketing/guides/access-user-data-oauth-2/ (the code is
 *   exchanged with grant_type, client_id, client_secret, redirect_uri and code in a form body; the
 *   metadata answer's `dc` is the data centre of https://{dc}.api.mailchimp.com/3.0, and
 *   `login.email` the person's email)
 * - https://mailchimp.com/help/about-api-keys/ and
 *   https://mailchimp.com/developer/marketing/docs/fundamentals/ (an API key is sent as HTTP Basic
 *   with any username; its suffix after the dash is the data centre; GET /3.0/ answers the account)
 * Client libraries send the metadata request as "Authorization: OAuth <token>" or as Bearer, so
 * the emulation takes both; one of them notes that the metadata endpoint answers an unknown token
 * with 200 and {"error": "invalid_token"}. The token answer's shape, {"access_token": ...,
 * "expires_in": 0, "scope": null}, is as client code records it, not read on Mailchimp's pages.
 * Mailchimp documents no revocation endpoint.
 */

const DC = "us6";
const API = `https://${DC}.api.mailchimp.com/3.0`;
const API_KEY = `${mint("")}-${DC}`;

let flow: Flow;
const codes = new Set<string>();
const tokens = new Set<string>();

function emulate(request: EmulatedRequest) {
  const { host, method, path } = request;
  if (host === "login.mailchimp.com" && path === "/oauth2/authorize") {
    if (request.query.has("scope")) return { status: 400, body: "invalid_scope" };
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
  }
  if (host === "login.mailchimp.com" && method === "POST" && path === "/oauth2/token") {
    const fields = form(request);
    if (fields.client_id !== flow.clientId || fields.client_secret !== flow.clientSecret) {
      return { status: 401, body: { error: "invalid_client" } };
    }
    if (fields.grant_type !== "authorization_code" || !codes.delete(fields.code ?? "") || fields.redirect_uri !== flow.callbackUrl) {
      return { status: 400, body: { error: "invalid_grant", error_description: "Invalid authorization code" } };
    }
    const accessToken = mint("");
    tokens.add(accessToken);
    // What Mailchimp answers for a token that never expires, as a client's code records it.
    return { body: { access_token: accessToken, expires_in: 0, scope: null } };
  }
  const oauthToken = /^(?:OAuth|Bearer) (.+)$/.exec(request.headers.authorization ?? "")?.[1];
  if (host === "login.mailchimp.com" && path === "/oauth2/metadata") {
    if (!oauthToken || !tokens.has(oauthToken)) return { body: { error: "invalid_token" } };
    return {
      body: {
        dc: DC,
        role: "owner",
        accountname: "Acme Outfitters",
        user_id: 1234567,
        login: { email: "owner@acme.test", login_id: 1234567, login_name: "acme", login_email: "owner@acme.test" },
        login_url: "https://login.mailchimp.com",
        api_endpoint: `https://${DC}.api.mailchimp.com`,
      },
    };
  }
  if (host === `${DC}.api.mailchimp.com`) {
    const known = (oauthToken && tokens.has(oauthToken)) || basicPair(request)?.[1] === API_KEY;
    if (!known) {
      return {
        status: 401,
        body: { type: "https://mailchimp.com/developer/marketing/docs/errors/", title: "API Key Invalid", status: 401 },
      };
    }
    if (path === "/3.0/") return { body: { account_id: "8d3a3db4d97663a9074efcc16", account_name: "Acme Outfitters" } };
    if (path === "/3.0/lists") return { body: { lists: [{ id: "4ca5becb8d", name: "Newsletter" }], total_items: 1 } };
  }
  return { status: 404, body: { title: "Resource Not Found", status: 404 } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "mailchimp", hosts: ["login.mailchimp.com", `${DC}.api.mailchimp.com`], emulate });
});
afterAll(() => flow?.close());

describe("Mailchimp, end to end", () => {
  let connectionId: string;

  it("connects with OAuth without scopes or expiry; the metadata lookup reads dc into config", async () => {
    const { authorizationUrl, connection } = await flow.connect();
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe("https://login.mailchimp.com/oauth2/authorize");
    expect(authorizationUrl.searchParams.has("scope")).toBe(false);
    expect(form(flow.at("login.mailchimp.com", "/oauth2/token").at(-1)!)).toMatchObject({
      grant_type: "authorization_code",
      client_id: flow.clientId,
      client_secret: flow.clientSecret,
    });
    expect(connection).toMatchObject({ remoteUser: "owner@acme.test", config: { dc: DC } });
    connectionId = connection.id;
  });

  it("proxies to https://{dc}.api.mailchimp.com/3.0 with the token (expires_in: 0 meant never), and only there", async () => {
    const res = await flow.call("POST", "/proxy", {
      toolkit: "mailchimp",
      method: "GET",
      url: `${API}/lists`,
      connection_id: connectionId,
    });
    expect(res.json).toMatchObject({ successful: true, data: { lists: [{ name: "Newsletter" }] } });
    expect(flow.at(`${DC}.api.mailchimp.com`, "/3.0/lists").at(-1)!.headers.authorization).toBe(`Bearer ${[...tokens][0]}`);
    const elsewhere = await flow.call("POST", "/proxy", {
      toolkit: "mailchimp",
      method: "GET",
      url: "https://us1.api.mailchimp.com/3.0/lists",
      connection_id: connectionId,
    });
    expect(elsewhere.status).toBe(400);
  });

  it("an OAuth connection is not asked for dc, and may not set it", async () => {
    const res = await flow.call("POST", "/auth", { toolkit: "mailchimp", config: { dc: "us1" } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('config.dc is not an input of toolkit "mailchimp" (its inputs: none); remove it.');
  });

  it("a wrong code is a 400 invalid_grant at the token endpoint: no connection", async () => {
    const started = await flow.call("POST", "/auth", { toolkit: "mailchimp" });
    const state = new URL(started.json.authorizationUrl).searchParams.get("state")!;
    const res = await fetch(`${flow.callbackUrl}?code=${mint("nope")}&state=${state}`, { headers: { accept: "application/json" } });
    expect((await res.json()).error).toBe("The provider refused the code exchange (invalid_grant). Start the connection again.");
    expect((await flow.call("GET", `/auth/${started.json.authorizationId}`)).json.status).toBe("failed");
  });

  it("deleting the connection sends nothing: Mailchimp has no revocation endpoint", async () => {
    const before = flow.requests.length;
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    expect(flow.requests.length).toBe(before);
  });

  it("the API-key mode takes dc as an input, checks it, and verifies the key with GET /3.0/", async () => {
    const before = flow.requests.length;
    const credentials = { username: "anystring", password: API_KEY };
    const missing = await flow.call("POST", "/auth", { toolkit: "mailchimp", mode: "basic", credentials });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toContain('needs "config": { "dc": "..." }');
    const malformed = await flow.call("POST", "/auth", {
      toolkit: "mailchimp",
      mode: "basic",
      credentials,
      config: { dc: "us6.evil.com" },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json.error).toContain("^[a-z]{2}[0-9]{1,3}$");
    expect(flow.requests.length).toBe(before);

    const refused = await flow.call("POST", "/auth", {
      toolkit: "mailchimp",
      mode: "basic",
      credentials: { username: "anystring", password: `${mint("")}-${DC}` },
      config: { dc: DC },
    });
    expect(refused.status).toBe(400);
    const good = await flow.call("POST", "/auth", { toolkit: "mailchimp", mode: "basic", credentials, config: { dc: DC } });
    expect(good.status, good.text).toBe(201);
    expect(good.json.connection).toMatchObject({ remoteUser: "Acme Outfitters", config: { dc: DC } });
    const res = await flow.call("POST", "/proxy", {
      toolkit: "mailchimp",
      method: "GET",
      url: `${API}/lists`,
      connection_id: good.json.connection.id,
    });
    expect(res.json).toMatchObject({ successful: true });
    expect(basicPair(flow.at(`${DC}.api.mailchimp.com`, "/3.0/lists").at(-1)!)).toEqual(["anystring", API_KEY]);
    flow.assertNoLeaks([...tokens, API_KEY, flow.clientSecret, ...codes]);
  });
});
