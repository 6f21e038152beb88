import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicHeader, type EmulatedRequest, type Flow, mint, startFlow } from "./emulation.js";

/*
 * Freshdesk: the person's API key is the username of HTTP Basic, with X as the password. As its
 * documentation describes it:
 * - https://developers.freshdesk.com/api/#authentication (curl -u apikey:X against
 *   https://domain.freshdesk.com/api/v2/..., a wrong key is a 401)
 * - https://developers.freshdesk.com/api/#me (GET /api/v2/agents/me answers the agent, its contact's
 *   email under contact.email)
 * - https://support.freshdesk.com/en/support/solutions/articles/50000003346-api-key-based-authentication
 * The emulation's /api/v2/echo answers the Authorization header it received: a worst-case upstream
 * that echoes the credential, to prove that its base64 form is redacted too.
 */

const KEY = mint("fd").slice(0, 20);
const EXPECTED = basicHeader(KEY, "X");

let flow: Flow;

function emulate(request: EmulatedRequest) {
  if (request.host !== "acme.freshdesk.com") return { status: 404, body: "" };
  if (request.headers.authorization !== EXPECTED)
    return { status: 401, body: { code: "invalid_credentials", message: "You have to be logged in to perform this action." } };
  if (request.path === "/api/v2/agents/me") return { body: { id: 1, contact: { email: "ada@acme.test" } } };
  if (request.path === "/api/v2/tickets") return { body: [{ id: 20, subject: "Printer on fire" }] };
  if (request.path === "/api/v2/echo") return { body: { authorization: request.headers.authorization } };
  return { status: 404, body: {} };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "freshdesk", hosts: ["acme.freshdesk.com"], emulate });
});
afterAll(() => flow?.close());

describe("Freshdesk (the API key as the Basic username, X as the password), end to end", () => {
  let connectionId: string;

  it("connects with the key, verified at /agents/me with Basic key:X", async () => {
    const res = await flow.call("POST", "/auth", { toolkit: "freshdesk", config: { subdomain: "acme" }, credentials: { apiKey: KEY } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.connection).toMatchObject({ remoteUser: "ada@acme.test", config: { subdomain: "acme" } });
    connectionId = res.json.connection.id;
    expect(flow.at("acme.freshdesk.com", "/api/v2/agents/me").at(-1)!.headers.authorization).toBe(EXPECTED);
  });

  it("proxies and passes through with Authorization: Basic base64(key:X), byte for byte, over the caller's", async () => {
    const res = await flow.call("POST", "/proxy", {
      toolkit: "freshdesk",
      method: "GET",
      url: "https://acme.freshdesk.com/api/v2/tickets",
      headers: { authorization: "Basic Z3Vlc3M6WA==" },
      connection_id: connectionId,
    });
    expect(res.json).toMatchObject({ successful: true, data: [{ subject: "Printer on fire" }] });
    expect(flow.at("acme.freshdesk.com", "/api/v2/tickets").at(-1)!.headers.authorization).toBe(EXPECTED);
    const passed = await flow.passthrough("freshdesk/api/v2/tickets", { headers: { "x-connection-id": connectionId } });
    expect(passed.status, passed.text).toBe(200);
    expect(flow.at("acme.freshdesk.com", "/api/v2/tickets").at(-1)!.headers.authorization).toBe(EXPECTED);
  });

  it("redacts the key's Basic form where the upstream echoes it", async () => {
    const proxied = await flow.call("POST", "/proxy", {
      toolkit: "freshdesk",
      method: "GET",
      url: "https://acme.freshdesk.com/api/v2/echo",
      connection_id: connectionId,
    });
    expect(proxied.json.successful).toBe(true);
    const passed = await flow.passthrough("freshdesk/api/v2/echo", { headers: { "x-connection-id": connectionId } });
    for (const text of [proxied.text, passed.text]) expect(text).not.toContain(EXPECTED.slice("Basic ".length));
    flow.assertNoLeaks([KEY, EXPECTED.slice("Basic ".length)]);
  });

  it.each([
    ["a colon", `${KEY}:more`, /^credentials\.apiKey contains ":"/],
    ["a line break", `${KEY}\nx`, /^credentials\.apiKey contains a line break/],
  ])("refuses a key with %s (400 naming the field, nothing echoed, nothing sent)", async (_, apiKey, message) => {
    const before = flow.requests.length;
    const res = await flow.call("POST", "/auth", { toolkit: "freshdesk", config: { subdomain: "acme" }, credentials: { apiKey } });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatch(message);
    expect(res.text).not.toContain(KEY);
    expect(flow.requests.length).toBe(before);
  });

  it("refuses a wrong key, as Freshdesk does (401), storing nothing", async () => {
    const res = await flow.call("POST", "/auth", {
      toolkit: "freshdesk",
      config: { subdomain: "acme" },
      credentials: { apiKey: "wrong-key-123" },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toContain("refused these credentials");
  });

  it("connects on the connect page, which asks for the key and the subdomain", async () => {
    const link = await flow.call("POST", "/auth", { toolkit: "freshdesk" });
    const done = await flow.submitConnectPage(link.json.authorizationUrl, { apiKey: KEY, "input.subdomain": "acme" });
    expect(done.page).toContain('name="apiKey" type="password"');
    expect(done.status, done.text).toBe(200);
    expect((await flow.call("GET", `/auth/${link.json.authorizationId}`)).json.status).toBe("connected");
    flow.assertNoLeaks([KEY, EXPECTED.slice("Basic ".length)]);
  });
});
