import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmulatedRequest, type Flow, mint, startFlow } from "./emulation.js";

/*
 * Connection inputs that name part of a host and fill a header, and credentials placed in
 * several headers, as three providers document them:
 * - Algolia (https://www.algolia.com/doc/rest-api/search/): every request goes to
 *   https://{appId}-dsn.algolia.net/1 with the headers X-Algolia-Application-Id (the application
 *   ID) and X-Algolia-API-Key; GET /1/indexes lists the indices ({ items: [...] }), a 403
 *   { "message": "Invalid Application-ID or API key", "status": 403 } for a wrong key.
 * - Snowflake's SQL API (https://docs.snowflake.com/en/developer-guide/sql-api/reference,
 *   https://docs.snowflake.com/en/user-guide/programmatic-access-tokens): the account identifier
 *   names the host (https://{account}.snowflakecomputing.com, in the organization form
 *   myorg-myaccount; the catalog takes one DNS label, so not a locator with its region), and a
 *   programmatic access token is sent as Authorization: Bearer with
 *   X-Snowflake-Authorization-Token-Type: PROGRAMMATIC_ACCESS_TOKEN; POST /api/v2/statements runs
 *   a statement.
 * - Recall.ai (https://docs.recall.ai/reference/authentication, https://docs.recall.ai/docs/regions):
 *   the region names the host (https://{region}.recall.ai), the key is sent as
 *   Authorization: Token {key}.
 */

const ALGOLIA_APP = "ABCDE12345";
const ALGOLIA_HOST = "abcde12345-dsn.algolia.net";
const ALGOLIA_KEY = mint("alg");
const SNOWFLAKE_HOSTS = ["myorg-myaccount.snowflakecomputing.com", "acme-analytics.snowflakecomputing.com"];
const SNOWFLAKE_TOKEN = mint("pat");
const RECALL_HOSTS = ["us-west-2.recall.ai", "eu-central-1.recall.ai"];
const RECALL_KEY = mint("rc");

describe("Algolia (the application ID in the host and in a header), end to end", () => {
  let flow: Flow;
  beforeAll(async () => {
    flow = await startFlow({
      provider: "algolia",
      // The application ID as written (upper case) and as a host (lower case) are the same host.
      hosts: [ALGOLIA_HOST, `${ALGOLIA_APP}-dsn.algolia.net`],
      emulate: (request: EmulatedRequest) => {
        if (request.headers["x-algolia-application-id"] !== ALGOLIA_APP || request.headers["x-algolia-api-key"] !== ALGOLIA_KEY)
          return { status: 403, body: { message: "Invalid Application-ID or API key", status: 403 } };
        if (request.path === "/1/indexes") return { body: { items: [{ name: "products", entries: 3 }], nbPages: 1 } };
        return { status: 404, body: { message: "Not found", status: 404 } };
      },
    });
  });
  afterAll(() => flow?.close());

  it("connects with the application ID and key, verified by listing the indices, and proxies with both headers", async () => {
    const res = await flow.call("POST", "/auth", {
      toolkit: "algolia",
      config: { appId: ALGOLIA_APP },
      credentials: { apiKey: ALGOLIA_KEY },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.connection.config).toEqual({ appId: ALGOLIA_APP });
    const id = res.json.connection.id;
    const proxied = await flow.call("POST", "/proxy", {
      toolkit: "algolia",
      method: "GET",
      url: `https://${ALGOLIA_APP}-dsn.algolia.net/1/indexes`,
      connection_id: id,
    });
    expect(proxied.json, proxied.text).toMatchObject({ successful: true, data: { items: [{ name: "products" }] } });
    const sent = flow.requests.at(-1)!;
    expect(sent.path).toBe("/1/indexes");
    expect([sent.headers["x-algolia-application-id"], sent.headers["x-algolia-api-key"]]).toEqual([ALGOLIA_APP, ALGOLIA_KEY]);
    flow.assertNoLeaks([ALGOLIA_KEY]);
  });

  it("refuses a key the provider refuses, and an application ID that is not one, naming the input", async () => {
    const wrong = await flow.call("POST", "/auth", {
      toolkit: "algolia",
      config: { appId: ALGOLIA_APP },
      credentials: { apiKey: mint("bad") },
    });
    expect(wrong.status, wrong.text).not.toBe(201);
    const before = flow.requests.length;
    const res = await flow.call("POST", "/auth", {
      toolkit: "algolia",
      config: { appId: "evil.example.com#" },
      credentials: { apiKey: ALGOLIA_KEY },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toContain("appId");
    expect(res.text).not.toContain(ALGOLIA_KEY);
    expect(flow.requests.length).toBe(before);
  });
});

describe("Snowflake (the account in the host, a programmatic access token in two headers), end to end", () => {
  let flow: Flow;
  beforeAll(async () => {
    flow = await startFlow({
      provider: "snowflake",
      hosts: SNOWFLAKE_HOSTS,
      emulate: (request: EmulatedRequest) => {
        if (request.headers.authorization !== `Bearer ${SNOWFLAKE_TOKEN}`)
          return { status: 401, body: { code: "390303", message: "Invalid OAuth access token." } };
        if (request.headers["x-snowflake-authorization-token-type"] !== "PROGRAMMATIC_ACCESS_TOKEN")
          return { status: 401, body: { code: "390318", message: "Wrong token type." } };
        if (request.method === "POST" && request.path === "/api/v2/statements")
          return { body: { statementHandle: "01b2", data: [["1"]], resultSetMetaData: { numRows: 1 } } };
        return { status: 404, body: { message: "Not found" } };
      },
    });
  });
  afterAll(() => flow?.close());

  it.each(["myorg-myaccount", "acme-analytics"])("runs a statement on account %s with both headers", async (account) => {
    const res = await flow.call("POST", "/auth", { toolkit: "snowflake", config: { account }, credentials: { token: SNOWFLAKE_TOKEN } });
    expect(res.status, res.text).toBe(201);
    const proxied = await flow.call("POST", "/proxy", {
      toolkit: "snowflake",
      method: "POST",
      url: `https://${account}.snowflakecomputing.com/api/v2/statements`,
      body: { statement: "select 1", warehouse: "WH" },
      connection_id: res.json.connection.id,
    });
    expect(proxied.json, proxied.text).toMatchObject({ successful: true, data: { statementHandle: "01b2" } });
    const sent = flow.at(`${account}.snowflakecomputing.com`, "/api/v2/statements").at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${SNOWFLAKE_TOKEN}`);
    expect(sent.headers["x-snowflake-authorization-token-type"]).toBe("PROGRAMMATIC_ACCESS_TOKEN");
    expect(sent.headers["user-agent"]).toBe("tools-proxy");
    flow.assertNoLeaks([SNOWFLAKE_TOKEN]);
  });

  it.each(["evil.com/x", "xy12345.us-east-2.aws", "UPPER-case"])(
    "refuses the account %s, naming the input, sending nothing",
    async (account) => {
      const before = flow.requests.length;
      const res = await flow.call("POST", "/auth", { toolkit: "snowflake", config: { account }, credentials: { token: SNOWFLAKE_TOKEN } });
      expect(res.status, res.text).toBe(400);
      expect(res.json.error).toContain("account");
      expect(flow.requests.length).toBe(before);
    },
  );
});

describe("Recall.ai (the region in the host, the key after Token), end to end", () => {
  let flow: Flow;
  beforeAll(async () => {
    flow = await startFlow({
      provider: "recall-ai",
      hosts: RECALL_HOSTS,
      emulate: (request: EmulatedRequest) => {
        if (request.headers.authorization !== `Token ${RECALL_KEY}`) return { status: 401, body: { detail: "Invalid token." } };
        if (request.path === "/api/v1/bot/") return { body: { next: null, previous: null, results: [{ id: "b1" }] } };
        return { status: 404, body: { detail: "Not found." } };
      },
    });
  });
  afterAll(() => flow?.close());

  it("connects in the EU region and lists bots there with the key after Token", async () => {
    const res = await flow.call("POST", "/auth", {
      toolkit: "recall-ai",
      config: { region: "eu-central-1" },
      credentials: { apiKey: RECALL_KEY },
    });
    expect(res.status, res.text).toBe(201);
    const proxied = await flow.call("POST", "/proxy", {
      toolkit: "recall-ai",
      method: "GET",
      url: "https://eu-central-1.recall.ai/api/v1/bot/",
      connection_id: res.json.connection.id,
    });
    expect(proxied.json, proxied.text).toMatchObject({ successful: true, data: { results: [{ id: "b1" }] } });
    expect(flow.at("eu-central-1.recall.ai", "/api/v1/bot/").at(-1)!.headers.authorization).toBe(`Token ${RECALL_KEY}`);
    const other = await flow.call("POST", "/proxy", {
      toolkit: "recall-ai",
      method: "GET",
      url: "https://us-west-2.recall.ai/api/v1/bot/",
      connection_id: res.json.connection.id,
    });
    expect(other.status, other.text).toBe(400);
    expect(flow.at("us-west-2.recall.ai")).toEqual([]);
    flow.assertNoLeaks([RECALL_KEY]);
  });

  it("refuses a region the provider does not list, naming the input", async () => {
    const res = await flow.call("POST", "/auth", { toolkit: "recall-ai", config: { region: "evil" }, credentials: { apiKey: RECALL_KEY } });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toContain("region");
  });
});
