import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Toolkit } from "../../src/index.js";
import { importOpenApi } from "../../src/openapi/index.js";
import { defineJsonToolkit, type JsonToolkit } from "../../src/toolkits/json.js";
import { CALLBACK_URL, createOAuthHarness, type OAuthHarness } from "../support/oauth-harness.js";
import { type OidcServer, startOidcServer } from "../support/oidc-server.js";

/*
 * A Swagger 2.0 and an OpenAPI 3.1 document with oauth2 (authorization code) security, imported
 * into toolkits that complete the OAuth flow against the local OpenID provider
 * (test/support/oidc-server.ts: node-oidc-provider, with its own sign-in and consent pages), then
 * run one tool each with the token obtained, against the provider's protected `/api` (which
 * accepts only the tokens it issued and records the one it received).
 *
 * The documents are test/fixtures/openapi/; `{{ORIGIN}}` and `{{HOST}}` in them become the
 * provider's address once it listens.
 */

let as: OidcServer;
let h: OAuthHarness;
let key: string;
const imported: Record<string, JsonToolkit> = {};

function fixture(name: string): string {
  const text = readFileSync(new URL(`../fixtures/openapi/${name}`, import.meta.url), "utf8");
  return text.replaceAll("{{ORIGIN}}", as.origin).replaceAll("{{HOST}}", new URL(as.origin).host);
}

async function importFixture(name: string, slug: string): Promise<JsonToolkit> {
  const { toolkit } = await importOpenApi(fixture(name), { slug });
  return toolkit as unknown as JsonToolkit;
}

beforeAll(async () => {
  as = await startOidcServer({ redirectUris: [CALLBACK_URL] });
  imported.jotter = await importFixture("jotter-swagger2.yaml", "jotter");
  imported.notebook = await importFixture("notebook-openapi31.json", "notebook");
  const toolkits: Toolkit[] = Object.values(imported).map((document) =>
    defineJsonToolkit(document, {
      env: { [`${document.slug.toUpperCase()}_CLIENT_ID`]: as.clientId, [`${document.slug.toUpperCase()}_CLIENT_SECRET`]: as.clientSecret },
    }),
  );
  h = await createOAuthHarness({ as, toolkits });
  key = await h.issueAgentKey("agent-openapi");
});
afterAll(async () => {
  h?.assertNoLeaks();
  expect(as?.serverErrors ?? []).toEqual([]);
  await as?.close();
});

/** The tool of `toolkit` that sends `method` to `path` (the document's operation). */
function toolOf(toolkit: string, method: string, path: string): string {
  const tool = imported[toolkit]!.tools.find((t) => t.method === method && t.path === path);
  if (!tool) throw new Error(`no tool for ${method} ${path} in ${toolkit}`);
  return tool.slug;
}

describe.each([
  {
    toolkit: "jotter",
    version: "Swagger 2.0 (flow accessCode)",
    fixtureFile: "jotter-swagger2.yaml",
    // `collectionFormat: pipes` is OpenAPI 3's pipeDelimited: one value, `|` written %7C.
    list: { arguments: { tags: ["work", "urgent"], count: 5 }, target: "/api/notes?count=5&tags=work%7Curgent" },
  },
  {
    toolkit: "notebook",
    version: "OpenAPI 3.1 (flows.authorizationCode)",
    fixtureFile: "notebook-openapi31.json",
    // `style: form, explode: false`: one value, the items separated by commas.
    list: { arguments: { tag: ["work", "urgent"] }, target: "/api/notes?tag=work,urgent" },
  },
])("$version", ({ toolkit, fixtureFile, list }) => {
  let connectionId: string;

  it("becomes an oauth2 toolkit with the document's URLs and scopes", () => {
    expect(fixture(fixtureFile)).toContain(as.origin);
    const [scheme] = [imported[toolkit]!.auth].flat() as Array<Record<string, unknown>>;
    expect(scheme).toMatchObject({
      type: "oauth2",
      authorizationUrl: `${as.origin}/auth`,
      tokenUrl: `${as.origin}/token`,
    });
    expect([...(scheme!.scopes as string[])].sort()).toEqual(["notes:read", "notes:write"]);
    expect([imported[toolkit]!.baseUrl].flat()).toEqual([as.apiBaseUrl]);
  });

  it("completes the authorization code flow at the provider", async () => {
    const tokenRequests = as.tokenRequests.length;
    const { started, status, connectionId: id } = await h.connect(key, { toolkit }, { login: `${toolkit}-user` });
    const url = new URL(started.authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(as.endpoints.authorization);
    expect(url.searchParams.get("scope")!.split(" ").sort()).toEqual(["notes:read", "notes:write"]);
    expect(status.status).toBe("connected");
    expect(as.tokenRequests.slice(tokenRequests).map((r) => [r.grantType, r.status])).toEqual([["authorization_code", 200]]);
    connectionId = id;
  });

  it("runs a tool with the provider's token in the Authorization header", async () => {
    const apiRequests = as.apiRequests.length;
    const res = await h.call("POST", "/execute", {
      key,
      body: { tool: toolOf(toolkit, "POST", "/notes"), arguments: { title: "Groceries", body: "Milk" } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ successful: true, data: { sub: `${toolkit}-user`, note: { title: "Groceries", body: "Milk" } } });
    const credential = await h.credentialOf(connectionId);
    const [received] = as.apiRequests.slice(apiRequests);
    expect(received).toMatchObject({ method: "POST", path: "/api/notes", status: 201 });
    // The API checked the token against the provider's own store (a 201, not a 401) and recorded it.
    expect(received!.accessToken).toBe(credential.accessToken);
  });

  it("lists notes with the same token: an array query parameter in the document's style", async () => {
    const apiRequests = as.apiRequests.length;
    const res = await h.call("POST", "/execute", { key, body: { tool: toolOf(toolkit, "GET", "/notes"), arguments: list.arguments } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ successful: true, data: { sub: `${toolkit}-user` } });
    const [received] = as.apiRequests.slice(apiRequests);
    expect(received).toMatchObject({ method: "GET", path: list.target, status: 200 });
    expect(received!.accessToken).toBe((await h.credentialOf(connectionId)).accessToken);
  });
});
