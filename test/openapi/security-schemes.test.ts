/**
 * How an OpenAPI document's security becomes a toolkit's ways to connect
 * (src/openapi/security.ts): requirements as written, the client's environment variables, where
 * API keys go, and each scheme type mapped or left out with a warning that says why.
 */
import { describe, expect, it } from "vitest";
import type { Document } from "../../src/openapi/load.js";
import { authOf, clientVariables, credentialPlaces, requirementsOf } from "../../src/openapi/security.js";

const BASE = "https://api.example.com/v1";

function map(schemes: Record<string, unknown>, requirements: Record<string, string[]>[] = [], baseUrl = BASE) {
  const warnings: string[] = [];
  const result = authOf({ components: { securitySchemes: schemes } } as unknown as Document, requirements, "acme", baseUrl, (m) =>
    warnings.push(m),
  );
  return { ...result, warnings };
}

const code = (flow: Record<string, unknown>) => ({ type: "oauth2", flows: { authorizationCode: flow } });

describe("requirementsOf", () => {
  it("is undefined for anything but a list", () => {
    expect(requirementsOf(undefined)).toBeUndefined();
    expect(requirementsOf({ a: [] })).toBeUndefined();
  });

  it("keeps each requirement object, its scopes that are text, and [] for scopes that are no list", () => {
    expect(requirementsOf([{ a: ["read", 1, "write"] }, "x", null, [1], { b: "read", c: [] }, {}])).toEqual([
      { a: ["read", "write"] },
      { b: [], c: [] },
      {},
    ]);
  });
});

describe("clientVariables", () => {
  it("upper-cases the slug and turns each run of other characters into one _", () => {
    expect(clientVariables("my-api.v2")).toEqual({ id: "MY_API_V2_CLIENT_ID", secret: "MY_API_V2_CLIENT_SECRET" });
    expect(clientVariables("a--b")).toEqual({ id: "A_B_CLIENT_ID", secret: "A_B_CLIENT_SECRET" });
  });
});

describe("credentialPlaces", () => {
  it("lists where API keys go, lower-cased, and nothing else", () => {
    const document = {
      components: {
        securitySchemes: {
          key: { type: "apiKey", in: "header", name: "X-API-Key" },
          q: { type: "apiKey", in: "query", name: "Key" },
          noName: { type: "apiKey", in: "header" },
          bearer: { type: "http", scheme: "bearer", name: "Authorization" },
          junk: "text",
          empty: null,
        },
      },
    } as unknown as Document;
    expect(credentialPlaces(document)).toEqual(new Set(["header:x-api-key", "query:key"]));
  });

  it("is empty without components or schemes, or when they are no objects", () => {
    for (const document of [{}, { components: [] }, { components: { securitySchemes: [] } }, { components: { securitySchemes: "x" } }]) {
      expect(credentialPlaces(document as unknown as Document)).toEqual(new Set());
    }
  });
});

describe("authOf", () => {
  it("maps an API key in a header or the query, bearer and basic in any case", () => {
    expect(map({ k: { type: "apiKey", in: "header", name: "x-key" } }).auth).toEqual([{ type: "apiKey", in: "header", name: "x-key" }]);
    expect(map({ k: { type: "apiKey", in: "query", name: "key" } }).auth).toEqual([{ type: "apiKey", in: "query", name: "key" }]);
    expect(map({ b: { type: "http", scheme: "Bearer" } }).auth).toEqual([{ type: "bearer" }]);
    expect(map({ b: { type: "http", scheme: "BASIC" } }).auth).toEqual([{ type: "basic" }]);
  });

  it("leaves out an API key in a cookie or without a name, and other HTTP schemes, saying why", () => {
    const cookie = map({ k: { type: "apiKey", in: "cookie", name: "sid" } });
    expect(cookie.auth).toEqual([{ type: "none" }]);
    expect(cookie.warnings).toEqual([
      'the security scheme "k" is left out: an API key in a cookie is not supported (only in a header or the query).',
    ]);
    expect(map({ k: { type: "apiKey", in: "header", name: "" } }).auth).toEqual([{ type: "none" }]);
    expect(map({ k: { type: "apiKey", in: "query", name: 5 } }).auth).toEqual([{ type: "none" }]);
    expect(map({ d: { type: "http", scheme: "Digest" } }).warnings).toEqual([
      'the security scheme "d" is left out: HTTP "digest" authentication is not supported (only bearer and basic).',
    ]);
    expect(map({ o: { type: "openIdConnect" } }).warnings).toEqual([
      'the security scheme "o" is left out: the type "openIdConnect" is not supported.',
    ]);
  });

  it("maps the authorization code flow with the client as environment references and the requirements' scopes", () => {
    const result = map(
      {
        o: code({
          authorizationUrl: "https://auth.example.com/authorize",
          tokenUrl: "/oauth/token",
          refreshUrl: "https://auth.example.com/refresh",
        }),
      },
      [{ o: ["read", "write"] }, { o: ["read", "admin"] }],
    );
    expect(result).toEqual({
      auth: [
        {
          type: "oauth2",
          authorizationUrl: "https://auth.example.com/authorize",
          tokenUrl: "https://api.example.com/oauth/token",
          refreshUrl: "https://auth.example.com/refresh",
          clientId: "${ACME_CLIENT_ID}",
          clientSecret: "${ACME_CLIENT_SECRET}",
          scopes: ["read", "write", "admin"],
        },
      ],
      oauthScheme: "o",
      warnings: [],
    });
  });

  it("takes an OAuth scheme's scopes only from the requirements that name it", () => {
    const result = map(
      {
        o: code({ authorizationUrl: "https://a.example.com/a", tokenUrl: "https://a.example.com/t" }),
        k: { type: "http", scheme: "bearer" },
      },
      [{ k: [] }, { o: ["read"] }],
    );
    expect(result.auth).toContainEqual(expect.objectContaining({ type: "oauth2", scopes: ["read"] }));
  });

  it("names no OAuth scheme when none is kept", () => {
    expect(map({ b: { type: "http", scheme: "bearer" } })).toStrictEqual({ auth: [{ type: "bearer" }], warnings: [] });
  });

  it("leaves out a refresh URL that is the token URL, or not a URL", () => {
    for (const refreshUrl of ["https://auth.example.com/token", "ftp://x.example.com/r", undefined]) {
      const [scheme] = map({
        o: code({ authorizationUrl: "https://auth.example.com/a", tokenUrl: "https://auth.example.com/token", refreshUrl }),
      }).auth;
      expect(scheme).not.toHaveProperty("refreshUrl");
    }
  });

  it("leaves out OAuth without the code flow, or with URLs that are no http(s) URL", () => {
    const noFlow = map({ o: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "https://a.example.com/t" } } } });
    expect(noFlow).toEqual({
      auth: [{ type: "none" }],
      warnings: ['the security scheme "o" is left out: only the OAuth 2 authorization code flow is supported.'],
    });
    expect(map({ o: { type: "oauth2", flows: "x" } }).auth).toEqual([{ type: "none" }]);
    expect(map({ o: { type: "oauth2", flows: { authorizationCode: "x" } } }).warnings).toEqual([
      'the security scheme "o" is left out: only the OAuth 2 authorization code flow is supported.',
    ]);
    const bad = [
      { authorizationUrl: "", tokenUrl: "https://a.example.com/t" },
      { authorizationUrl: "https://a.example.com/a", tokenUrl: 7 },
      { authorizationUrl: "https://{tenant}.example.com/a", tokenUrl: "https://a.example.com/t" },
      { authorizationUrl: "ftp://a.example.com/a", tokenUrl: "https://a.example.com/t" },
      { authorizationUrl: "xhttps://a.example.com/a", tokenUrl: "https://a.example.com/t" },
      { authorizationUrl: "https://a.example.com/a", tokenUrl: "http://[::1" },
    ];
    for (const flow of bad) {
      expect(map({ o: code(flow) }).warnings, JSON.stringify(flow)).toEqual([
        'the security scheme "o" is left out: its authorization or token URL is not a valid URL.',
      ]);
    }
  });

  it("resolves a relative URL against the base URL, but not against a host that is a placeholder", () => {
    const [scheme] = map({ o: code({ authorizationUrl: "authorize", tokenUrl: "/token" }) }, [], "http://api.example.com/v1/").auth;
    expect(scheme).toMatchObject({ authorizationUrl: "http://api.example.com/v1/authorize", tokenUrl: "http://api.example.com/token" });
    const templated = map({ o: code({ authorizationUrl: "/a", tokenUrl: "/t" }) }, [], "https://{region}.example.com");
    expect(templated.auth).toEqual([{ type: "none" }]);
    const pathTemplated = map({ o: code({ authorizationUrl: "/a", tokenUrl: "/t" }) }, [], "https://api.example.com/{version}");
    expect(pathTemplated.auth[0]).toMatchObject({ authorizationUrl: "https://api.example.com/a" });
  });

  it("takes only the schemes the requirements name, in their order; every scheme when none is named", () => {
    const schemes = {
      basic: { type: "http", scheme: "basic" },
      key: { type: "apiKey", in: "header", name: "x-key" },
      bearer: { type: "http", scheme: "bearer" },
    };
    expect(map(schemes, [{ bearer: [] }, { key: [] }]).auth.map((a) => a.type)).toEqual(["bearer", "apiKey"]);
    expect(map(schemes).auth.map((a) => a.type)).toEqual(["basic", "apiKey", "bearer"]);
    expect(map(schemes, [{}]).auth.map((a) => a.type)).toEqual(["basic", "apiKey", "bearer"]);
  });

  it("skips a named scheme that is not defined, and warns about requirements that need two schemes together", () => {
    const result = map({ key: { type: "apiKey", in: "header", name: "x-key" }, junk: 5 }, [{ missing: [], key: [] }, { junk: [] }]);
    expect(result.auth).toEqual([{ type: "apiKey", in: "header", name: "x-key" }]);
    expect(result.warnings).toEqual(["a requirement needs missing and key together; the toolkit offers each way to connect alone."]);
  });

  it("keeps the first scheme of each type, warning about the second", () => {
    const result = map({
      a: { type: "http", scheme: "bearer" },
      b: { type: "http", scheme: "bearer" },
      o1: code({ authorizationUrl: "https://a.example.com/a", tokenUrl: "https://a.example.com/t" }),
      o2: code({ authorizationUrl: "https://b.example.com/a", tokenUrl: "https://b.example.com/t" }),
    });
    expect(result.auth.map((a) => a.type)).toEqual(["bearer", "oauth2"]);
    expect(result.oauthScheme).toBe("o1");
    expect(result.warnings).toEqual([
      'the security scheme "b" is a second bearer scheme; the toolkit keeps the first.',
      'the security scheme "o2" is a second oauth2 scheme; the toolkit keeps the first.',
    ]);
  });

  it("is none, without an OAuth scheme name, for a document without components or schemes", () => {
    for (const document of [{}, { components: "x" }, { components: { securitySchemes: [] } }]) {
      const result = authOf(document as unknown as Document, [], "acme", BASE, () => {});
      expect(result).toStrictEqual({ auth: [{ type: "none" }] });
    }
  });
});
