/**
 * The catalog's remote MCP servers: each provider that lists its vendor's server (`mcp` in its data
 * file) gives a `<provider>-mcp` toolkit, by `mcpToolkit`, by a `{ "provider": ..., "mcp": true }`
 * entry of a toolkit file, and among the toolkits `serve --catalog` serves (`catalogToolkits`).
 */
import { describe, expect, it } from "vitest";
import {
  catalogEntry,
  catalogMcpToolkit,
  catalogToolkits,
  getProvider,
  loadToolkitFile,
  mcpProviders,
  mcpToolkit,
  mcpToolkitSlug,
  providers,
} from "../../src/catalog/index.js";
import { providerSchema } from "../../src/catalog/provider.js";
import type { AuthScheme, OAuth2Scheme } from "../../src/credentials/auth-schemes.js";
import { createToolsHandler, issueApiKey, memoryStore } from "../../src/index.js";
import type { Toolkit } from "../../src/toolkits/define.js";
import { searchToolkits } from "../../src/toolkits/search.js";
import { section, table } from "../docs/markdown.js";

const linear = getProvider("linear")!;
/** serve --catalog's toolkits without any variable set (made once: the catalog is large). */
const served = catalogToolkits({ env: {} });

const unconfigured = (mode: AuthScheme | undefined) => (mode as { unconfigured?: string } | undefined)?.unconfigured;

describe("the catalog's mcp entries", () => {
  it("at least ten providers list their vendor's remote MCP server, the most asked-for among them", () => {
    expect(mcpProviders.length).toBeGreaterThanOrEqual(10);
    expect(mcpProviders.map((p) => p.slug)).toEqual(expect.arrayContaining(["linear", "notion", "sentry", "stripe", "github", "jira"]));
    expect(mcpProviders).toEqual(providers.filter((p) => p.mcp).sort((a, b) => mcpProviders.indexOf(a) - mcpProviders.indexOf(b)));
  });

  it.each(mcpProviders.map((provider) => ({ slug: provider.slug, mcp: provider.mcp! })))(
    "$slug: an https URL without credentials, query or fragment; an https source page; a known auth; origins of authorization servers",
    ({ mcp }) => {
      const url = new URL(mcp.url);
      expect(url.protocol).toBe("https:");
      expect([url.username, url.password, url.search, url.hash]).toEqual(["", "", "", ""]);
      expect(mcp.url).not.toMatch(/[?#]/);
      expect(new URL(mcp.source).protocol).toBe("https:");
      expect(["discovery", "provider"]).toContain(mcp.auth);
      expect(["streamable-http", "sse", undefined]).toContain(mcp.transport);
      for (const origin of mcp.authorizationServers ?? []) expect(new URL(origin).origin).toBe(origin);
      // The server is the vendor's own: on a host of the vendor, never the MCP server of a third party.
      expect(url.hostname).not.toMatch(/glama|smithery|mcpservers|aibase|composio|pipedream|zapier/);
      // A vendor that registers no clients dynamically says what the deployer must do.
      if (mcp.dynamicRegistration === false) expect(mcp.limitation).toMatch(/regist/i);
    },
  );

  it.each([
    ["an http URL", { url: "http://mcp.linear.app/mcp" }],
    ["credentials in the URL", { url: "https://user:pw@mcp.linear.app/mcp" }],
    ["a query", { url: "https://mcp.linear.app/mcp?x=1" }],
    ["a fragment", { url: "https://mcp.linear.app/mcp#top" }],
    ["an empty fragment", { url: "https://mcp.linear.app/mcp#" }],
    ["an unknown auth kind", { auth: "apiKey" }],
    ["an unknown transport", { transport: "websocket" }],
    ["an authorization server with a path", { authorizationServers: ["https://github.com/login/oauth"] }],
    ["an http authorization server", { authorizationServers: ["http://github.com"] }],
    ["a source that is not https", { source: "http://linear.app/docs/mcp" }],
    ["an unknown field", { headers: {} }],
  ])("the schema refuses %s", (_, change) => {
    const file = { ...linear, mcp: { ...linear.mcp!, ...change } };
    expect(providerSchema.safeParse(file).success).toBe(false);
    expect(providerSchema.safeParse({ ...linear }).success).toBe(true);
  });
});

describe("mcpToolkit", () => {
  it("a discovery server: the MCP authorization spec's mode, a client registered dynamically unless one is given", () => {
    expect(mcpToolkit("linear")).toEqual({
      slug: "linear-mcp",
      name: "Linear (MCP)",
      description: `Linear's own remote MCP server, with the tools Linear publishes. ${linear.description}`,
      icon: "catalog:linear",
      aliases: [...linear.aliases, "mcp", "Linear mcp"],
      categories: linear.categories,
      docsUrl: "https://linear.app/docs/mcp",
      mcp: { url: "https://mcp.linear.app/mcp", transport: "streamable-http" },
      auth: [
        {
          type: "oauth2",
          mode: "oauth2",
          label: "Sign in (MCP authorization)",
          authorizationUrl: "",
          tokenUrl: "",
          clientId: "",
          scopes: [],
          pkce: true,
          discovery: { resource: "https://mcp.linear.app/mcp" },
        },
      ],
      tools: [],
    });
    const configured = mcpToolkit("linear", { slug: "linear-tools", clientId: "id", clientSecret: "secret", scopes: ["read"] });
    expect(configured.slug).toBe("linear-tools");
    expect(configured.auth).toEqual([expect.objectContaining({ clientId: "id", clientSecret: "secret", scopes: ["read"] })]);
    // Square's server only has the older HTTP+SSE transport.
    expect(mcpToolkit("square").mcp).toEqual({ url: "https://mcp.squareup.com/sse", transport: "sse" });
  });

  it("a discovery server whose vendor registers no clients dynamically is not configured without one, naming its variables", () => {
    const [mode] = [mcpToolkit("asana").auth].flat();
    expect(unconfigured(mode)).toBe(
      "Asana's MCP server takes no dynamic client registration: its operator must register a client with Asana and set " +
        "TOOLS_PROXY_ASANA_MCP_CLIENT_ID and TOOLS_PROXY_ASANA_MCP_CLIENT_SECRET, then restart it.",
    );
    const [given] = [mcpToolkit("asana", { clientId: "id", clientSecret: "secret" }).auth].flat();
    expect(unconfigured(given)).toBeUndefined();
    expect(given).toMatchObject({ clientId: "id", clientSecret: "secret", discovery: { resource: "https://mcp.asana.com/v2/mcp" } });
  });

  it("a server that takes the provider's modes (GitHub): its OAuth app, token and app, without the REST API's lookups", () => {
    const github = getProvider("github")!;
    const definition = mcpToolkit("github", { clientId: "gh-id", clientSecret: "gh-secret" });
    expect(definition).toMatchObject({
      slug: "github-mcp",
      name: "GitHub (MCP)",
      icon: "catalog:github",
      docsUrl: "https://github.com/github/github-mcp-server",
      mcp: { url: "https://api.githubcopilot.com/mcp/", transport: "streamable-http", authorizationServers: ["https://github.com"] },
      tools: [],
    });
    const modes = [definition.auth ?? []].flat();
    expect(modes.map((mode) => mode.type)).toEqual(github.auth.map((mode) => mode.type));
    expect(modes[0]).toMatchObject({
      type: "oauth2",
      authorizationUrl: "https://github.com/login/oauth/authorize",
      tokenUrl: "https://github.com/login/oauth/access_token",
      clientId: "gh-id",
      clientSecret: "gh-secret",
    } satisfies Partial<OAuth2Scheme>);
    // "/user" and "/applications/{clientId}/token" are paths of api.github.com, not of the MCP server.
    for (const mode of modes) {
      expect(mode).not.toHaveProperty("identify");
      expect(mode).not.toHaveProperty("revocation");
    }
    expect(unconfigured(modes[0])).toBeUndefined();
    expect(unconfigured([mcpToolkit("github").auth].flat()[0])).toMatch(
      /TOOLS_PROXY_GITHUB_CLIENT_ID and TOOLS_PROXY_GITHUB_CLIENT_SECRET/,
    );
  });

  it("refuses a provider the catalog lacks and one without an MCP server, naming those with one", () => {
    expect(() => mcpToolkit("nope")).toThrow('The catalog has no provider "nope".');
    expect(() => mcpToolkit("brave-search")).toThrow(
      /The catalog lists no remote MCP server for Brave Search\. The providers with one: .*linear/,
    );
  });

  it("catalogMcpToolkit makes the toolkit, known to serve --catalog as the catalog's", () => {
    const toolkit = catalogMcpToolkit("notion");
    expect(toolkit).toMatchObject({ kind: "toolkit", slug: "notion-mcp", name: "Notion (MCP)", docsUrl: expect.stringMatching(/^https:/) });
    expect(toolkit.tools).toEqual([]);
  });
});

describe('{ "provider": ..., "mcp": true } entries of toolkit files', () => {
  it("is the provider's MCP toolkit, with the slug and client the entry gives", () => {
    const text = JSON.stringify([
      { provider: "linear", mcp: true },
      { provider: "asana", mcp: true, slug: "asana-remote", clientId: "${ASANA_ID}", clientSecret: "${ASANA_SECRET}" },
      { provider: "linear" },
    ]);
    const [linearMcp, asana, linearRest] = loadToolkitFile(text, { env: { ASANA_ID: "a-id", ASANA_SECRET: "a-secret" } });
    expect(linearMcp).toMatchObject({ slug: "linear-mcp", name: "Linear (MCP)", docsUrl: "https://linear.app/docs/mcp" });
    expect(asana).toMatchObject({ slug: "asana-remote", name: "Asana (MCP)" });
    expect(asana!.authModes[0]).toMatchObject({ clientId: "a-id", clientSecret: "a-secret" });
    expect(unconfigured(asana!.authModes[0])).toBeUndefined();
    expect(linearRest).toMatchObject({ slug: "linear", name: "Linear" });
  });

  it("an entry whose client variables are unset is served as not configured, naming the file's variables", () => {
    const text = JSON.stringify({ provider: "asana", mcp: true, clientId: "${ASANA_ID}", clientSecret: "${ASANA_SECRET}" });
    const [asana] = loadToolkitFile(text, { env: {} });
    expect(unconfigured(asana!.authModes[0])).toMatch(/ASANA_ID and ASANA_SECRET/);
  });

  it("refuses what an MCP entry cannot take, a slug without mcp, and a provider without an MCP server", () => {
    expect(() => catalogEntry({ provider: "linear", mcp: true, baseUrl: "https://api.linear.app" })).toThrow(
      'Invalid provider entry "linear": baseUrl: an "mcp": true entry takes no baseUrl; remove it.',
    );
    expect(() => catalogEntry({ provider: "linear", slug: "lin" })).toThrow(
      'Invalid provider entry "linear": slug: only an "mcp": true entry takes a slug; remove it.',
    );
    expect(() => catalogEntry({ provider: "linear", mcp: false })).toThrow(/Invalid provider entry "linear": mcp/);
    expect(() => catalogEntry({ provider: "brave-search", mcp: true })).toThrow(/lists no remote MCP server for Brave Search/);
  });
});

describe("catalogToolkits (serve --catalog) serves the MCP servers beside the providers", () => {
  const bySlug = (toolkits: Toolkit[]) => new Map(toolkits.map((toolkit) => [toolkit.slug, toolkit]));

  it("every provider's MCP toolkit, after the providers; a server that registers clients dynamically needs no variables", () => {
    const toolkits = served;
    const slugs = toolkits.map((toolkit) => toolkit.slug);
    expect(slugs.slice(providers.length)).toEqual(mcpProviders.map((p) => mcpToolkitSlug(p.slug)));
    expect(new Set(slugs).size).toBe(slugs.length);
    const found = bySlug(toolkits);
    for (const provider of mcpProviders) {
      const toolkit = found.get(mcpToolkitSlug(provider.slug))!;
      expect(toolkit.name).toBe(`${provider.name} (MCP)`);
      expect(toolkit.docsUrl).toBe(provider.mcp!.source);
      // A server taking the provider's modes is configured as the provider is (GitHub's OAuth app
      // needs its client); a discovery server needs one only where the vendor registers none dynamically.
      const needsClient =
        provider.mcp!.auth === "provider"
          ? Boolean(unconfigured(found.get(provider.slug)!.authModes[0]))
          : provider.mcp!.dynamicRegistration === false;
      expect(Boolean(unconfigured(toolkit.authModes[0])), provider.slug).toBe(needsClient);
    }
  });

  it("reads a configured client from TOOLS_PROXY_<SLUG>_MCP_CLIENT_ID, and GitHub's from the provider's variables", () => {
    const found = bySlug(
      catalogToolkits({
        env: {
          TOOLS_PROXY_ASANA_MCP_CLIENT_ID: "asana-id",
          TOOLS_PROXY_ASANA_MCP_CLIENT_SECRET: "asana-secret",
          TOOLS_PROXY_GITHUB_CLIENT_ID: "gh-id",
          TOOLS_PROXY_GITHUB_CLIENT_SECRET: "gh-secret",
        },
      }),
    );
    expect(found.get("asana-mcp")!.authModes[0]).toMatchObject({ clientId: "asana-id", clientSecret: "asana-secret" });
    expect(unconfigured(found.get("asana-mcp")!.authModes[0])).toBeUndefined();
    expect(found.get("github-mcp")!.authModes[0]).toMatchObject({ clientId: "gh-id", clientSecret: "gh-secret" });
    // The provider's own client is not the MCP server's: Asana's REST client stays unset.
    expect(found.get("asana")!.authModes[0]).toMatchObject({ clientId: "" });
  });

  it.each([
    ["linear mcp", "linear-mcp"],
    ["notion mcp", "notion-mcp"],
    ["github mcp", "github-mcp"],
    ["sentry mcp server", "sentry-mcp"],
  ])('search finds "%s"', (query, slug) => {
    const results = searchToolkits(served, query);
    expect(results[0]?.slug).toBe(slug);
  });

  it("search for the provider's name still puts its REST toolkit first, its MCP server next", () => {
    const results = searchToolkits(served, "linear").map((toolkit) => toolkit.slug);
    expect(results.slice(0, 2)).toEqual(["linear", "linear-mcp"]);
  });

  it("the handler lists them: configured where the vendor registers clients dynamically, not where a client is missing", async () => {
    const store = memoryStore();
    const tools = createToolsHandler({ store, publicUrl: "https://app.test", toolkits: served });
    const { key } = await issueApiKey(store, { workspaceId: "ws1", agentId: "agent-1" });
    const response = await tools(
      new Request("https://app.test/proxy/tools/search?keywords=mcp&limit=50", { headers: { "x-api-key": key } }),
    );
    expect(response.status).toBe(200);
    const listed = new Map(
      ((await response.json()) as { toolkits: { slug: string; configured: boolean }[] }).toolkits.map((t) => [t.slug, t.configured]),
    );
    expect(listed.get("linear-mcp")).toBe(true);
    expect(listed.get("notion-mcp")).toBe(true);
    expect(listed.get("asana-mcp")).toBe(false);
    expect(listed.get("hubspot-mcp")).toBe(false);
  });
});

describe("docs/guide/providers.md: vendors' own MCP servers", () => {
  const page = section("docs/guide/providers.md", "Vendors' own MCP servers");
  const rows = table(page, "provider");

  it("counts and lists every provider's MCP server, with its toolkit, URL and source page", () => {
    expect(page).toContain(`${mcpProviders.length} providers of the catalog list theirs`);
    expect(rows.map(([name]) => name)).toEqual(mcpProviders.map((provider) => provider.name));
    for (const [index, provider] of mcpProviders.entries()) {
      const [, toolkit, server = "", connected, source] = rows[index]!;
      expect(toolkit).toBe(`\`${mcpToolkitSlug(provider.slug)}\``);
      expect(server).toContain(`\`${provider.mcp!.url}\``);
      expect(server.includes("(SSE)")).toBe(provider.mcp!.transport === "sse");
      expect(source).toBe(`[vendor page](${provider.mcp!.source})`);
      const expected =
        provider.mcp!.auth === "provider"
          ? "the provider's own modes"
          : provider.mcp!.dynamicRegistration === false
            ? "MCP authorization, a configured client"
            : "MCP authorization";
      expect(connected, provider.slug).toBe(expected);
    }
  });
});
