import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmulatedRequest, type Flow, mint, startFlow } from "./emulation.js";

/*
 * Trello: the user's token and the deployer's application key, both in the query string. As its
 * documentation describes it:
 * - https://developer.atlassian.com/cloud/trello/guides/rest-api/authorization/ (a user token,
 *   granted to an application identified by its API key)
 * - https://developer.atlassian.com/cloud/trello/guides/rest-api/api-introduction (every request
 *   carries key={yourKey}&token={yourToken} in its query, e.g. GET
 *   https://api.trello.com/1/members/me/boards; the API key is meant to be public)
 * - https://gist.github.com/roachhd/a6c511f6280c236e7995 (a request without a valid key is a 401
 *   "invalid key"; Trello answers errors as plain text)
 * The catalog entry places the application's key (the deployer's, from TOOLS_PROXY_TRELLO_KEY or
 * the entry's `values.appKey`) as `key` and the user's token as `token` on every request. The
 * emulation's /1/echo answers its own URL: a worst-case upstream, to prove both are redacted.
 */

const APP_KEY = mint("k").slice(0, 32);
const TOKEN = mint("ATTA");

let flow: Flow;

function emulate(request: EmulatedRequest) {
  if (request.host !== "api.trello.com") return { status: 404, body: "" };
  if (request.query.get("key") !== APP_KEY) return { status: 401, headers: { "content-type": "text/plain" }, body: "invalid key" };
  if (request.query.get("token") !== TOKEN) return { status: 401, headers: { "content-type": "text/plain" }, body: "invalid token" };
  if (request.path === "/1/members/me") return { body: { id: "5abbe4b7ddc1b351ef961414", username: "bobtester" } };
  if (request.path === "/1/members/me/boards") return { body: [{ id: "4d5ea62fd76aa1136000000c", name: "Trello Development" }] };
  if (request.path === "/1/echo") return { headers: { "content-type": "text/plain" }, body: `you asked for ${request.target}` };
  return { status: 404, headers: { "content-type": "text/plain" }, body: "Cannot GET" };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "trello", hosts: ["api.trello.com"], emulate, overrides: { values: { appKey: APP_KEY } } });
});
afterAll(() => flow?.close());

describe("Trello (the user's token and the deployer's key in the query string), end to end", () => {
  let connectionId: string;

  it("connects with the token, verified at /members/me with key and token", async () => {
    const res = await flow.call("POST", "/auth", { toolkit: "trello", credentials: { apiKey: TOKEN } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.connection.remoteUser).toBe("bobtester");
    connectionId = res.json.connection.id;
    const asked = flow.at("api.trello.com", "/1/members/me").at(-1)!;
    expect(asked.target).toBe(`/1/members/me?key=${APP_KEY}&token=${TOKEN}`);
  });

  it("proxies with the key and the token set in the query (over any the caller wrote), no header", async () => {
    const res = await flow.call("POST", "/proxy", {
      toolkit: "trello",
      method: "GET",
      url: "https://api.trello.com/1/members/me/boards?key=guessed&token=guessed&fields=name",
      connection_id: connectionId,
    });
    expect(res.json).toMatchObject({ successful: true, data: [{ name: "Trello Development" }] });
    const sent = flow.at("api.trello.com", "/1/members/me/boards").at(-1)!;
    expect(sent.target).toBe(`/1/members/me/boards?key=${APP_KEY}&token=${TOKEN}&fields=name`);
    expect(sent.headers.authorization).toBeUndefined();
  });

  it("redacts the token and the key where the upstream echoes its URL", async () => {
    const res = await flow.call("POST", "/proxy", {
      toolkit: "trello",
      method: "GET",
      url: "https://api.trello.com/1/echo",
      connection_id: connectionId,
    });
    expect(res.json.successful, res.text).toBe(true);
    expect(res.text).not.toContain(TOKEN);
    expect(res.text).not.toContain(APP_KEY);
    flow.assertNoLeaks([TOKEN, APP_KEY]);
  });

  it("is not passed through, since answers would echo the query's secrets in their URLs", async () => {
    const res = await flow.passthrough("trello/1/members/me/boards", { headers: { "x-connection-id": connectionId } });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toContain("POST /proxy/tools/proxy");
  });

  it("connects on the connect page, which asks for the token only", async () => {
    const link = await flow.call("POST", "/auth", { toolkit: "trello" });
    const done = await flow.submitConnectPage(link.json.authorizationUrl, { apiKey: TOKEN });
    expect(done.page).not.toContain("appKey");
    expect(done.status, done.text).toBe(200);
    expect((await flow.call("GET", `/auth/${link.json.authorizationId}`)).json.status).toBe("connected");
    flow.assertNoLeaks([TOKEN, APP_KEY]);
  });
});

describe("Trello without the deployer's key", () => {
  it("answers POST /auth with a 400 naming TOOLS_PROXY_TRELLO_KEY, and lists the toolkit as not configured", async () => {
    const bare = await startFlow({ provider: "trello", hosts: ["api.trello.com"], emulate, overrides: { env: {} } });
    try {
      for (const body of [{ toolkit: "trello", credentials: { apiKey: TOKEN } }, { toolkit: "trello" }]) {
        const res = await bare.call("POST", "/auth", body);
        expect(res.status, res.text).toBe(400);
        expect(res.json.error).toContain("TOOLS_PROXY_TRELLO_KEY");
        expect(res.text).not.toContain(TOKEN);
      }
      const search = await bare.call("GET", "/search?keywords=trello");
      expect(search.json.toolkits.find((t: { slug: string }) => t.slug === "trello")).toMatchObject({ configured: false });
      expect(bare.requests).toEqual([]);
    } finally {
      await bare.close();
    }
  });

  it("reads the key from TOOLS_PROXY_TRELLO_KEY", async () => {
    const fromEnv = await startFlow({
      provider: "trello",
      hosts: ["api.trello.com"],
      emulate,
      overrides: { env: { TOOLS_PROXY_TRELLO_KEY: APP_KEY } },
    });
    try {
      const res = await fromEnv.call("POST", "/auth", { toolkit: "trello", credentials: { apiKey: TOKEN } });
      expect(res.status, res.text).toBe(201);
      expect(fromEnv.requests.at(-1)!.query.get("key")).toBe(APP_KEY);
    } finally {
      await fromEnv.close();
    }
  });
});
