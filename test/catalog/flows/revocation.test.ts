import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineToolkit, oauth2 } from "../../../src/index.js";
import { authorize, type EmulatedAnswer, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * RFC 7009 revocation of a connection with a refresh token: the refresh token goes first, and
 * revoking it ends the grant (RFC 7009 2.1), so a server such as Google's
 * (https://developers.google.com/identity/protocols/oauth2/web-server#tokenrevoke) or Salesforce's
 * (https://developer.salesforce.com/docs/atlas.en-us.mobile_sdk.meta/mobile_sdk/oauth_revoking_tokens.htm)
 * then answers the access token with 400 invalid_token. That answer, and only that one after a
 * successful first revocation, is no failure; anything else is still logged as one.
 */

let flow: Flow;
const codes = new Set<string>();
/** How the revocation endpoint answers each call, in order. */
let script: EmulatedAnswer[] = [];

function emulate(request: EmulatedRequest): EmulatedAnswer {
  const { host, method, path } = request;
  if (host === "auth.grant.example" && path === "/authorize") {
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
  }
  if (host === "auth.grant.example" && method === "POST" && path === "/token") {
    if (!codes.delete(form(request).code ?? "")) return { status: 400, body: { error: "invalid_grant" } };
    return { body: { access_token: mint("at-"), refresh_token: mint("rt-"), token_type: "Bearer", expires_in: 3600 } };
  }
  if (host === "auth.grant.example" && method === "POST" && path === "/revoke") return script.shift() ?? { status: 200 };
  if (host === "api.grant.example" && path === "/me") return { body: { id: "u1" } };
  return { status: 404, body: "not found" };
}

beforeAll(async () => {
  flow = await startFlow({
    provider: "grant-example",
    hosts: ["auth.grant.example", "api.grant.example"],
    emulate,
    toolkit: ({ clientId, clientSecret }) =>
      defineToolkit({
        slug: "grant-example",
        name: "Grant example",
        description: "An RFC 7009 server that ends the grant with its refresh token.",
        baseUrl: "https://api.grant.example",
        auth: oauth2({
          authorizationUrl: "https://auth.grant.example/authorize",
          tokenUrl: "https://auth.grant.example/token",
          revocationUrl: "https://auth.grant.example/revoke",
          clientId,
          clientSecret,
          identify: { url: "/me", remoteUser: "id" },
        }),
        tools: [],
      }),
  });
});
afterAll(() => flow?.close());

async function deleteWith(answers: EmulatedAnswer[]): Promise<{ tokens: string[]; warned: boolean }> {
  const { connection } = await flow.connect();
  const mark = flow.logs.length;
  const calls = flow.at("auth.grant.example", "/revoke").length;
  script = answers;
  expect((await flow.call("DELETE", `/connections/${connection.id}`)).status).toBe(204);
  const tokens = flow
    .at("auth.grant.example", "/revoke")
    .slice(calls)
    .map((r) => form(r).token!);
  return { tokens, warned: flow.logs.slice(mark).some((line) => line.includes("revocation failed")) };
}

describe("RFC 7009 revocation after the refresh token ended the grant", () => {
  it("the access token's 400 invalid_token after a revoked refresh token is no failure", async () => {
    const { tokens, warned } = await deleteWith([{ status: 200 }, { status: 400, body: { error: "invalid_token" } }]);
    expect(tokens).toEqual([expect.stringMatching(/^rt-/), expect.stringMatching(/^at-/)]);
    expect(warned).toBe(false);
  });

  it("another refusal of the access token is still a failure", async () => {
    const { warned } = await deleteWith([{ status: 200 }, { status: 400, body: { error: "invalid_request" } }]);
    expect(warned).toBe(true);
  });

  it("invalid_token for the refresh token itself is a failure, and the access token is not tried", async () => {
    const { tokens, warned } = await deleteWith([{ status: 400, body: { error: "invalid_token" } }]);
    expect(tokens).toEqual([expect.stringMatching(/^rt-/)]);
    expect(warned).toBe(true);
  });
});
