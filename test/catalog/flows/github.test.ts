import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, basicHeader, type EmulatedRequest, type Flow, form, jsonBody, mint, startFlow } from "./emulation.js";

/*
 * GitHub, as its documentation describes an OAuth app:
 * - https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps
 *   (POST https://github.com/login/oauth/access_token with client_id and client_secret in the
 *   body; the answer is form-encoded unless the request accepts JSON; OAuth app tokens carry no
 *   expires_in and no refresh token)
 * - https://docs.github.com/en/apps/oauth-apps/maintaining-oauth-apps/troubleshooting-oauth-app-access-token-request-errors
 *   (a wrong code is answered with 200 and `error: "bad_verification_code"`)
 * - https://docs.github.com/en/rest/users/users#get-the-authenticated-user (GET /user, `login`)
 * - https://docs.github.com/en/rest/apps/oauth-applications#delete-an-app-token
 *   (DELETE /applications/{client_id}/token revokes that one token: Basic authentication with the
 *   app's client_id and client_secret as username and password, JSON body { access_token },
 *   204 No Content, 422 when validation fails). Beside it, "Delete an app authorization"
 *   (DELETE /applications/{client_id}/grant, same page) deletes every token of the app for that
 *   user: this emulation does both, so that deleting one connection with the grant would be seen
 *   to end the user's other connections.
 * - https://docs.github.com/en/rest/using-the-rest-api/getting-started-with-the-rest-api
 *   (requests without a User-Agent are refused with 403)
 */

let flow: Flow;
const codes = new Set<string>();
const tokens = new Map<string, string>(); // access token → login
const pat = mint("github_pat_");
tokens.set(pat, "octo-pat");
const revoked: string[] = [];

function emulate(request: EmulatedRequest) {
  const { host, method, path } = request;
  if (host === "github.com" && path === "/login/oauth/authorize") {
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
  }
  if (host === "github.com" && method === "POST" && path === "/login/oauth/access_token") {
    const fields = form(request);
    if (fields.client_id !== flow.clientId || fields.client_secret !== flow.clientSecret) {
      return {
        body: { error: "incorrect_client_credentials", error_description: "The client_id and/or client_secret passed are incorrect." },
      };
    }
    if (!codes.delete(fields.code ?? "")) {
      // GitHub's documented answer to a wrong or used code: status 200, with `error`.
      return { body: { error: "bad_verification_code", error_description: "The code passed is incorrect or expired." } };
    }
    const accessToken = mint("gho_");
    tokens.set(accessToken, "octocat");
    const answer = { access_token: accessToken, scope: "repo,read:user", token_type: "bearer" };
    return /application\/json/.test(request.headers.accept ?? "")
      ? { body: answer }
      : { headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(answer).toString() };
  }
  if (host === "api.github.com") {
    if (!request.headers["user-agent"]) return { status: 403, body: { message: "Request forbidden by administrative rules." } };
    const app = `/applications/${flow.clientId}/`;
    if (method === "DELETE" && (path === `${app}token` || path === `${app}grant`)) {
      if (request.headers.authorization !== basicHeader(flow.clientId, flow.clientSecret))
        return { status: 401, body: { message: "Requires authentication" } };
      const body = /^application\/json/.test(request.headers["content-type"] ?? "") ? jsonBody(request) : {};
      const token = typeof body.access_token === "string" ? body.access_token : "";
      if (Object.keys(body).join() !== "access_token" || !token) return { status: 422, body: { message: "Validation Failed" } };
      const login = tokens.get(token);
      if (!login) return { status: 404, body: { message: "Not Found" } };
      // The grant is the app's authorization by that user: deleting it deletes every token it issued.
      const gone = path.endsWith("/grant") ? [...tokens].filter(([, owner]) => owner === login).map(([t]) => t) : [token];
      for (const t of gone) tokens.delete(t);
      revoked.push(...gone);
      return { status: 204 };
    }
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    const login = token ? tokens.get(token) : undefined;
    if (!login) return { status: 401, body: { message: "Bad credentials" } };
    if (path === "/user") return { body: { login, id: 1 } };
    if (path === "/repos/octocat/hello/issues") return { body: [{ number: 1, title: "Found a bug" }] };
  }
  return { status: 404, body: { message: "Not Found" } };
}

beforeAll(async () => {
  // GitHub's client ids hold a `.` (`Iv1.8a61f9b3a7aba766`, as the REST reference shows one).
  flow = await startFlow({
    provider: "github",
    hosts: ["github.com", "api.github.com"],
    emulate,
    clientId: `Iv1.${mint("").slice(0, 16)}`,
  });
});
afterAll(() => flow?.close());

describe("GitHub OAuth app, end to end", () => {
  let connectionId: string;
  let accessToken: string;

  it("connects: space-separated scopes, client secret in the body, identified by GET /user", async () => {
    const { authorizationUrl, connection } = await flow.connect();
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe("https://github.com/login/oauth/authorize");
    expect(authorizationUrl.searchParams.get("scope")).toBe("repo read:user");
    const exchange = flow.at("github.com", "/login/oauth/access_token").at(-1)!;
    expect(exchange.headers.authorization).toBeUndefined();
    expect(form(exchange)).toMatchObject({ grant_type: "authorization_code", client_id: flow.clientId, client_secret: flow.clientSecret });
    expect(connection.remoteUser).toBe("octocat");
    connectionId = connection.id;
    accessToken = [...tokens].find(([, login]) => login === "octocat")![0];
  });

  it("proxies with the bearer token and the headers GitHub requires", async () => {
    const res = await flow.call("POST", "/proxy", {
      toolkit: "github",
      method: "GET",
      url: "https://api.github.com/repos/octocat/hello/issues",
      connection_id: connectionId,
    });
    expect(res.json).toMatchObject({ successful: true, data: [{ number: 1, title: "Found a bug" }] });
    const sent = flow.at("api.github.com", "/repos/octocat/hello/issues").at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${accessToken}`);
    expect(sent.headers.accept).toBe("application/vnd.github+json");
    expect(sent.headers["x-github-api-version"]).toBe("2022-11-28");
    expect(sent.headers["user-agent"]).toBe("tools-proxy");
  });

  it("a reused code is GitHub's 200 with error: the callback fails and names the code", async () => {
    const started = await flow.call("POST", "/auth", { toolkit: "github" });
    const atProvider = await flow.consent(started.json.authorizationUrl);
    expect(atProvider.status).toBe(200);
    // Replay: a new authorization, answered with the code already used.
    const again = await flow.call("POST", "/auth", { toolkit: "github" });
    const state = new URL(again.json.authorizationUrl).searchParams.get("state")!;
    const replay = new URL(atProvider.callback);
    replay.searchParams.set("state", state);
    const res = await fetch(replay, { headers: { accept: "application/json" } });
    expect(await res.json()).toEqual({
      code: "invalid_request",
      error: "The provider refused the code exchange (bad_verification_code). Start the connection again.",
    });
    expect((await flow.call("GET", `/auth/${again.json.authorizationId}`)).json.status).toBe("failed");
  });

  it("deleting the connection deletes its own token at GitHub (Basic, JSON access_token); the user's other connection keeps working", async () => {
    const { connection: other } = await flow.connect({ label: "Second" });
    const otherToken = [...tokens.keys()].at(-1)!; // the token GitHub issued last: the second connection's
    expect((await flow.call("DELETE", `/connections/${connectionId}`)).status).toBe(204);
    const call = flow.at("api.github.com").at(-1)!;
    expect([call.method, call.path]).toEqual(["DELETE", `/applications/${flow.clientId}/token`]);
    expect(call.headers.authorization).toBe(basicHeader(flow.clientId, flow.clientSecret));
    expect(call.headers["content-type"]).toMatch(/^application\/json/);
    expect(jsonBody(call)).toEqual({ access_token: accessToken });
    expect(revoked).toEqual([accessToken]);
    expect(flow.logs.filter((line) => line.includes("revocation failed"))).toEqual([]);
    const res = await flow.call("POST", "/proxy", {
      toolkit: "github",
      method: "GET",
      url: "https://api.github.com/repos/octocat/hello/issues",
      connection_id: other.id,
    });
    expect(res.json).toMatchObject({ successful: true, data: [{ number: 1, title: "Found a bug" }] });
    expect(flow.at("api.github.com", "/repos/octocat/hello/issues").at(-1)!.headers.authorization).toBe(`Bearer ${otherToken}`);
  });

  it("a personal access token is the second mode: verified by GET /user, refused when GitHub refuses it", async () => {
    const bad = await flow.call("POST", "/auth", { toolkit: "github", mode: "bearer", credentials: { token: mint("github_pat_") } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe("GitHub refused these credentials (401 or 403). Check them and send them again.");
    const good = await flow.call("POST", "/auth", { toolkit: "github", credentials: { token: pat } });
    expect(good.status, good.text).toBe(201);
    expect(good.json.connection.remoteUser).toBe("octo-pat");
    const res = await flow.call("POST", "/proxy", {
      toolkit: "github",
      method: "GET",
      url: "https://api.github.com/user",
      connection_id: good.json.connection.id,
    });
    expect(res.json).toMatchObject({ successful: true, data: { login: "octo-pat" } });
  });

  it("search lists both modes; nothing secret reached an answer or a log line", async () => {
    const res = await flow.call("GET", "/search?keywords=github");
    expect(res.json.toolkits[0]).toMatchObject({
      slug: "github",
      authScheme: "oauth2",
      authSchemes: ["oauth2", "bearer", "appInstallation"],
      configured: true,
    });
    flow.assertNoLeaks([...tokens.keys(), flow.clientSecret, ...codes]);
  });
});
