import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineJsonToolkit } from "../../src/index.js";
import { basicHeader, type EmulatedRequest, mint } from "../catalog/flows/emulation.js";
import { type Rig, startRig } from "./rig.js";

/*
 * A client-credentials mode whose client is the deployer's (`client: "deployer"`, read from the
 * environment in a JSON toolkit file), and a token endpoint that is down, against a generic
 * RFC 6749 4.4 endpoint (https://datatracker.ietf.org/doc/html/rfc6749#section-4.4.2).
 */

const HOST = "api.deployer.test";
const ID = mint("dep-id-");
const SECRET = mint("dep-secret-");
let rig: Rig;
let down = false;
const tokens: string[] = [];

function emulate(request: EmulatedRequest) {
  if (request.path === "/oauth/token") {
    if (down) return { status: 503, body: "<html>maintenance</html>" };
    if (request.headers.authorization !== basicHeader(ID, SECRET)) return { status: 401, body: { error: "invalid_client" } };
    const token = mint("tok-");
    tokens.push(token);
    return { body: { access_token: token, token_type: "Bearer", expires_in: 3600 } };
  }
  return request.headers.authorization === `Bearer ${tokens.at(-1)}` ? { body: { ok: true } } : { status: 401, body: {} };
}

function toolkit(slug: string, env: Record<string, string>) {
  return defineJsonToolkit(
    {
      slug,
      name: "Deployer",
      description: "An API whose client is the server's.",
      baseUrl: `https://${HOST}/v1`,
      auth: {
        type: "clientCredentials",
        client: "deployer",
        clientId: "${DEPLOYER_CLIENT_ID}",
        clientSecret: "${DEPLOYER_CLIENT_SECRET}",
        tokenUrl: `https://${HOST}/oauth/token`,
      },
      tools: [],
    },
    { env },
  );
}

beforeAll(async () => {
  rig = await startRig({
    hosts: [HOST],
    emulate,
    toolkits: [toolkit("deployer", { DEPLOYER_CLIENT_ID: ID, DEPLOYER_CLIENT_SECRET: SECRET })],
  });
});
afterAll(() => rig.close());

describe("the deployer's client", () => {
  it("connects with no credentials at all, and refuses typed ones", async () => {
    const res = await rig.call("POST", "/auth", { toolkit: "deployer" });
    expect(res.status, res.text).toBe(201);
    expect(rig.at(HOST, "/oauth/token").at(-1)!.headers.authorization).toBe(basicHeader(ID, SECRET));
    const proxied = await rig.passthrough("deployer", "me", res.json.connection.id);
    expect(proxied.status, proxied.text).toBe(200);
    const typed = await rig.call("POST", "/auth", { toolkit: "deployer", credentials: { clientId: "mine", clientSecret: "mine-too" } });
    expect(typed.status).toBe(400);
  });

  it("a token endpoint that is down: connecting is a 503 to retry, a renewal a 503 that keeps the connection", async () => {
    const made = await rig.call("POST", "/auth", { toolkit: "deployer" });
    down = true;
    try {
      const res = await rig.call("POST", "/auth", { toolkit: "deployer" });
      expect(res.status).toBe(503);
      expect(res.json).toEqual({ code: "unavailable", error: "Deployer could not be asked for a token; try again shortly." });
      await rig.expire(made.json.connection.id);
      const call = await rig.call("POST", "/proxy", {
        toolkit: "deployer",
        method: "GET",
        url: `https://${HOST}/v1/me`,
        connection_id: made.json.connection.id,
      });
      expect(call.status).toBe(503);
      expect(call.json.error).toMatch(/^The provider could not give the connection a new token; retry shortly\./);
    } finally {
      down = false;
    }
    const listed = (await rig.call("GET", "/connections?toolkit=deployer")).json.connections.find(
      (c: { id: string }) => c.id === made.json.connection.id,
    );
    expect(listed.status).toBe("active");
    const again = await rig.call("POST", "/proxy", {
      toolkit: "deployer",
      method: "GET",
      url: `https://${HOST}/v1/me`,
      connection_id: made.json.connection.id,
    });
    expect(again.json.successful, again.text).toBe(true);
    rig.assertNoLeaks([SECRET, ...tokens]);
  });
});
