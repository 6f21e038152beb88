import { describe, expect, it } from "vitest";
import {
  catalogEntry,
  catalogToolkit,
  catalogToolkits,
  clientVariables,
  loadToolkitFile,
  mcpProviders,
  mcpToolkitSlug,
  providersByPopularity,
} from "../../src/catalog/index.js";
import type { OAuth2Scheme } from "../../src/credentials/auth-schemes.js";
import { createToolsHandler, issueApiKey, memoryStore, parseToolkitFile } from "../../src/index.js";
import { oauthMode } from "../../src/toolkits/define.js";
import { expectError } from "../support/harness.js";

/** CONTRACT §7: catalog providers in toolkit files, their overrides, and serve --catalog's environment variables. */

const oauth = (slug: string, toolkits = catalogToolkits({ env: {} })) => oauthMode(toolkits.find((t) => t.slug === slug)!)!;

describe("catalogToolkits (serve --catalog)", () => {
  it("serves every provider, each OAuth client from TOOLS_PROXY_<SLUG>_CLIENT_ID and _SECRET", () => {
    const toolkits = catalogToolkits({
      env: { TOOLS_PROXY_GITHUB_CLIENT_ID: "gh-id", TOOLS_PROXY_GITHUB_CLIENT_SECRET: "gh-secret", TOOLS_PROXY_ZOHO_CRM_CLIENT_ID: "z" },
    });
    // The providers most connected first, then the MCP servers of those that list one.
    expect(toolkits.map((t) => t.slug)).toEqual([
      ...providersByPopularity.map((p) => p.slug),
      ...mcpProviders.map((p) => mcpToolkitSlug(p.slug)),
    ]);
    expect(toolkits.length).toBeGreaterThanOrEqual(50);
    expect(oauth("github", toolkits)).toMatchObject({ clientId: "gh-id", clientSecret: "gh-secret" });
    expect(oauth("github", toolkits).unconfigured).toBeUndefined();
    // The slug's "-" becomes "_".
    expect(oauth("zoho-crm", toolkits).clientId).toBe("z");
    expect(clientVariables("google-drive")).toEqual({
      id: "TOOLS_PROXY_GOOGLE_DRIVE_CLIENT_ID",
      secret: "TOOLS_PROXY_GOOGLE_DRIVE_CLIENT_SECRET",
    });
  });

  it("a provider sharing a client reads the shared one's variables, unless its own are set", () => {
    const env = { TOOLS_PROXY_GOOGLE_CLIENT_ID: "g-id", TOOLS_PROXY_GOOGLE_CLIENT_SECRET: "g-secret" };
    expect(oauth("gmail", catalogToolkits({ env }))).toMatchObject({ clientId: "g-id", clientSecret: "g-secret" });
    const own = { ...env, TOOLS_PROXY_GMAIL_CLIENT_ID: "m-id", TOOLS_PROXY_GMAIL_CLIENT_SECRET: "m-secret" };
    expect(oauth("gmail", catalogToolkits({ env: own }))).toMatchObject({ clientId: "m-id", clientSecret: "m-secret" });
    expect(oauth("google-drive", catalogToolkits({ env: own }))).toMatchObject({ clientId: "g-id", clientSecret: "g-secret" });
  });

  it("Zoho CRM shares the Zoho client of Books, Desk, Inventory and Mail, its own variables first", () => {
    const env = { TOOLS_PROXY_ZOHO_CLIENT_ID: "zoho-id", TOOLS_PROXY_ZOHO_CLIENT_SECRET: "zoho-secret" };
    for (const slug of ["zoho-crm", "zoho-books", "zoho-mail"]) {
      expect(oauth(slug, catalogToolkits({ env }))).toMatchObject({ clientId: "zoho-id", clientSecret: "zoho-secret" });
    }
    const own = { ...env, TOOLS_PROXY_ZOHO_CRM_CLIENT_ID: "crm-id", TOOLS_PROXY_ZOHO_CRM_CLIENT_SECRET: "crm-secret" };
    expect(oauth("zoho-crm", catalogToolkits({ env: own }))).toMatchObject({ clientId: "crm-id", clientSecret: "crm-secret" });
    expect(oauth("zoho-books", catalogToolkits({ env: own }))).toMatchObject({ clientId: "zoho-id" });
    expect(oauth("zoho-crm").unconfigured).toMatch(/TOOLS_PROXY_ZOHO_CLIENT_ID and TOOLS_PROXY_ZOHO_CLIENT_SECRET/);
  });

  it("without a client, an OAuth provider is listed as not configured, with a sentence naming the variables", () => {
    expect(oauth("slack").unconfigured).toBe(
      "Slack is not configured on this server: its operator must set TOOLS_PROXY_SLACK_CLIENT_ID and " +
        "TOOLS_PROXY_SLACK_CLIENT_SECRET (the OAuth client's id and secret), then restart it.",
    );
    expect(oauth("gmail").unconfigured).toMatch(/TOOLS_PROXY_GOOGLE_CLIENT_ID and TOOLS_PROXY_GOOGLE_CLIENT_SECRET/);
  });
});

describe("search and POST /auth for a provider that is not configured", () => {
  it("search says configured: false; POST /auth with OAuth is a 400 naming the variables, and a mode it lacks is a 400 listing its modes", async () => {
    const store = memoryStore();
    const tools = createToolsHandler({
      store,
      publicUrl: "https://app.test",
      toolkits: [catalogToolkit("github"), catalogToolkit("brave-search")],
    });
    const { key } = await issueApiKey(store, { workspaceId: "ws1", agentId: "agent-1" });
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await tools(
        new Request(`https://app.test/proxy/tools${path}`, {
          method,
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
      const text = await response.text();
      return { status: response.status, text, json: JSON.parse(text), headers: response.headers, bytes: new Uint8Array() };
    };
    const search = await call("GET", "/search");
    const bySlug = Object.fromEntries(search.json.toolkits.map((t: { slug: string }) => [t.slug, t]));
    expect(bySlug.github).toMatchObject({ configured: false, authSchemes: ["oauth2", "bearer", "appInstallation"] });
    expect(bySlug["brave-search"]).toMatchObject({ configured: true, authSchemes: ["apiKey"] });
    expectError(
      await call("POST", "/auth", { toolkit: "github" }),
      400,
      "invalid_request",
      /^GitHub is not configured on this server: its operator must set TOOLS_PROXY_GITHUB_CLIENT_ID and TOOLS_PROXY_GITHUB_CLIENT_SECRET/,
    );
    expectError(
      await call("POST", "/auth", { toolkit: "github", mode: "apiKey" }),
      400,
      "invalid_request",
      'Toolkit "github" cannot connect with mode "apiKey"; its modes: oauth2, bearer, appInstallation.',
    );
  });
});

describe('{ "provider": ... } entries of toolkit files', () => {
  it("builds the catalog provider with the deployer's client and overrides", () => {
    const text = JSON.stringify([
      { provider: "github", clientId: "${GH_ID}", clientSecret: "${GH_SECRET}" },
      {
        provider: "gitlab",
        clientId: "gl",
        baseUrl: "https://gitlab.example.com/api/v4",
        authorizationUrl: "https://gitlab.example.com/oauth/authorize",
        tokenUrl: "https://gitlab.example.com/oauth/token",
        scopes: ["read_api"],
      },
    ]);
    const [github, gitlab] = loadToolkitFile(text, { env: { GH_ID: "id-from-env", GH_SECRET: "secret-from-env" } });
    expect(oauthMode(github!)).toMatchObject({ clientId: "id-from-env", clientSecret: "secret-from-env" });
    expect(github!.tools.length).toBeGreaterThanOrEqual(6);
    expect(gitlab!.baseUrls).toEqual(["https://gitlab.example.com/api/v4"]);
    expect(oauthMode(gitlab!)).toMatchObject({
      authorizationUrl: "https://gitlab.example.com/oauth/authorize",
      tokenUrl: "https://gitlab.example.com/oauth/token",
      scopes: ["read_api"],
    } satisfies Partial<OAuth2Scheme>);
  });

  it("refuses an unknown provider, an unknown field and a bad URL, naming each", () => {
    expect(() => catalogEntry({ provider: "nope" })).toThrow('The catalog has no provider "nope".');
    expect(() => catalogEntry({ provider: "github", clientID: "x" })).toThrow(/Invalid provider entry "github": .*clientID/);
    expect(() => catalogEntry({ provider: "github", tokenUrl: "ftp://x" })).toThrow(
      'Invalid provider entry "github": tokenUrl: must be an absolute http(s) URL.',
    );
    expect(() => loadToolkitFile(JSON.stringify({ provider: "gitlab", baseUrl: "https://${UNSET_HOST}/api/v4" }), { env: {} })).toThrow(
      /UNSET_HOST is not set; it is used at baseUrl/,
    );
  });

  it("an entry whose client variables are unset is served as not configured, naming the file's variables", () => {
    const text = JSON.stringify({ provider: "github", clientId: "${GH_ID}", clientSecret: "${GH_SECRET}" });
    const [github] = loadToolkitFile(text, { env: {} });
    expect(github!.tools.length).toBeGreaterThanOrEqual(6);
    expect(oauthMode(github!)!.unconfigured).toBe(
      "GitHub is not configured on this server: its operator must set GH_ID and GH_SECRET " +
        "(the OAuth client that its toolkit file names), then restart it.",
    );
    expect(github!.authModes.find((mode) => mode.type === "bearer")).not.toHaveProperty("unconfigured");
  });

  it("the core's parseToolkitFile, which does not bundle the catalog, says where to load such a file", () => {
    expect(() => parseToolkitFile(JSON.stringify({ provider: "github" }), { env: {} })).toThrow(
      'a "provider" entry needs the catalog: load the file with loadToolkitFile from tools-proxy/catalog (serve does).',
    );
  });
});
