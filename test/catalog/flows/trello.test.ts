import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmulatedRequest, type Flow, mint, startFlow } from "./emulation.js";

/*
 * Trello: the catalog's provider whose credential goes in a query parameter. As its documentation
 * describes it:
 * - https://developer.atlassian.com/cloud/trello/guides/rest-api/authorization/ (a user token,
 *   granted to an application identified by its API key)
 * - https://developer.atlassian.com/cloud/trello/guides/rest-api/api-introduction (every request
 *   carries key={yourKey}&token={yourToken} in its query, e.g. GET
 *   https://api.trello.com/1/members/me/boards; the API key is meant to be public)
 * - https://gist.github.com/roachhd/a6c511f6280c236e7995 (a request without a valid key is a 401
 *   "invalid key"; Trello answers errors as plain text)
 * The catalog entry places the user's token (the secret) in `token`; the application's public
 * key is not a connection credential, so the caller adds `key` to the URL itself.
 */

const APP_KEY = "a".repeat(32);
const TOKEN = mint("ATTA");

let flow: Flow;

function emulate(request: EmulatedRequest) {
  if (request.host !== "api.trello.com") return { status: 404, body: "" };
  if (request.query.get("key") !== APP_KEY) return { status: 401, headers: { "content-type": "text/plain" }, body: "invalid key" };
  if (request.query.get("token") !== TOKEN) return { status: 401, headers: { "content-type": "text/plain" }, body: "invalid token" };
  if (request.path === "/1/members/me/boards") return { body: [{ id: "4d5ea62fd76aa1136000000c", name: "Trello Development" }] };
  return { status: 404, headers: { "content-type": "text/plain" }, body: "Cannot GET" };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "trello", hosts: ["api.trello.com"], emulate });
});
afterAll(() => flow?.close());

describe("Trello (user token in the query string), end to end", () => {
  let connectionId: string;

  it("connects with the token at once", async () => {
    const res = await flow.call("POST", "/auth", { toolkit: "trello", credentials: { apiKey: TOKEN } });
    expect(res.status, res.text).toBe(201);
    connectionId = res.json.connection.id;
  });

  it("proxies with the token set in the query (over any the caller wrote), the caller's key kept, no header", async () => {
    const res = await flow.call("POST", "/proxy", {
      toolkit: "trello",
      method: "GET",
      url: `https://api.trello.com/1/members/me/boards?key=${APP_KEY}&token=guessed&fields=name`,
      connection_id: connectionId,
    });
    expect(res.json).toMatchObject({ successful: true, data: [{ name: "Trello Development" }] });
    const sent = flow.at("api.trello.com", "/1/members/me/boards").at(-1)!;
    expect(sent.query.getAll("token")).toEqual([TOKEN]);
    expect(sent.query.get("key")).toBe(APP_KEY);
    expect(sent.query.get("fields")).toBe("name");
    expect(sent.headers.authorization).toBeUndefined();
  });

  it("without the application's key Trello answers 401 invalid key, and the token never reaches the agent", async () => {
    const res = await flow.call("POST", "/proxy", {
      toolkit: "trello",
      method: "GET",
      url: "https://api.trello.com/1/members/me/boards",
      connection_id: connectionId,
    });
    expect(res.json).toMatchObject({ successful: false, status: 401, data: "invalid key" });
    expect(flow.at("api.trello.com", "/1/members/me/boards").at(-1)!.query.get("token")).toBe(TOKEN);
    flow.assertNoLeaks([TOKEN]);
  });
});
