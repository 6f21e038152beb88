import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogToolkit } from "../../src/catalog/index.js";
import { sqlStore } from "../../src/store/sql/index.js";
import { basicHeader, type EmulatedRequest, mint } from "../catalog/flows/emulation.js";
import { type Rig, startRig } from "./rig.js";

/*
 * PayPal's REST authentication, as https://developer.paypal.com/api/rest/authentication/ and
 * https://developer.paypal.com/api/rest/ show it: POST https://api-m.paypal.com/v1/oauth2/token
 * (api-m.sandbox.paypal.com in the sandbox) with the client ID and secret as HTTP Basic
 * (`-u "CLIENT_ID:CLIENT_SECRET"`, base64 of id:secret), `Content-Type:
 * application/x-www-form-urlencoded` and the body `grant_type=client_credentials`; the answer holds
 * `scope`, `access_token`, `token_type` "Bearer", `app_id`, `expires_in` (seconds) and `nonce`.
 * API calls carry `Authorization: Bearer <access_token>`. A wrong client is refused with 401
 * `{ "error": "invalid_client", "error_description": "Client Authentication failed" }`.
 *
 * Two handlers share one SQLite file, as two processes of one deployment would.
 */

const HOST = "api-m.paypal.com";
const CLIENT_ID = mint("AeA1QIZXiflr1_-");
const CLIENT_SECRET = mint("ECYYrrSHdKfk_");
const dir = mkdtempSync(join(tmpdir(), "grants-paypal-"));
const url = `sqlite:${join(dir, "tools.db")}`;

let rig: Rig;
const tokens: string[] = [];
let live = new Set<string>();
let tokenDelayMs = 0;
let dropAccessToken = false;
let secret = CLIENT_SECRET;

async function emulate(request: EmulatedRequest) {
  if (request.host !== HOST) return { status: 404, body: {} };
  if (request.method === "POST" && request.path === "/v1/oauth2/token") {
    if (request.headers.authorization !== basicHeader(CLIENT_ID, secret)) {
      return { status: 401, body: { error: "invalid_client", error_description: "Client Authentication failed" } };
    }
    if (request.body !== "grant_type=client_credentials") return { status: 400, body: { error: "unsupported_grant_type" } };
    await new Promise((resolve) => setTimeout(resolve, tokenDelayMs));
    const token = mint("A21AAF");
    tokens.push(token);
    live.add(token);
    const answer: Record<string, unknown> = {
      scope: "https://uri.paypal.com/services/invoicing https://uri.paypal.com/services/payments/payment",
      access_token: token,
      token_type: "Bearer",
      app_id: "APP-80W284485P519543T",
      expires_in: 32400,
      nonce: mint("2026-11-27T"),
    };
    if (dropAccessToken) delete answer.access_token;
    return { body: answer };
  }
  if (request.path === "/v2/invoicing/invoices") {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (!token || !live.has(token))
      return { status: 401, body: { error: "invalid_token", error_description: "Token signature verification failed" } };
    return { body: { total_items: 0, items: [] } };
  }
  return { status: 404, body: {} };
}

const tokenRequests = () => rig.at(HOST, "/v1/oauth2/token");

beforeAll(async () => {
  const admin = sqlStore({ url });
  await admin.migrate();
  await admin.close();
  rig = await startRig({ hosts: [HOST], emulate, toolkits: [catalogToolkit("paypal")], stores: [sqlStore({ url }), sqlStore({ url })] });
});
afterAll(async () => {
  await rig.close();
  for (const store of rig.stores) await store.close?.();
  rmSync(dir, { recursive: true, force: true });
});

async function connect(): Promise<string> {
  const res = await rig.call("POST", "/auth", { toolkit: "paypal", credentials: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } });
  expect(res.status, res.text).toBe(201);
  return res.json.connection.id as string;
}

function listInvoices(connectionId: string, on = 0) {
  return rig.call(
    "POST",
    "/proxy",
    { toolkit: "paypal", method: "GET", url: `https://${HOST}/v2/invoicing/invoices`, connection_id: connectionId },
    on,
  );
}

describe("PayPal client credentials", () => {
  it("connecting asks one token exactly as PayPal documents it, and stores the connection", async () => {
    const before = tokenRequests().length;
    await connect();
    const sent = tokenRequests().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.method).toBe("POST");
    expect(sent[0]!.target).toBe("/v1/oauth2/token");
    expect(sent[0]!.headers.authorization).toBe(basicHeader(CLIENT_ID, CLIENT_SECRET));
    expect(sent[0]!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(sent[0]!.headers.accept).toBe("application/json");
    expect(sent[0]!.body).toBe("grant_type=client_credentials");
  });

  it("the proxy and the passthrough carry the token as Authorization: Bearer, without asking again", async () => {
    const id = await connect();
    const before = tokenRequests().length;
    const res = await listInvoices(id);
    expect(res.json).toMatchObject({ successful: true, data: { total_items: 0 } });
    const sent = rig.at(HOST, "/v2/invoicing/invoices").at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${tokens.at(-1)}`);
    const through = await rig.passthrough("paypal", "v2/invoicing/invoices", id, 1);
    expect(through.status, through.text).toBe(200);
    expect(rig.at(HOST, "/v2/invoicing/invoices").at(-1)!.headers.authorization).toBe(`Bearer ${tokens.at(-1)}`);
    expect(tokenRequests().length).toBe(before);
  });

  it("connects on the connect page: a wrong secret shows PayPal's sentence, the right one connects", async () => {
    const started = await rig.call("POST", "/auth", { toolkit: "paypal" });
    expect(started.status, started.text).toBe(200);
    const wrong = mint("wrong-secret-");
    const refused = await rig.submitPage(started.json.authorizationUrl, { clientId: CLIENT_ID, clientSecret: wrong });
    expect(refused.page).toMatch(/name="clientId" type="text"/);
    expect(refused.page).toMatch(/name="clientSecret" type="password"/);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("PayPal refused the credentials (401: Client Authentication failed)");
    expect(refused.text).not.toContain(wrong);
    const done = await rig.submitPage(started.json.authorizationUrl, { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    expect(done.status, done.text).toBe(200);
    const status = await rig.call("GET", `/auth/${started.json.authorizationId}`);
    expect(status.json.status).toBe("connected");
    expect((await listInvoices(status.json.connectionId)).json.successful).toBe(true);
    rig.assertNoLeaks([wrong]);
  });

  it("a wrong client secret is a 400 with PayPal's sentence, nothing stored, no secret echoed", async () => {
    const wrong = mint("wrong-secret-");
    const count = (await rig.call("GET", "/connections?toolkit=paypal")).json.connections.length;
    const res = await rig.call("POST", "/auth", { toolkit: "paypal", credentials: { clientId: CLIENT_ID, clientSecret: wrong } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      code: "invalid_request",
      error: "PayPal refused the credentials (401: Client Authentication failed). Check them and connect again.",
    });
    expect((await rig.call("GET", "/connections?toolkit=paypal")).json.connections.length).toBe(count);
    rig.assertNoLeaks([wrong]);
  });

  it("a token answer without access_token fails the connection with a sentence naming the field", async () => {
    dropAccessToken = true;
    try {
      const res = await rig.call("POST", "/auth", { toolkit: "paypal", credentials: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('PayPal\'s token answer has no usable "access_token" (the access token), so no token could be kept.');
    } finally {
      dropAccessToken = false;
    }
  });

  it("20 concurrent calls over two handlers sharing the SQLite file, token expired: exactly one token request", async () => {
    const id = await connect();
    await rig.expire(id);
    tokenDelayMs = 150;
    const before = tokenRequests().length;
    try {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => listInvoices(id, i % 2)));
      expect(results.map((r) => r.json?.successful ?? r.text)).toEqual(Array(20).fill(true));
    } finally {
      tokenDelayMs = 0;
    }
    expect(tokenRequests().length - before).toBe(1);
    const used = new Set(
      rig
        .at(HOST, "/v2/invoicing/invoices")
        .slice(-20)
        .map((r) => r.headers.authorization),
    );
    expect(used).toEqual(new Set([`Bearer ${tokens.at(-1)}`]));
  });

  it("a 401 renews the token once and the call succeeds; a second 401 is the answer, not a loop", async () => {
    const id = await connect();
    live = new Set();
    let before = tokenRequests().length;
    const renewed = await listInvoices(id);
    expect(renewed.json.successful, renewed.text).toBe(true);
    expect(tokenRequests().length - before).toBe(1);

    // Every token refused from now on: one renewal, then PayPal's 401 comes back as the result.
    const accepted = live;
    live = { has: () => false, add: () => accepted } as unknown as Set<string>;
    before = tokenRequests().length;
    const apiBefore = rig.at(HOST, "/v2/invoicing/invoices").length;
    const refused = await listInvoices(id);
    expect(refused.json).toMatchObject({ successful: false, status: 401 });
    expect(tokenRequests().length - before).toBe(1);
    expect(rig.at(HOST, "/v2/invoicing/invoices").length - apiBefore).toBe(2);
    live = new Set();
  });

  it("a client secret rotated since connecting: the renewal is refused and the connection expires with PayPal's sentence", async () => {
    const id = await connect();
    await rig.expire(id);
    secret = mint("rotated-");
    try {
      const res = await listInvoices(id);
      expect(res.status).toBe(409);
      expect(res.json.code).toBe("connection_required");
      expect(res.json.error).toMatch(/is expired\. PayPal refused the credentials \(401: Client Authentication failed\)/);
      const listed = (await rig.call("GET", "/connections?toolkit=paypal")).json.connections.find((c: { id: string }) => c.id === id);
      expect(listed.status).toBe("expired");
    } finally {
      secret = CLIENT_SECRET;
    }
    rig.assertNoLeaks([CLIENT_SECRET, ...tokens]);
  });
});
