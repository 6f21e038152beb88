import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmulatedRequest, type Flow, mint, startFlow } from "./emulation.js";

/*
 * Brave Search API, as its documentation describes it:
 * - https://api-dashboard.search.brave.com/documentation/quickstart (an API key made in the
 *   dashboard; requests to https://api.search.brave.com/res/v1/web/search?q=... carry it in the
 *   X-Subscription-Token header, with Accept: application/json)
 * Brave has no who-am-I request, so a key is stored as given and first checked by a search. The
 * emulation refuses a request without a known key with 401 and Brave's error object.
 */

const KEY = mint("BSA");

let flow: Flow;

function emulate(request: EmulatedRequest) {
  if (request.host !== "api.search.brave.com") return { status: 404, body: "" };
  if (request.headers["x-subscription-token"] !== KEY) {
    return {
      status: 401,
      body: {
        type: "ErrorResponse",
        error: { code: "SUBSCRIPTION_TOKEN_INVALID", detail: "The provided subscription token is invalid.", status: 401 },
      },
    };
  }
  if (request.path === "/res/v1/web/search") {
    return {
      body: {
        type: "search",
        query: { original: request.query.get("q") },
        web: { results: [{ title: "Brave", url: "https://brave.com/" }] },
      },
    };
  }
  return { status: 404, body: { type: "ErrorResponse", error: { code: "NOT_FOUND", status: 404 } } };
}

beforeAll(async () => {
  flow = await startFlow({ provider: "brave-search", hosts: ["api.search.brave.com"], emulate });
});
afterAll(() => flow?.close());

describe("Brave Search (API key in X-Subscription-Token), end to end", () => {
  let connectionId: string;

  it("connects with the key at once: no lookup reaches Brave", async () => {
    const before = flow.requests.length;
    const res = await flow.call("POST", "/auth", { toolkit: "brave-search", credentials: { apiKey: KEY } });
    expect(res.status, res.text).toBe(201);
    expect(flow.requests.length).toBe(before);
    connectionId = res.json.connection.id;
  });

  it("proxies with the key in X-Subscription-Token only, over any the caller sent", async () => {
    const res = await flow.call("POST", "/proxy", {
      toolkit: "brave-search",
      method: "GET",
      url: "https://api.search.brave.com/res/v1/web/search?q=tools+proxy",
      headers: { "X-Subscription-Token": "the-agent-guessed-one", Authorization: "Bearer nope" },
      connection_id: connectionId,
    });
    expect(res.json).toMatchObject({ successful: true, data: { query: { original: "tools proxy" } } });
    const sent = flow.at("api.search.brave.com", "/res/v1/web/search").at(-1)!;
    expect(sent.headers["x-subscription-token"]).toBe(KEY);
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.headers.accept).toBe("application/json");
    expect(sent.query.has("token")).toBe(false);
  });

  it("a key Brave refuses is stored (nothing can check it first) and its calls come back as Brave's 401", async () => {
    const bad = await flow.call("POST", "/auth", { toolkit: "brave-search", credentials: { apiKey: mint("BSA") } });
    expect(bad.status).toBe(201);
    const res = await flow.call("POST", "/proxy", {
      toolkit: "brave-search",
      method: "GET",
      url: "https://api.search.brave.com/res/v1/web/search?q=x",
      connection_id: bad.json.connection.id,
    });
    expect(res.json).toMatchObject({
      successful: false,
      status: 401,
      error: "Upstream answered 401 Unauthorized.",
      data: { error: { code: "SUBSCRIPTION_TOKEN_INVALID" } },
    });
    flow.assertNoLeaks([KEY]);
  });
});
