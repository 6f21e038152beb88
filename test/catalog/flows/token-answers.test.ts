import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineToolkit, oauth2 } from "../../../src/index.js";
import { authorize, type EmulatedAnswer, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * Token answers no catalog provider gives, through a full flow: `expires_in` sent as a string and
 * a form-encoded body. None of the catalog's providers documents either for the endpoints it
 * uses, so the provider is a generic one, defined with defineToolkit, whose token endpoint answers
 * the way these real ones document:
 * - Azure AD's v1.0 endpoint, https://learn.microsoft.com/en-us/azure/active-directory/azuread-dev/v1-protocols-oauth-code
 *   (its sample answers carry "expires_in": "3599", a JSON string);
 * - GitHub, https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps
 *   (access_token=...&scope=...&token_type=bearer, form-encoded, unless JSON is asked for; this
 *   emulation answers form-encoded whatever the Accept header says, as older servers do).
 * Each answer here has a one-second lifetime, so that a call after it shows the handler read it:
 * the token is refreshed before use, with no 401 needed.
 */

let flow: Flow;
let style: "string-expiry" | "form" = "string-expiry";
const codes = new Set<string>();
const accessTokens = new Map<string, number>(); // access token → when it expires
const refreshTokens = new Set<string>();
const issued: string[] = [];

function answer(fields: Record<string, string>) {
  if (style === "form") {
    return { headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() };
  }
  return { body: fields }; // every value a string, expires_in too
}

function issue() {
  const access = mint("at-");
  const refresh = mint("rt-");
  accessTokens.set(access, Date.now() + 1000);
  refreshTokens.add(refresh);
  issued.push(access, refresh);
  return answer({ access_token: access, token_type: "Bearer", expires_in: "1", refresh_token: refresh, scope: "read" });
}

function emulate(request: EmulatedRequest): EmulatedAnswer {
  const { host, method, path } = request;
  if (host === "login.legacy.example" && path === "/authorize") {
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
  }
  if (host === "login.legacy.example" && method === "POST" && path === "/token") {
    const fields = form(request);
    if (fields.grant_type === "refresh_token") {
      if (!refreshTokens.delete(fields.refresh_token ?? "")) return { status: 400, body: { error: "invalid_grant" } };
      return issue();
    }
    if (!codes.delete(fields.code ?? "")) return { status: 400, body: { error: "invalid_grant" } };
    return issue();
  }
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
  const until = accessTokens.get(token);
  if (until === undefined || until < Date.now()) return { status: 401, body: { error: "invalid_token" } };
  if (host === "api.legacy.example" && path === "/me") return { body: { name: "ada" } };
  if (host === "api.legacy.example" && path === "/items") return { body: { items: [1, 2] } };
  return { status: 404, body: "not found" };
}

beforeAll(async () => {
  flow = await startFlow({
    provider: "legacy-oauth",
    hosts: ["login.legacy.example", "api.legacy.example"],
    emulate,
    toolkit: ({ clientId, clientSecret }) =>
      defineToolkit({
        slug: "legacy-oauth",
        name: "Legacy OAuth",
        description: "A provider whose token endpoint answers the older ways.",
        baseUrl: "https://api.legacy.example",
        auth: oauth2({
          authorizationUrl: "https://login.legacy.example/authorize",
          tokenUrl: "https://login.legacy.example/token",
          clientId,
          clientSecret,
          scopes: ["read"],
          identify: { url: "/me", remoteUser: "name" },
        }),
        tools: [],
      }),
  });
});
afterAll(() => flow?.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function items(connectionId: string) {
  return flow.call("POST", "/proxy", {
    toolkit: "legacy-oauth",
    method: "GET",
    url: "https://api.legacy.example/items",
    connection_id: connectionId,
  });
}

/** Connects, lets the one-second token expire, and checks the next call refreshed it first. */
async function connectAndOutliveToken() {
  const { connection } = await flow.connect();
  expect(connection.remoteUser).toBe("ada");
  const firstToken = flow.at("api.legacy.example", "/me").at(-1)!.headers.authorization;
  await sleep(1100);
  const refreshesBefore = flow.at("login.legacy.example", "/token").filter((r) => form(r).grant_type === "refresh_token").length;
  const res = await items(connection.id);
  expect(res.json, res.text).toMatchObject({ successful: true, data: { items: [1, 2] } });
  const calls = flow.at("api.legacy.example", "/items");
  // Refreshed before use: the one call made went out with a new token, never with the expired one.
  expect(calls.filter((c) => c.headers.authorization === firstToken)).toEqual([]);
  expect(flow.at("login.legacy.example", "/token").filter((r) => form(r).grant_type === "refresh_token").length).toBe(refreshesBefore + 1);
  return connection;
}

describe("token answers in older shapes, through a full flow", () => {
  it('expires_in as a JSON string ("1") is read as seconds: the token is refreshed before use once it ends', async () => {
    style = "string-expiry";
    const calls = flow.at("api.legacy.example", "/items").length;
    await connectAndOutliveToken();
    expect(flow.at("api.legacy.example", "/items").length).toBe(calls + 1);
  });

  it("a form-encoded token answer (code exchange and refresh) is read as fields, expires_in included", async () => {
    style = "form";
    const calls = flow.at("api.legacy.example", "/items").length;
    const connection = await connectAndOutliveToken();
    expect(flow.at("api.legacy.example", "/items").length).toBe(calls + 1);
    // The refreshed answer was form-encoded too, and its refresh token was kept for the next one.
    await sleep(1100);
    expect((await items(connection.id)).json).toMatchObject({ successful: true });
  });

  it("nothing secret reached an answer or a log line", () => {
    flow.assertNoLeaks([...issued, flow.clientSecret, ...codes]);
  });
});
