import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicHeader, type EmulatedRequest, type Flow, startFlow } from "./emulation.js";

/*
 * BambooHR: the API key is the username of HTTP Basic, the password any string (x in its examples),
 * and the company's domain a segment of the base URL's path. As its documentation describes it
 * (https://www.bamboohr.com/api/documentation/, https://documentation.bamboohr.com/docs/getting-started):
 * requests go to https://api.bamboohr.com/api/gateway.php/{company subdomain}/v1/...; the key, a
 * 160-bit number in hexadecimal, is sent over Basic with any random password; an unknown key is a 401.
 */

const KEY = Buffer.from(crypto.getRandomValues(new Uint8Array(20))).toString("hex");
const EXPECTED = basicHeader(KEY, "x");

let flow: Flow;

function emulate(request: EmulatedRequest) {
  if (request.host !== "api.bamboohr.com") return { status: 404, body: "" };
  if (request.headers.authorization !== EXPECTED) return { status: 401, body: "" };
  if (request.path === "/api/gateway.php/acme/v1/employees/directory") return { body: { employees: [{ id: "1", displayName: "Ada" }] } };
  return { status: 404, body: "" };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "bamboohr", hosts: ["api.bamboohr.com"], emulate });
});
afterAll(() => flow?.close());

describe("BambooHR (the API key as the Basic username, x as the password), end to end", () => {
  it("connects, then proxies and passes through with Basic key:x under the company's path", async () => {
    const res = await flow.call("POST", "/auth", { toolkit: "bamboohr", config: { companyDomain: "acme" }, credentials: { apiKey: KEY } });
    expect(res.status, res.text).toBe(201);
    const connectionId = res.json.connection.id;
    const proxied = await flow.call("POST", "/proxy", {
      toolkit: "bamboohr",
      method: "GET",
      url: "https://api.bamboohr.com/api/gateway.php/acme/v1/employees/directory",
      connection_id: connectionId,
    });
    expect(proxied.json).toMatchObject({ successful: true, data: { employees: [{ displayName: "Ada" }] } });
    const passed = await flow.passthrough("bamboohr/employees/directory", { headers: { "x-connection-id": connectionId } });
    expect(passed.status, passed.text).toBe(200);
    const sent = flow.at("api.bamboohr.com", "/api/gateway.php/acme/v1/employees/directory");
    expect(sent.map((r) => r.headers.authorization)).toEqual([EXPECTED, EXPECTED]);
    flow.assertNoLeaks([KEY, EXPECTED.slice("Basic ".length)]);
  });

  it("refuses a company domain that would add a path segment, naming the input", async () => {
    const res = await flow.call("POST", "/auth", {
      toolkit: "bamboohr",
      config: { companyDomain: "acme/../x" },
      credentials: { apiKey: KEY },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toContain("companyDomain");
    expect(res.text).not.toContain(KEY);
  });
});
