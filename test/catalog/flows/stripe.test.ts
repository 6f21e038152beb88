import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmulatedRequest, type Flow, mint, startFlow } from "./emulation.js";

/*
 * Stripe, as its API reference describes authentication:
 * - https://docs.stripe.com/api/authentication?lang=curl (secret keys sk_test_/sk_live_ or
 *   restricted keys; Basic with the key as username, or "Authorization: Bearer <key>"; requests
 *   without valid authentication fail)
 * Not re-read for this emulation (the catalog entry lists them as unconfirmed): a refused key is
 * a 401 with an error object of type invalid_request_error and a WWW-Authenticate Basic
 * challenge, as Stripe's API answers it; GET /v1/account answers the key's own account (acct_...).
 */

const KEY = mint("sk_test_");
const ACCOUNT = "acct_1032D82eZvKYlo2C";

let flow: Flow;

function emulate(request: EmulatedRequest) {
  if (request.host !== "api.stripe.com") return { status: 404, body: "" };
  const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
  if (key !== KEY) {
    return {
      status: 401,
      headers: { "www-authenticate": 'Basic realm="Stripe"' },
      body: { error: { message: `Invalid API Key provided: ${(key ?? "").slice(0, 8)}****`, type: "invalid_request_error" } },
    };
  }
  if (request.path === "/v1/account") return { body: { id: ACCOUNT, object: "account", email: "jenny@example.com" } };
  if (request.path === "/v1/customers") return { body: { object: "list", data: [{ id: "cus_NffrFeUfNV2Hib", object: "customer" }] } };
  return { status: 404, body: { error: { message: "Unrecognized request URL", type: "invalid_request_error" } } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "stripe", hosts: ["api.stripe.com"], emulate });
});
afterAll(() => flow?.close());

describe("Stripe (secret key as bearer, verified by GET /v1/account), end to end", () => {
  it("a key Stripe refuses is a 400 that stores nothing", async () => {
    const refusedKey = mint("sk_test_");
    const res = await flow.call("POST", "/auth", { toolkit: "stripe", credentials: { token: refusedKey } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      code: "invalid_request",
      error: "Stripe refused these credentials (401 or 403). Check them and send them again.",
    });
    expect(flow.at("api.stripe.com", "/v1/account").at(-1)!.headers.authorization).toBe(`Bearer ${refusedKey}`);
    expect((await flow.call("GET", "/connections?toolkit=stripe")).json.connections).toEqual([]);
    flow.assertNoLeaks([refusedKey]);
  });

  it("a good key makes a connection named by its account, whose proxied calls carry the key as bearer", async () => {
    const res = await flow.call("POST", "/auth", { toolkit: "stripe", credentials: { token: KEY } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.connection).toMatchObject({ toolkit: "stripe", remoteUser: ACCOUNT, status: "active" });
    const listed = await flow.call("POST", "/proxy", {
      toolkit: "stripe",
      method: "GET",
      url: "https://api.stripe.com/v1/customers?limit=3",
      headers: { Authorization: "Bearer sk_live_the_agent_made_up" },
      connection_id: res.json.connection.id,
    });
    expect(listed.json).toMatchObject({ successful: true, data: { object: "list", data: [{ id: "cus_NffrFeUfNV2Hib" }] } });
    const sent = flow.at("api.stripe.com", "/v1/customers").at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.query.get("limit")).toBe("3");
    flow.assertNoLeaks([KEY]);
  });
});
