import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize, type EmulatedRequest, type Flow, form, mint, startFlow } from "./emulation.js";

/*
 * Wrike: the token answer names the host of the account's data centre, and every API request goes
 * there. As its documentation describes it:
 * - https://developers.wrike.com/oauth-20-authorization/ (authorize at
 *   https://login.wrike.com/oauth2/authorize/v4; POST https://login.wrike.com/oauth2/token with
 *   client_id, client_secret, grant_type=authorization_code and code in the form; the answer holds
 *   access_token, refresh_token, token_type, expires_in and host, e.g. www.wrike.com, and requests
 *   then go to https://<host>/api/v4, with Authorization: bearer <access_token>)
 * - https://developers.wrike.com/api/v4/contacts/ (GET /contacts?me=true answers the current user
 *   as data[0])
 */

const HOSTS = ["login.wrike.com", "www.wrike.com", "app-eu.wrike.com"];
const tokens = new Map<string, string>(); // access token → the host it belongs to
const codes = new Set<string>();
/** The host the next token answer names: tests change it. */
let answerHost = "app-eu.wrike.com";

let flow: Flow;

function emulate(request: EmulatedRequest) {
  const { host, path } = request;
  if (path === "/oauth2/authorize/v4" && host === "login.wrike.com") {
    return authorize(request, { clientId: flow.clientId, redirectUri: flow.callbackUrl }, (code) => codes.add(code));
  }
  if (path === "/oauth2/token" && host === "login.wrike.com") {
    const fields = form(request);
    if (fields.client_id !== flow.clientId || fields.client_secret !== flow.clientSecret)
      return { status: 401, body: { error: "invalid_client" } };
    if (!codes.delete(fields.code ?? "")) return { status: 400, body: { error: "invalid_grant" } };
    const accessToken = mint("wrk");
    tokens.set(accessToken, answerHost);
    return { body: { access_token: accessToken, refresh_token: mint("wrr"), token_type: "bearer", expires_in: 3600, host: answerHost } };
  }
  const token = /^bearer (.+)$/i.exec(request.headers.authorization ?? "")?.[1] ?? "";
  if (tokens.get(token) !== host)
    return { status: 401, body: { errorDescription: "Access token is unknown or invalid", error: "not_authorized" } };
  if (path === "/api/v4/contacts") return { body: { kind: "contacts", data: [{ id: "KUAAAAHK", firstName: "Ada", me: true }] } };
  if (path === "/api/v4/tasks") return { body: { kind: "tasks", data: [{ id: "IEAAAAQK", title: "Plan" }] } };
  return { status: 404, body: { error: "not_found" } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "wrike", hosts: HOSTS, emulate });
});
afterAll(() => flow?.close());

describe("Wrike (the host named by the token answer), end to end", () => {
  let connectionId: string;

  it("connects: the answer's host is kept, the account looked up there", async () => {
    const { connection } = await flow.connect();
    expect(connection.config).toEqual({ host: "app-eu.wrike.com" });
    expect(connection.remoteUser).toBe("KUAAAAHK");
    expect(flow.at("app-eu.wrike.com", "/api/v4/contacts").at(-1)!.target).toBe("/api/v4/contacts?me=true");
    connectionId = connection.id;
  });

  it("proxies and passes through to that host only", async () => {
    const res = await flow.call("POST", "/proxy", {
      toolkit: "wrike",
      method: "GET",
      url: "https://app-eu.wrike.com/api/v4/tasks",
      connection_id: connectionId,
    });
    expect(res.json).toMatchObject({ successful: true, data: { data: [{ title: "Plan" }] } });
    const passed = await flow.passthrough("wrike/tasks", { headers: { "x-connection-id": connectionId } });
    expect(passed.status, passed.text).toBe(200);
    expect(flow.at("app-eu.wrike.com", "/api/v4/tasks")).toHaveLength(2);
    const before = flow.requests.length;
    const elsewhere = await flow.call("POST", "/proxy", {
      toolkit: "wrike",
      method: "GET",
      url: "https://www.wrike.com/api/v4/tasks",
      connection_id: connectionId,
    });
    expect(elsewhere.status).toBe(400);
    expect(flow.requests.length).toBe(before);
  });

  it.each(["evil.example.com", "app-eu.wrike.com.evil.example", "wrike.com"])(
    "fails the connection when the token answer names %s, with a sentence, and asks that host nothing",
    async (host) => {
      answerHost = host;
      try {
        const started = await flow.call("POST", "/auth", { toolkit: "wrike" });
        const done = await flow.consent(started.json.authorizationUrl);
        expect(done.status).toBe(400);
        expect(JSON.parse(done.text).error).toBe(
          `The provider named "${host}" as the wrike data centre host, which is not one of the hosts Wrike allows ` +
            "(www.wrike.com, app-eu.wrike.com, app-us2.wrike.com). No connection was made.",
        );
        expect((await flow.call("GET", `/auth/${started.json.authorizationId}`)).json.status).toBe("failed");
        expect(flow.requests.filter((r) => r.host === host)).toEqual([]);
      } finally {
        answerHost = "app-eu.wrike.com";
      }
    },
  );

  it("nothing secret reached an answer or a log line", () => {
    flow.assertNoLeaks([...tokens.keys(), flow.clientSecret]);
  });
});
