/**
 * Ways to connect, described (CONTRACT §8): `GET /toolkit/{slug}` lists each mode with its id,
 * type, label and fields, and each input with its kind; `POST /auth { mode }` chooses by mode id,
 * so that a toolkit with two ways of one type (an API key in a header or in the query) connects
 * with either and each connection then sends its key the way it was made with, checked at a real
 * upstream over HTTP. Duplicate mode ids are refused where the toolkit is defined.
 */
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKey, bearer, defineJsonToolkit, defineToolkit, oauth2 } from "../../src/index.js";
import { createHarness, expectError, type Harness } from "../support/harness.js";
import { type RecordedRequest, startServer, type TestServer } from "../support/upstream.js";

const RUN = Math.random().toString(36).slice(2, 10);
const HEADER_KEY = `dual-header-key-${RUN}`;
const QUERY_KEY = `dual-query-key-${RUN}`;

let h: Harness;
let api: TestServer;
let key: string;

const answer = (request: RecordedRequest, res: ServerResponse) =>
  void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, url: request.url }));

function dual(origin: string) {
  return defineToolkit({
    slug: "dual",
    name: "Dual",
    description: "An API key in a header or in the query, a region, a note and a team.",
    baseUrl: `${origin}/{region}/v1`,
    headers: { "X-Note": "{note}", "X-Team": "{team}" },
    inputs: [
      { name: "region", label: "Region", type: "enum", values: ["us", "eu"], default: "us" },
      { name: "note", label: "Note", type: "text", maxLength: 40, optional: true },
      { name: "team", label: "Team", optional: true },
    ],
    auth: [
      apiKey({ in: "header", name: "x-key", label: "Key in a header" }),
      apiKey({ mode: "queryKey", in: "query", name: "api_key", label: "Key in the query" }),
    ],
    tools: [],
  });
}

beforeAll(async () => {
  api = await startServer(answer);
  h = await createHarness({ extraToolkits: () => [dual(api.origin)] });
  h.addSecret(HEADER_KEY);
  h.addSecret(QUERY_KEY);
  key = (await h.issueAgentKey(`agent-modes-${RUN}`)).key;
});
afterAll(async () => {
  h.assertNoLeaks();
  await Promise.all([h.close(), api.close()]);
});

const auth = (body: Record<string, unknown>) => h.call("POST", "/auth", { key, body: { toolkit: "dual", ...body } });
const proxy = (connection_id: string, path: string) =>
  h.call("POST", "/proxy", { key, body: { toolkit: "dual", method: "GET", url: `${api.origin}${path}`, connection_id } });

describe("GET /toolkit/{slug}", () => {
  it("lists each way with its mode id, type, label and fields, and each input with its kind", async () => {
    const res = await h.call("GET", "/toolkit/dual", { key });
    expect(res.status).toBe(200);
    const apiKeyField = { name: "apiKey", label: "API key", secret: true, optional: false };
    expect(res.json.authModes).toEqual([
      { mode: "apiKey", type: "apiKey", label: "Key in a header", in: "header", name: "x-key", fields: [apiKeyField] },
      { mode: "queryKey", type: "apiKey", label: "Key in the query", in: "query", name: "api_key", fields: [apiKeyField] },
    ]);
    expect(res.json.auth).toEqual(res.json.authModes[0]);
    expect(res.json.inputs).toEqual([
      { name: "region", label: "Region", type: "enum", values: ["us", "eu"], default: "us", optional: true, filled: false },
      { name: "note", label: "Note", type: "text", maxLength: 40, optional: true, filled: false },
      { name: "team", label: "Team", type: "label", optional: true, filled: false },
    ]);
  });

  it("a mode without a label gets one from its fields, and an input a provider fills says so", async () => {
    const res = await h.call("GET", "/toolkit/vault", { key });
    expect(res.json.authModes).toEqual([
      {
        mode: "basic",
        type: "basic",
        label: "Username and password",
        fields: [
          { name: "username", label: "Username", secret: false, optional: false },
          { name: "password", label: "Password", secret: true, optional: false },
        ],
      },
    ]);
  });
});

describe("POST /auth { mode }", () => {
  it("connects with the mode named, and each connection sends its key the way of its mode", async () => {
    const inHeader = await auth({ credentials: { apiKey: HEADER_KEY } });
    expect(inHeader.status, inHeader.text).toBe(201);
    const inQuery = await auth({ mode: "queryKey", credentials: { apiKey: QUERY_KEY }, config: { region: "eu" } });
    expect(inQuery.status, inQuery.text).toBe(201);
    // The default is applied and listed; an optional input without a default stays out.
    expect(inHeader.json.connection.config).toEqual({ region: "us" });
    expect(inQuery.json.connection.config).toEqual({ region: "eu" });

    expect((await proxy(inHeader.json.connection.id, "/us/v1/echo")).json.successful).toBe(true);
    expect(api.requests.at(-1)!.url).toBe("/us/v1/echo");
    expect(api.requests.at(-1)!.headers["x-key"]).toBe(HEADER_KEY);

    expect((await proxy(inQuery.json.connection.id, "/eu/v1/echo")).json.successful).toBe(true);
    expect(api.requests.at(-1)!.url).toBe(`/eu/v1/echo?api_key=${QUERY_KEY}`);
    expect(api.requests.at(-1)!.headers["x-key"]).toBeUndefined();
    // The region is the connection's: the other region's URL is outside its base URL.
    const outside = await proxy(inQuery.json.connection.id, "/us/v1/echo");
    expectError(outside, 400, "invalid_request");
    expect(api.requests.at(-1)!.url).toBe(`/eu/v1/echo?api_key=${QUERY_KEY}`);
  });

  it("refuses a mode the toolkit does not have, naming its modes; a type that is no mode id is no mode", async () => {
    expectError(
      await auth({ mode: "bearer", credentials: { token: "t" } }),
      400,
      "invalid_request",
      'Toolkit "dual" cannot connect with mode "bearer"; its modes: apiKey, queryKey.',
    );
    expectError(await auth({ mode: "bad mode!" }), 400, "invalid_request", /body\.mode/);
  });

  it("an enum value outside its values is a 400 naming the input and listing them", async () => {
    expectError(
      await auth({ credentials: { apiKey: HEADER_KEY }, config: { region: "mars" } }),
      400,
      "invalid_request",
      "config.region is not valid: it must be one of: us, eu (default us). Fix it and send the request again.",
    );
  });

  it("text inputs: kept as typed, refused with a control character, beyond their length, or beyond Latin-1 in a header", async () => {
    const made = await auth({ credentials: { apiKey: HEADER_KEY }, config: { note: "Team Blue, 2nd floor", team: "blue" } });
    expect(made.status, made.text).toBe(201);
    expect(made.json.connection.config).toEqual({ region: "us", note: "Team Blue, 2nd floor", team: "blue" });
    await proxy(made.json.connection.id, "/us/v1/echo");
    expect(api.requests.at(-1)!.headers["x-note"]).toBe("Team Blue, 2nd floor");
    expect(api.requests.at(-1)!.headers["x-team"]).toBe("blue");
    const count = api.requests.length;
    for (const [note, why] of [
      ["a\nb", "it contains a line break or a control character"],
      ["x".repeat(41), "1 to 40 characters"],
      ["東京", "it goes in an HTTP header, which cannot carry a character beyond Latin-1"],
      [" padded", "it starts or ends with whitespace"],
    ]) {
      const refused = await auth({ credentials: { apiKey: HEADER_KEY }, config: { note } });
      expectError(refused, 400, "invalid_request");
      expect(refused.json.error).toContain(`config.note is not valid: it must be text on one line`);
      expect(refused.json.error).toContain(why);
    }
    expect(api.requests.length).toBe(count);
  });

  it("a connection made before its toolkit declared a default goes on with the default", async () => {
    const id = await h.insertConnection({
      agentId: `agent-modes-${RUN}`,
      toolkit: "dual",
      credential: { type: "apiKey", apiKey: HEADER_KEY },
    });
    expect((await proxy(id, "/us/v1/echo")).json.successful).toBe(true);
    expect(api.requests.at(-1)!.url).toBe("/us/v1/echo");
  });
});

describe("mode ids where a toolkit is defined", () => {
  const base = { slug: "twice", name: "Twice", description: "d", tools: [] };
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(TypeError);
      return (error as Error).message;
    }
    throw new Error("expected a TypeError");
  };

  it("two ways of one type need ids of their own; ids are unique and well formed", () => {
    expect(refusal(() => defineToolkit({ ...base, auth: [bearer(), bearer({ label: "Other" })] }))).toBe(
      'Toolkit "twice": auth lists the mode "bearer" twice; give one a "mode" id of its own (e.g. "bearer2").',
    );
    expect(
      refusal(() => defineToolkit({ ...base, auth: [bearer({ mode: "pat" }), apiKey({ mode: "pat", in: "header", name: "k" })] })),
    ).toBe('Toolkit "twice": auth lists the mode "pat" twice; give each its own.');
    expect(refusal(() => defineToolkit({ ...base, auth: [bearer({ mode: "1st" })] }))).toBe(
      'Toolkit "twice": mode id "1st" is invalid: start with a letter, then letters, digits, "_" or "-" (at most 64).',
    );
    const oauth = () => oauth2({ authorizationUrl: "https://a.test/authorize", tokenUrl: "https://a.test/token", clientId: "c" });
    expect(refusal(() => defineToolkit({ ...base, auth: [oauth(), { ...oauth(), mode: "second" }] }))).toBe(
      'Toolkit "twice": auth lists two OAuth 2 modes; a toolkit has at most one.',
    );
    // Two bearer modes with their own ids are fine, and a mode id equal to its type changes nothing.
    const toolkit = defineToolkit({ ...base, auth: [bearer({ mode: "bearer" }), bearer({ mode: "userToken" })] });
    expect(toolkit.authModes.map((m) => m.mode)).toEqual(["bearer", "userToken"]);
  });

  it("a JSON toolkit file with a repeated mode id is refused with a sentence naming it", () => {
    const file = {
      slug: "twice",
      name: "Twice",
      description: "d",
      baseUrl: "https://twice.test",
      auth: [
        { type: "bearer", mode: "token" },
        { type: "apiKey", mode: "token", in: "header", name: "x-key" },
      ],
      tools: [],
    };
    expect(refusal(() => defineJsonToolkit(file))).toContain('auth lists the mode "token" twice; give each its own.');
    expect(refusal(() => defineJsonToolkit({ ...file, auth: [{ type: "bearer", mode: "no spaces" }] }))).toMatch(
      /auth\[0\]\.mode|auth\.mode/,
    );
  });
});
