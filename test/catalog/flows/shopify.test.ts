import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, type EmulatedRequest, type Flow, form, jsonBody, mint, startFlow } from "./emulation.js";

/*
 * Shopify, as its documentation describes a standalone (non-embedded) app:
 * - https://shopify.dev/docs/apps/build/authentication-authorization/authenticate-standalone-apps
 *   (the merchant is sent to https://{shop}.myshopify.com/admin/oauth/authorize with client_id,
 *   a comma-separated scope, redirect_uri and state; Shopify redirects back with code, shop,
 *   hmac, timestamp and state; the code is exchanged at POST
 *   https://{shop}.myshopify.com/admin/oauth/access_token with client_id, client_secret and code,
 *   answered with an offline access_token and scope)
 * - https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens (the token is
 *   sent in X-Shopify-Access-Token; offline tokens carry no expiry and no refresh token)
 * - https://www.shopify.dev/docs/apps/build/authentication-authorization/app-installation/uninstall-app-api-request
 *   (DELETE /admin/api_permissions/current.json with the token uninstalls the app)
 * - https://community.shopify.com/c/Shopify-APIs-SDKs/Problem-with-OAuth-implementation-error-Oauth-error-invalid/m-p/817439
 *   (a used code is a 400 "invalid_request: The authorization code was not found or was already used")
 * The Admin API answers 401 to an unknown token, whatever else the request carries.
 */

const SHOP = "acme";
const HOST = `${SHOP}.myshopify.com`;
const API = `https://${HOST}/admin/api/2025-10`;

let flow: Flow;
const codes = new Set<string>();
const tokens = new Set<string>();
const uninstalled: string[] = [];

function emulate(request: EmulatedRequest) {
  const { host, method, path } = request;
  if (host !== HOST) return { status: 404, body: "There's no page at this address." };
  if (path === "/admin/oauth/authorize") {
    if (request.query.get("scope") !== "read_products,write_products,read_orders,read_customers") {
      return { status: 400, body: "Oauth error invalid_scope" };
    }
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code), {
      shop: HOST,
      hmac: "0".repeat(64),
      timestamp: String(Math.floor(Date.now() / 1000)),
    });
  }
  if (method === "POST" && path === "/admin/oauth/access_token") {
    const fields = /json/.test(request.headers["content-type"] ?? "") ? (jsonBody(request) as Record<string, string>) : form(request);
    if (fields.client_id !== flow.clientId || fields.client_secret !== flow.clientSecret) {
      return { status: 400, body: { error: "invalid_client", error_description: "Client credentials are invalid" } };
    }
    if (!codes.delete(fields.code ?? "")) {
      return {
        status: 400,
        body: { error: "invalid_request", error_description: "The authorization code was not found or was already used" },
      };
    }
    const accessToken = mint("shpua_");
    tokens.add(accessToken);
    return { body: { access_token: accessToken, scope: "write_products,read_orders,read_customers" } };
  }
  const token = request.headers["x-shopify-access-token"];
  if (!token || !tokens.has(token) || request.headers.authorization) {
    return { status: 401, body: { errors: "[API] Invalid API key or access token (unrecognized login or wrong password)" } };
  }
  if (method === "DELETE" && path === "/admin/api_permissions/current.json") {
    tokens.delete(token);
    uninstalled.push(token);
    return { body: {} };
  }
  if (path === "/admin/api/2025-10/shop.json") return { body: { shop: { name: "Acme", myshopify_domain: HOST } } };
  if (path === "/admin/api/2025-10/products.json") return { body: { products: [{ id: 632910392, title: "IPod Nano - 8GB" }] } };
  return { status: 404, body: { errors: "Not Found" } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "shopify", hosts: [HOST, "evil.myshopify.com"], emulate });
});
afterAll(() => flow?.close());

const PATTERN = "^[a-z0-9][a-z0-9-]{0,62}$";

describe("Shopify, end to end", () => {
  let connectionId: string;
  let accessToken: string;

  it("connects to the shop named by the input: its URLs, comma scopes, secret in the body, no refresh token", async () => {
    const { authorizationUrl, connection } = await flow.connect({ config: { shop: SHOP } });
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`https://${HOST}/admin/oauth/authorize`);
    expect(authorizationUrl.searchParams.get("scope")).toBe("read_products,write_products,read_orders,read_customers");
    const exchange = flow.at(HOST, "/admin/oauth/access_token").at(-1)!;
    expect(exchange.headers.authorization).toBeUndefined();
    expect(form(exchange)).toMatchObject({ client_id: flow.clientId, client_secret: flow.clientSecret });
    expect(connection.remoteUser).toBe(HOST);
    expect(connection.config).toEqual({ shop: SHOP });
    const identify = flow.at(HOST, "/admin/api/2025-10/shop.json").at(-1)!;
    accessToken = identify.headers["x-shopify-access-token"]!;
    expect(tokens.has(accessToken)).toBe(true);
    expect(identify.headers.authorization).toBeUndefined();
    connectionId = connection.id;
  });

  it("proxies with X-Shopify-Access-Token and never Authorization", async () => {
    const res = await flow.call("POST", "/proxy", {
      toolkit: "shopify",
      method: "GET",
      url: `${API}/products.json`,
      connection_id: connectionId,
    });
    expect(res.json).toMatchObject({ successful: true, data: { products: [{ title: "IPod Nano - 8GB" }] } });
    const sent = flow.at(HOST, "/admin/api/2025-10/products.json").at(-1)!;
    expect(sent.headers["x-shopify-access-token"]).toBe(accessToken);
    expect(sent.headers.authorization).toBeUndefined();
  });

  it("refuses a proxy URL on another shop's host, before anything is sent", async () => {
    const before = flow.requests.length;
    const res = await flow.call("POST", "/proxy", {
      toolkit: "shopify",
      method: "GET",
      url: "https://evil.myshopify.com/admin/api/2025-10/products.json",
      connection_id: connectionId,
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toContain(`Use a URL under ${API}`);
    expect(flow.requests.length).toBe(before);
  });

  it.each([
    ["a path", "evil.com/"],
    ["a dot", "a.b"],
    ["another domain", "evil.com"],
    ["a label over 63 characters", "a".repeat(64)],
  ])("a shop with %s is a 400 naming shop and its pattern, and reaches no URL", async (_, shop) => {
    const before = flow.requests.length;
    const oauth = await flow.call("POST", "/auth", { toolkit: "shopify", config: { shop } });
    const token = await flow.call("POST", "/auth", {
      toolkit: "shopify",
      mode: "bearer",
      credentials: { token: mint("shpat_") },
      config: { shop },
    });
    for (const res of [oauth, token]) {
      expect(res.status).toBe(400);
      expect(res.json.error).toContain("config.shop is not valid");
      expect(res.json.error).toContain(PATTERN);
      expect(res.json.authorizationUrl).toBeUndefined();
    }
    expect(flow.requests.length).toBe(before);
  });

  it("a missing shop makes a connect link whose page asks for it, and reaches no URL", async () => {
    const before = flow.requests.length;
    for (const body of [{ toolkit: "shopify" }, { toolkit: "shopify", config: { shop: "" } }]) {
      const res = await flow.call("POST", "/auth", body);
      expect(res.status).toBe(200);
      expect(res.json.authorizationUrl).toContain("/proxy/tools/connect/auth_");
    }
    expect(flow.requests.length).toBe(before);
  });

  it("a used code is Shopify's 400 invalid_request: the callback fails without a connection", async () => {
    const started = await flow.call("POST", "/auth", { toolkit: "shopify", config: { shop: SHOP } });
    const authorizationUrl = new URL(started.json.authorizationUrl);
    const atProvider = await flow.consent(authorizationUrl.href);
    const code = atProvider.callback.searchParams.get("code")!;
    const again = await flow.call("POST", "/auth", { toolkit: "shopify", config: { shop: SHOP } });
    const replay = new URL(atProvider.callback);
    replay.searchParams.set("state", new URL(again.json.authorizationUrl).searchParams.get("state")!);
    replay.searchParams.set("code", code);
    const res = await fetch(replay, { headers: { accept: "application/json" } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      code: "invalid_request",
      error: "The provider refused the code exchange (invalid_request). Start the connection again.",
    });
    expect((await flow.call("GET", `/auth/${again.json.authorizationId}`)).json.status).toBe("failed");
  });

  it("an offline token is never refreshed: after an uninstall the API's 401 expires the connection", async () => {
    const { connection } = await flow.connect({ config: { shop: SHOP } });
    const token = flow.at(HOST, "/admin/api/2025-10/shop.json").at(-1)!.headers["x-shopify-access-token"]!;
    tokens.delete(token); // the merchant uninstalled the app in the Shopify admin
    const exchanges = flow.at(HOST, "/admin/oauth/access_token").length;
    const res = await flow.call("POST", "/proxy", {
      toolkit: "shopify",
      method: "GET",
      url: `${API}/products.json`,
      connection_id: connection.id,
    });
    expect(res.status).toBe(409);
    expect(res.json.error).toContain("The provider gave no refresh token");
    expect(res.json.error).toContain('Reconnect it with POST /auth {"toolkit":"shopify"}');
    expect(flow.at(HOST, "/admin/oauth/access_token").length).toBe(exchanges);
  });

  it("deleting the connection uninstalls the app with the token in X-Shopify-Access-Token", async () => {
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    expect(uninstalled).toEqual([accessToken]);
    const sent = flow.at(HOST, "/admin/api_permissions/current.json").at(-1)!;
    expect(sent.method).toBe("DELETE");
    expect(sent.headers.authorization).toBeUndefined();
  });

  it("the custom-app token mode is verified by GET /shop.json; nothing secret leaked", async () => {
    const adminToken = mint("shpat_");
    const bad = await flow.call("POST", "/auth", {
      toolkit: "shopify",
      mode: "bearer",
      credentials: { token: adminToken },
      config: { shop: SHOP },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe("Shopify refused these credentials (401 or 403). Check them and send them again.");
    tokens.add(adminToken);
    const good = await flow.call("POST", "/auth", {
      toolkit: "shopify",
      mode: "bearer",
      credentials: { token: adminToken },
      config: { shop: SHOP },
    });
    expect(good.status, good.text).toBe(201);
    expect(good.json.connection).toMatchObject({ remoteUser: HOST, config: { shop: SHOP } });
    expect(flow.at(HOST, "/admin/api/2025-10/shop.json").at(-1)!.headers["x-shopify-access-token"]).toBe(adminToken);
    flow.assertNoLeaks([...tokens, ...uninstalled, adminToken, flow.clientSecret, ...codes]);
  });
});
