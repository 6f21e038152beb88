import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmulatedRequest, type Flow, mint, startFlow } from "./emulation.js";

/*
 * Datadog: two secrets in two headers, and a site that chooses the API host. As its documentation
 * describes it:
 * - https://docs.datadoghq.com/api/latest/authentication/ (every request is authenticated; writes
 *   need the API key, sent as the header DD-API-KEY, reads also the application key, sent as
 *   DD-APPLICATION-KEY; GET /api/v1/validate checks the API key and answers { "valid": true }, a 403
 *   { "errors": [...] } when it is not valid; the API host per site: api.datadoghq.com,
 *   api.us3.datadoghq.com, api.us5.datadoghq.com, api.datadoghq.eu, api.ap1.datadoghq.com,
 *   api.ddog-gov.com)
 * - https://docs.datadoghq.com/account_management/api-app-keys/ (the two keys and where they are made)
 * The emulation's /api/v2/echo answers the headers it received: a worst-case upstream that echoes
 * the keys back, to prove they are redacted.
 */

const API_KEY = mint("dd").slice(0, 32);
const APP_KEY = mint("ddapp").slice(0, 40);
const HOSTS = ["api.datadoghq.com", "api.datadoghq.eu"];

let flow: Flow;

function emulate(request: EmulatedRequest) {
  if (!HOSTS.includes(request.host)) return { status: 404, body: "" };
  if (request.headers["dd-api-key"] !== API_KEY) return { status: 403, body: { errors: ["Forbidden"] } };
  if (request.path === "/api/v1/validate") return { body: { valid: true } };
  if (request.headers["dd-application-key"] !== APP_KEY) return { status: 403, body: { errors: ["Forbidden"] } };
  if (request.path === "/api/v1/monitor") return { body: [{ id: 1, name: "CPU high" }] };
  if (request.path === "/api/v2/echo") return { body: { received: request.headers } };
  return { status: 404, body: { errors: ["Not found"] } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "datadog", hosts: HOSTS, emulate });
});
afterAll(() => flow?.close());

describe("Datadog (an API key and an application key in two headers, a site), end to end", () => {
  let connectionId: string;

  it("connects with both keys on the EU site", async () => {
    const res = await flow.call("POST", "/auth", {
      toolkit: "datadog",
      config: { apiHost: "api.datadoghq.eu" },
      credentials: { apiKey: API_KEY, applicationKey: APP_KEY },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.connection.config).toEqual({ apiHost: "api.datadoghq.eu" });
    connectionId = res.json.connection.id;
    flow.assertNoLeaks([API_KEY, APP_KEY]);
  });

  it("proxies with each key in its header, byte for byte, on the connection's site, over any the caller sent", async () => {
    const res = await flow.call("POST", "/proxy", {
      toolkit: "datadog",
      method: "GET",
      url: "https://api.datadoghq.eu/api/v1/monitor",
      headers: { "DD-API-KEY": "guessed", "dd-application-key": "guessed" },
      connection_id: connectionId,
    });
    expect(res.json).toMatchObject({ successful: true, data: [{ name: "CPU high" }] });
    const sent = flow.at("api.datadoghq.eu", "/api/v1/monitor").at(-1)!;
    expect(sent.headers["dd-api-key"]).toBe(API_KEY);
    expect(sent.headers["dd-application-key"]).toBe(APP_KEY);
    expect(sent.headers.authorization).toBeUndefined();
  });

  it("refuses another site's host for this connection, sending nothing", async () => {
    const before = flow.requests.length;
    const res = await flow.call("POST", "/proxy", {
      toolkit: "datadog",
      method: "GET",
      url: "https://api.datadoghq.com/api/v1/monitor",
      connection_id: connectionId,
    });
    expect(res.status, res.text).toBe(400);
    expect(flow.requests.length).toBe(before);
  });

  it("passes a request through with both headers", async () => {
    const res = await flow.passthrough("datadog/api/v1/monitor", { headers: { "x-connection-id": connectionId } });
    expect(res.status, res.text).toBe(200);
    const sent = flow.at("api.datadoghq.eu", "/api/v1/monitor").at(-1)!;
    expect([sent.headers["dd-api-key"], sent.headers["dd-application-key"]]).toEqual([API_KEY, APP_KEY]);
  });

  it("redacts both keys where the upstream echoes them", async () => {
    const proxied = await flow.call("POST", "/proxy", {
      toolkit: "datadog",
      method: "GET",
      url: "https://api.datadoghq.eu/api/v2/echo",
      connection_id: connectionId,
    });
    expect(proxied.json.successful, proxied.text).toBe(true);
    const passed = await flow.passthrough("datadog/api/v2/echo", { headers: { "x-connection-id": connectionId } });
    expect(passed.status).toBe(200);
    for (const text of [proxied.text, passed.text]) {
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain(APP_KEY);
    }
    flow.assertNoLeaks([API_KEY, APP_KEY]);
  });

  it.each([
    ["a missing application key", { apiKey: API_KEY }, /credentials\.applicationKey \(Application key\) is missing/],
    [
      "a line break in the application key",
      { apiKey: API_KEY, applicationKey: `${APP_KEY}\r\nx-evil: 1` },
      /^credentials\.applicationKey contains a line break/,
    ],
    [
      "a space around the API key",
      { apiKey: ` ${API_KEY}`, applicationKey: APP_KEY },
      /^credentials\.apiKey starts or ends with whitespace/,
    ],
    [
      "a field the mode does not take",
      { apiKey: API_KEY, applicationKey: APP_KEY, secretOther: "zzzzzzzzzz" },
      /credentials\.secretOther is not a field/,
    ],
  ])("refuses %s with a 400 naming the field, echoing nothing", async (_, credentials, message) => {
    const before = flow.requests.length;
    const res = await flow.call("POST", "/auth", { toolkit: "datadog", credentials });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatch(message);
    for (const value of Object.values(credentials)) expect(res.text).not.toContain(value.trim());
    expect(flow.requests.length).toBe(before);
  });

  it("refuses a site host the provider does not list, naming the input", async () => {
    const res = await flow.call("POST", "/auth", {
      toolkit: "datadog",
      config: { apiHost: "api.datadoghq.evil.com" },
      credentials: { apiKey: API_KEY, applicationKey: APP_KEY },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toContain("apiHost");
  });

  it("connects on the connect page, which asks for both keys, on the default site", async () => {
    const link = await flow.call("POST", "/auth", { toolkit: "datadog" });
    expect(link.status, link.text).toBe(200);
    const done = await flow.submitConnectPage(link.json.authorizationUrl, { apiKey: API_KEY, applicationKey: APP_KEY });
    expect(done.page).toContain('name="applicationKey" type="password"');
    expect(done.status, done.text).toBe(200);
    const status = await flow.call("GET", `/auth/${link.json.authorizationId}`);
    expect(status.json.status).toBe("connected");
    const res = await flow.call("POST", "/proxy", {
      toolkit: "datadog",
      method: "GET",
      url: "https://api.datadoghq.com/api/v1/monitor",
      connection_id: status.json.connectionId,
    });
    expect(res.json.successful, res.text).toBe(true);
    expect(flow.at("api.datadoghq.com", "/api/v1/monitor").at(-1)!.headers["dd-application-key"]).toBe(APP_KEY);
    flow.assertNoLeaks([API_KEY, APP_KEY]);
  });
});
