/**
 * `refreshRedirectUri: true`: the refresh request carries the same `redirect_uri` as the code
 * exchange, for providers whose refresh asks for it. Two catalog providers, end to end against
 * emulations that refuse a refresh without it:
 *
 * - Gusto: `POST https://api.gusto.com/oauth/token` with client_id, client_secret, redirect_uri,
 *   refresh_token and grant_type=refresh_token; two-hour access tokens, a new refresh token each time
 *   (https://docs.gusto.com/embedded-payroll/docs/company-access-tokens,
 *   https://docs.gusto.com/app-integrations/v2024-04-01/reference/refresh-access-token);
 * - Kommo: `POST https://{subdomain}.kommo.com/oauth2/access_token` with a JSON body of client_id,
 *   client_secret, grant_type, refresh_token and redirect_uri (https://developers.kommo.com/reference/get-token).
 *
 * A provider without the option (Xero's flow test) still refreshes with grant_type and
 * refresh_token only.
 */
import { afterAll, describe, expect, it } from "vitest";
import { type EmulatedAnswer, type EmulatedRequest, type Flow, form, jsonBody, mint, startFlow } from "./emulation.js";

interface Tokens {
  codes: Set<string>;
  access: Set<string>;
  refresh: Set<string>;
  issued: string[];
}
const fresh = (): Tokens => ({ codes: new Set(), access: new Set(), refresh: new Set(), issued: [] });

function issue(tokens: Tokens, lifetime: number) {
  const access_token = mint("at-");
  const refresh_token = mint("rt-");
  tokens.access.add(access_token);
  tokens.refresh.add(refresh_token);
  tokens.issued.push(access_token, refresh_token);
  return { access_token, refresh_token, token_type: "Bearer", expires_in: lifetime };
}

/** The token endpoint both emulate: a code or a refresh token, and the exact redirect URI with either. */
function tokenEndpoint(flow: () => Flow, tokens: Tokens, fields: Record<string, string | undefined>, lifetime: number): EmulatedAnswer {
  if (fields.client_id !== flow().clientId || fields.client_secret !== flow().clientSecret)
    return { status: 401, body: { error: "invalid_client" } };
  if (fields.redirect_uri !== flow().callbackUrl) return { status: 400, body: { error: "invalid_request", hint: "redirect_uri" } };
  if (fields.grant_type === "authorization_code" && tokens.codes.delete(fields.code ?? "")) return { body: issue(tokens, lifetime) };
  if (fields.grant_type === "refresh_token" && tokens.refresh.delete(fields.refresh_token ?? "")) return { body: issue(tokens, lifetime) };
  return { status: 400, body: { error: "invalid_grant" } };
}

function redirectBack(flow: Flow, tokens: Tokens, request: EmulatedRequest): EmulatedAnswer {
  if (request.query.get("client_id") !== flow.clientId) return { status: 400, body: "unknown client_id" };
  const code = mint("code-");
  tokens.codes.add(code);
  const back = new URL(flow.callbackUrl);
  back.searchParams.set("code", code);
  back.searchParams.set("state", request.query.get("state") ?? "");
  return { status: 302, headers: { location: back.href } };
}

const bearer = (request: EmulatedRequest) => /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";

describe("Gusto: the refresh request carries the redirect_uri", () => {
  let flow: Flow;
  const tokens = fresh();
  afterAll(() => flow?.close());

  it("connects, then refreshes with client_secret_post and the redirect_uri when the token is refused", async () => {
    flow = await startFlow({
      provider: "gusto",
      hosts: ["api.gusto.com"],
      emulate: (request) => {
        if (request.path === "/oauth/authorize") {
          if (request.query.get("redirect_uri") !== flow.callbackUrl) return { status: 400, body: "redirect_uri mismatch" };
          return redirectBack(flow, tokens, request);
        }
        if (request.method === "POST" && request.path === "/oauth/token") return tokenEndpoint(() => flow, tokens, form(request), 7200);
        if (!tokens.access.has(bearer(request))) return { status: 401, body: { errors: [{ message: "Unauthorized" }] } };
        if (request.path === "/v1/me") return { body: { uuid: "u-1", email: "ada@acme.example", roles: {} } };
        if (request.path === "/v1/companies/c-1") return { body: { uuid: "c-1", name: "Acme" } };
        return { status: 404, body: { errors: [{ message: "Not found" }] } };
      },
    });
    const { connection } = await flow.connect();
    expect(connection.remoteUser).toBe("ada@acme.example");

    const [refreshToken] = tokens.refresh;
    tokens.access.clear();
    const res = await flow.call("POST", "/proxy", {
      toolkit: "gusto",
      method: "GET",
      url: "https://api.gusto.com/v1/companies/c-1",
      connection_id: connection.id,
    });
    expect(res.json, res.text).toMatchObject({ successful: true, data: { name: "Acme" } });
    const refresh = flow.at("api.gusto.com", "/oauth/token").at(-1)!;
    expect(form(refresh)).toEqual({
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: flow.clientId,
      client_secret: flow.clientSecret,
      redirect_uri: flow.callbackUrl,
    });
    expect(flow.at("api.gusto.com", "/v1/companies/c-1").at(-1)!.headers["x-gusto-api-version"]).toBe("2026-06-15");
    flow.assertNoLeaks([...tokens.issued, flow.clientSecret]);
  });
});

describe("Kommo: the refresh request's JSON body carries the redirect_uri", () => {
  let flow: Flow;
  const tokens = fresh();
  afterAll(() => flow?.close());

  it("connects on the account's subdomain, then refreshes there with the redirect_uri in JSON", async () => {
    flow = await startFlow({
      provider: "kommo",
      hosts: ["www.kommo.com", "acme.kommo.com"],
      emulate: (request) => {
        if (request.host === "www.kommo.com" && request.path === "/oauth") return redirectBack(flow, tokens, request);
        if (request.host !== "acme.kommo.com") return { status: 404, body: "not found" };
        if (request.method === "POST" && request.path === "/oauth2/access_token") {
          if (!request.headers["content-type"]?.startsWith("application/json")) return { status: 400, body: { hint: "JSON only" } };
          return tokenEndpoint(() => flow, tokens, jsonBody(request) as Record<string, string>, 86400);
        }
        if (!tokens.access.has(bearer(request))) return { status: 401, body: { title: "Unauthorized", status: 401 } };
        if (request.path === "/api/v4/account") return { body: { id: 30123456, name: "Acme", subdomain: "acme" } };
        if (request.path === "/api/v4/leads") return { body: { _embedded: { leads: [{ id: 1, name: "Deal" }] } } };
        return { status: 404, body: { title: "Not found", status: 404 } };
      },
    });
    const { connection } = await flow.connect({ mode: "oauth2", config: { subdomain: "acme" } });
    expect(connection).toMatchObject({ remoteUser: "30123456", config: { subdomain: "acme" } });

    const [refreshToken] = tokens.refresh;
    tokens.access.clear();
    const res = await flow.call("POST", "/proxy", {
      toolkit: "kommo",
      method: "GET",
      url: "https://acme.kommo.com/api/v4/leads",
      connection_id: connection.id,
    });
    expect(res.json, res.text).toMatchObject({ successful: true, data: { _embedded: { leads: [{ name: "Deal" }] } } });
    const refresh = flow.at("acme.kommo.com", "/oauth2/access_token").at(-1)!;
    expect(jsonBody(refresh)).toEqual({
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: flow.clientId,
      client_secret: flow.clientSecret,
      redirect_uri: flow.callbackUrl,
    });
    flow.assertNoLeaks([...tokens.issued, flow.clientSecret]);
  });
});
