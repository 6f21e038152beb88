import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineToolkit } from "../../src/index.js";
import { basicHeader, type EmulatedRequest, type Flow, form, mint, startFlow } from "../catalog/flows/emulation.js";

/*
 * The grant engine against a generic RFC 6749 4.4 token endpoint
 * (https://datatracker.ietf.org/doc/html/rfc6749#section-4.4.2): the client authenticates with
 * HTTP Basic, the body is `grant_type=client_credentials` and the answer holds `access_token`,
 * `token_type` and `expires_in`.
 */

const HOST = "api.engine.test";
const CLIENT_ID = mint("cid-");
const CLIENT_SECRET = mint("csecret-");
let flow: Flow;
const issued: string[] = [];
const lifetime = 3600;

function emulate(request: EmulatedRequest) {
  if (request.path === "/oauth/token") {
    if (request.headers.authorization !== basicHeader(CLIENT_ID, CLIENT_SECRET)) {
      return { status: 401, body: { error: "invalid_client", error_description: "Client authentication failed." } };
    }
    const token = mint("at-");
    issued.push(token);
    return { body: { access_token: token, token_type: "Bearer", expires_in: lifetime, ...form(request) } };
  }
  if (request.path === "/v1/me") {
    if (request.headers.authorization !== `Bearer ${issued.at(-1)}`) return { status: 401, body: { error: "invalid_token" } };
    return { body: { ok: true } };
  }
  return { status: 404, body: {} };
}

beforeAll(async () => {
  flow = await startFlow({
    provider: "engine",
    hosts: [HOST],
    emulate,
    toolkit: () =>
      defineToolkit({
        slug: "engine",
        name: "Engine",
        description: "A client-credentials API.",
        baseUrl: `https://${HOST}/v1`,
        auth: { type: "clientCredentials", tokenUrl: `https://${HOST}/oauth/token` },
        tools: [],
      }),
  });
});
afterAll(() => flow.close());

describe("client credentials through the engine", () => {
  it("connects with the typed client, asks one token, and proxies with it", async () => {
    const res = await flow.call("POST", "/auth", { toolkit: "engine", credentials: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } });
    expect(res.status, res.text).toBe(201);
    expect(issued.length).toBe(1);
    const proxied = await flow.call("POST", "/proxy", {
      toolkit: "engine",
      method: "GET",
      url: `https://${HOST}/v1/me`,
      connection_id: res.json.connection.id,
    });
    expect(proxied.json).toMatchObject({ successful: true, data: { ok: true } });
    expect(issued.length).toBe(1);
    flow.assertNoLeaks([CLIENT_SECRET, ...issued]);
  });

  it("refuses a wrong secret with the provider's sentence and no secret", async () => {
    const wrong = mint("wrong-");
    const res = await flow.call("POST", "/auth", { toolkit: "engine", credentials: { clientId: CLIENT_ID, clientSecret: wrong } });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatch(/Client authentication failed/);
    expect(res.text).not.toContain(wrong);
    void lifetime;
  });
});
