import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineToolkit, oauth2 } from "../../../src/index.js";
import { authorize, type EmulatedAnswer, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * A generic provider for what no catalog flow reaches: PKCE turned off (as for providers that
 * refuse `code_challenge`), user scopes joined with the default space, and a revocation request of
 * the provider's own (a form body, the refresh token in the path as HubSpot's v1 DELETE
 * /oauth/v1/refresh-tokens/{refreshToken} had it), with its failures logged and redacted.
 */

let flow: Flow;
const codes = new Set<string>();
const tokens = new Set<string>();
let revokeAnswer: EmulatedAnswer = { status: 204 };

function emulate(request: EmulatedRequest): EmulatedAnswer {
  const { host, method, path } = request;
  if (host === "login.plain.example" && path === "/authorize") {
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
  }
  if (host === "login.plain.example" && method === "POST" && path === "/token") {
    const fields = form(request);
    // No PKCE was started, so none may be sent.
    if (fields.code_verifier !== undefined || !codes.delete(fields.code ?? "")) return { status: 400, body: { error: "invalid_grant" } };
    const access = mint("at-");
    const refresh = mint("rt-");
    tokens.add(access).add(refresh);
    return { body: { access_token: access, refresh_token: refresh, token_type: "Bearer", expires_in: 3600 } };
  }
  if (host === "api.plain.example" && path.startsWith("/oauth/refresh-tokens/")) return revokeAnswer;
  return { status: 404, body: {} };
}

beforeAll(async () => {
  flow = await startFlow({
    provider: "plain",
    hosts: ["login.plain.example", "api.plain.example"],
    emulate,
    toolkit: ({ clientId, clientSecret }) =>
      defineToolkit({
        slug: "plain",
        name: "Plain",
        description: "A provider without PKCE, with its own revocation request.",
        baseUrl: "https://api.plain.example",
        auth: oauth2({
          authorizationUrl: "https://login.plain.example/authorize",
          tokenUrl: "https://login.plain.example/token",
          clientId,
          clientSecret,
          scopes: ["read", "write"],
          userScopes: ["profile", "email"],
          pkce: false,
          revocation: {
            url: "/oauth/refresh-tokens/{refreshToken}",
            method: "DELETE",
            auth: "client_basic",
            body: { client_id: "{clientId}", token: "{accessToken}" },
            format: "form",
          },
        }),
        tools: [],
      }),
  });
});
afterAll(() => flow?.close());

describe("a provider's own requests", () => {
  it("without PKCE: no code_challenge on the authorization URL, no code_verifier in the exchange; user scopes space-joined", async () => {
    const { authorizationUrl } = await flow.connect();
    expect(authorizationUrl.searchParams.has("code_challenge")).toBe(false);
    expect(authorizationUrl.searchParams.has("code_challenge_method")).toBe(false);
    expect(authorizationUrl.searchParams.get("scope")).toBe("read write");
    expect(authorizationUrl.searchParams.get("user_scope")).toBe("profile email");
  });

  it("revocation: the refresh token in the path, a form body with the fillers replaced, the client's Basic credentials", async () => {
    const { connection } = await flow.connect();
    const before = flow.requests.length;
    revokeAnswer = { status: 204 };
    expect((await flow.call("DELETE", `/connections/${connection.id}`)).status).toBe(204);
    const [sent] = flow.requests.slice(before);
    const [refresh] = sent!.path.split("/").slice(-1);
    expect(sent!.method).toBe("DELETE");
    expect(tokens.has(decodeURIComponent(refresh!))).toBe(true);
    expect(sent!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(form(sent!)).toEqual({ client_id: flow.clientId, token: expect.stringMatching(/^at-/) });
    expect(sent!.headers.authorization).toBe(`Basic ${Buffer.from(`${flow.clientId}:${flow.clientSecret}`).toString("base64")}`);
  });

  it.each([
    ["a 500", { status: 500, body: "oops" }, true],
    ["Slack's 200 with ok: false", { status: 200, body: { ok: false, error: "invalid_auth" } }, true],
    ["a 404 (already gone)", { status: 404, body: {} }, false],
  ] as const)("%s: the connection is deleted either way; a failure is logged with no token or secret", async (_, answer, warned) => {
    const { connection } = await flow.connect();
    revokeAnswer = answer as EmulatedAnswer;
    const mark = flow.logs.length;
    expect((await flow.call("DELETE", `/connections/${connection.id}`)).status).toBe(204);
    const logged = flow.logs.slice(mark).filter((line) => line.includes("revocation failed"));
    expect(logged.length > 0).toBe(warned);
    if (warned) expect(logged.join("\n")).toMatch(new RegExp(`answered ${answer.status}`));
    expect((await flow.call("GET", "/connections?toolkit=plain")).json.connections.map((c: { id: string }) => c.id)).not.toContain(
      connection.id,
    );
    flow.assertNoLeaks([...tokens, flow.clientSecret]);
  });
});
