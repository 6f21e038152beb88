import { z } from "zod";
import type { AuthScheme, ClientCredentialsScheme, OAuth2Scheme } from "../credentials/auth-schemes.js";
import { isGrantType } from "../credentials/grant-schemes.js";
import { configureValues } from "../credentials/placements.js";
import { defineToolkit, oauthEndpointUnderOrigin, type Toolkit, type ToolkitDefinition } from "../toolkits/define.js";
import { type JsonToolkitOptions, parseToolkitFile } from "../toolkits/json.js";
import { mcpOAuthMode } from "../toolkits/remote.js";
import { generatedTools } from "./generated/index.js";
import { catalogIconRef } from "./icons.js";
import { markCatalogMade } from "./made.js";
import popularity from "./popularity.json" with { type: "json" };
import { type McpServerDefinition, type ProviderDefinition, providerSchema } from "./provider.js";
import { providerFiles } from "./providers/index.js";
import { curatedTools } from "./tools/index.js";

export type { GeneratedTarget, LazyTools, ToolSummary } from "./generated/index.js";
export { generatedSources, generatedTools } from "./generated/index.js";
export type { McpServerDefinition, ProviderDefinition } from "./provider.js";

/** Every provider of the built-in catalog, validated, in slug order. */
export const providers: readonly ProviderDefinition[] = providerFiles.map((file) => providerSchema.parse(file));

/**
 * The catalog's providers in the order agents connect them most (popularity.json: the most used
 * first, then the issue's rank order of the most connected apps), every provider not listed there
 * after them in slug order. `catalogToolkits` lists them so, and a search breaks its ties in this
 * order, so that "social" puts X before a less used network that scores the same.
 */
export const providersByPopularity: readonly ProviderDefinition[] = [...providers].sort(
  (a, b) => popularityRank(a.slug) - popularityRank(b.slug) || a.slug.localeCompare(b.slug, "en"),
);

function popularityRank(slug: string): number {
  const at = popularity.indexOf(slug);
  return at === -1 ? popularity.length : at;
}

/** The catalog's provider with this slug, or undefined. */
export function getProvider(slug: string): ProviderDefinition | undefined {
  return providers.find((provider) => provider.slug === slug);
}

/**
 * What a deployer gives a catalog provider: its OAuth client, and URLs that replace the catalog's
 * for self-hosted, enterprise and sandbox deployments (GitHub Enterprise, self-managed GitLab,
 * Salesforce sandboxes). Paths the definition gives relative to `baseUrl` move with it.
 */
export interface ProviderOptions {
  clientId?: string;
  clientSecret?: string;
  scopes?: string[];
  authorizationUrl?: string;
  tokenUrl?: string;
  revocationUrl?: string;
  userInfoUrl?: string;
  baseUrl?: string | string[];
  /**
   * PKCE on or off, replacing the catalog's choice: Slack's is off, since Slack takes PKCE only
   * from an app that turned it on (which makes the app a public client); such an app sets `true`.
   */
  pkce?: boolean;
  /**
   * The deployer's values a provider sends on every request (Trello's application `key`, Google
   * Ads' `developerToken` beside its OAuth token), by name;
   * one not given here is read from the environment variable the provider names
   * (`TOOLS_PROXY_TRELLO_KEY`). Missing, the provider is listed but `POST /auth` answers 400
   * naming the variable.
   */
  values?: Record<string, string>;
  /** Where those variables are read (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** A GitHub App's id (or client id), for the `appInstallation` mode. */
  appId?: string;
  /** The deployer's RSA private key (PEM): the GitHub App's, or the key of Salesforce's JWT bearer mode. */
  privateKey?: string;
}

/** The names of the environment variables that hold a provider's OAuth client. */
export function clientVariables(slug: string): { id: string; secret: string } {
  const name = slug.toUpperCase().replace(/-/g, "_");
  return { id: `TOOLS_PROXY_${name}_CLIENT_ID`, secret: `TOOLS_PROXY_${name}_CLIENT_SECRET` };
}

/** The names of the environment variables that hold a provider's app (`appInstallation`): `TOOLS_PROXY_GITHUB_APP_ID` and `..._APP_PRIVATE_KEY`. */
export function appVariables(slug: string): { id: string; privateKey: string } {
  const name = slug.toUpperCase().replace(/-/g, "_");
  return { id: `TOOLS_PROXY_${name}_APP_ID`, privateKey: `TOOLS_PROXY_${name}_APP_PRIVATE_KEY` };
}

/** The name of the environment variable that holds the deployer's key of a `jwtBearer` mode it signs: `TOOLS_PROXY_SALESFORCE_PRIVATE_KEY`. */
export function privateKeyVariable(slug: string): string {
  return `TOOLS_PROXY_${slug.toUpperCase().replace(/-/g, "_")}_PRIVATE_KEY`;
}

/** A catalog mode that is not OAuth, given the deployer's app or key where it needs them. */
function grantMode(provider: ProviderDefinition, mode: ProviderDefinition["auth"][number], options: ProviderOptions): AuthScheme {
  if (mode.type === "appInstallation") {
    const { appId = options.appId, privateKey = options.privateKey } = mode;
    if (appId && privateKey) return { ...mode, appId, privateKey };
    const variables = appVariables(provider.slug);
    return {
      ...mode,
      unconfigured:
        `${provider.name}'s app installation mode is not configured on this server: its operator must set ${variables.id} and ` +
        `${variables.privateKey} (the app's id and private key), then restart it.`,
    };
  }
  if (mode.type === "jwtBearer" && mode.signer === "deployer") {
    const { issuer = options.clientId, privateKey = options.privateKey } = mode;
    if (issuer && privateKey) return { ...mode, issuer, privateKey };
    const variables = clientVariables(provider.clientOf ?? provider.slug);
    return {
      ...mode,
      unconfigured:
        `${provider.name}'s JWT bearer mode is not configured on this server: its operator must set ${variables.id} (the ` +
        `connected app's consumer key) and ${privateKeyVariable(provider.slug)} (its private key), then restart it.`,
    };
  }
  return mode as AuthScheme;
}

/**
 * Turns a catalog provider into a toolkit with the deployer's client credentials and overrides.
 * An OAuth provider without a `clientId` is still listed, as not configured: `POST /auth` for it
 * answers 400 naming the variables to set (its other modes, such as a personal token, still work).
 * A provider with a published OpenAPI document also gets its generated tools as `lazy`
 * (see `generatedTools`): their requests go to this toolkit's base URLs, overrides included, with
 * its headers, inputs and auth.
 */
export function catalogToolkit(slug: string, options: ProviderOptions = {}): CatalogToolkit {
  const provider = getProvider(slug);
  if (!provider) throw new TypeError(`The catalog has no provider "${slug}". See tools-proxy/catalog's providers for the list.`);
  const env = options.env ?? globalThis.process?.env ?? {};
  // Every mode reads the deployer's values it sends (Trello's app key, Google Ads' developer token);
  // one missing leaves the mode unconfigured, naming its variable beside any the client needs.
  const auth = provider.auth.map(
    (mode): AuthScheme => configureValues(clientMode(provider, mode, options), env, options.values ?? {}, provider.name),
  );
  const toolkit = defineToolkit({
    slug: provider.slug,
    name: provider.name,
    description: provider.description,
    icon: catalogIconRef(provider.slug),
    baseUrl: options.baseUrl ?? provider.baseUrl,
    auth,
    headers: provider.headers,
    rateLimit: provider.rateLimit,
    inputs: provider.inputs,
    aliases: provider.aliases,
    categories: provider.categories,
    docsUrl: provider.docsUrl,
    // Curated tools are written for what agents do most: they belong to the default set.
    tools: (curatedTools[provider.slug] ?? []).map((tool) => ({ ...tool, default: true })),
  });
  // The provider's generated tools, loaded on first use, sent with this toolkit's base URLs and auth.
  const lazy = generatedTools(provider.slug, toolkit);
  return markCatalogMade(lazy ? Object.assign(toolkit, { lazy }) : toolkit);
}

/** A catalog mode with the deployer's client, app or key where it needs them (not yet its values). */
function clientMode(provider: ProviderDefinition, mode: ProviderDefinition["auth"][number], options: ProviderOptions): AuthScheme {
  if (mode.type === "clientCredentials" && mode.client === "deployer")
    return deployerClient(provider, mode as ClientCredentialsScheme, options);
  if (isGrantType(mode.type)) return grantMode(provider, mode, options);
  if (mode.type !== "oauth2") return mode as AuthScheme;
  const scheme: OAuth2Scheme = {
    ...(mode as Omit<OAuth2Scheme, "clientId">),
    clientId: options.clientId ?? "",
    ...(options.clientSecret !== undefined ? { clientSecret: options.clientSecret } : {}),
    ...(options.scopes ? { scopes: options.scopes } : {}),
    ...(options.authorizationUrl ? { authorizationUrl: options.authorizationUrl } : {}),
    ...(options.tokenUrl ? { tokenUrl: options.tokenUrl } : {}),
    ...(options.revocationUrl ? { revocationUrl: options.revocationUrl } : {}),
    ...(options.userInfoUrl ? { userInfoUrl: options.userInfoUrl } : {}),
    ...(options.pkce !== undefined ? { pkce: options.pkce } : {}),
  };
  if (oauthEndpointUnderOrigin(scheme)) return publicClientMode(provider, scheme, options);
  if (!options.clientId) {
    const variables = clientVariables(provider.clientOf ?? provider.slug);
    scheme.unconfigured =
      `${provider.name} is not configured on this server: its operator must set ${variables.id} and ` +
      `${variables.secret} (the OAuth client's id and secret), then restart it.`;
  }
  return scheme;
}

/** An OAuth mode whose endpoints are on the server each connection names: a public client only (see defineToolkit). */
function publicClientMode(provider: ProviderDefinition, scheme: OAuth2Scheme, options: ProviderOptions): OAuth2Scheme {
  const variables = clientVariables(provider.clientOf ?? provider.slug);
  const { clientSecret: _secret, ...publicClient } = scheme;
  if (!options.clientId) {
    publicClient.unconfigured =
      `${provider.name}'s OAuth mode is not configured on this server: its operator must set ${variables.id} (the id of a ` +
      "public OAuth application, without a secret, registered on the instance), then restart it.";
  } else if (options.clientSecret !== undefined) {
    publicClient.unconfigured =
      `${provider.name}'s OAuth mode takes a public client: its operator must unset ${variables.secret}, since the secret ` +
      "would go to whatever server a connection names, and register the application on the instance as non-confidential.";
  }
  return publicClient;
}

/** A catalog toolkit: its generated tools, when its provider has some, are its `lazy` tools (counted and summarised, loaded on first use). */
export type CatalogToolkit = Toolkit;

/**
 * A client-credentials mode whose client is the deployer's: the client of `options` (read from
 * `TOOLS_PROXY_<SLUG>_CLIENT_ID` and `..._CLIENT_SECRET` by `catalogToolkits`), or unconfigured.
 */
function deployerClient(provider: ProviderDefinition, mode: ClientCredentialsScheme, options: ProviderOptions): ClientCredentialsScheme {
  const scheme: ClientCredentialsScheme = {
    ...mode,
    ...(options.scopes ? { scopes: options.scopes } : {}),
    ...(options.tokenUrl ? { tokenUrl: options.tokenUrl } : {}),
  };
  if (options.clientId && options.clientSecret) return { ...scheme, clientId: options.clientId, clientSecret: options.clientSecret };
  const variables = clientVariables(provider.clientOf ?? provider.slug);
  return {
    ...scheme,
    unconfigured:
      `${provider.name} is not configured on this server: its operator must set ${variables.id} and ` +
      `${variables.secret} (the client's id and secret), then restart it.`,
  };
}

const overrideUrl = z
  .string()
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), "must be an absolute http(s) URL");

/**
 * A `{ "provider": "<slug>", ... }` entry of a toolkit file: the deployer's client, `pkce`, and the
 * URLs a self-hosted, enterprise or sandbox deployment moves (docs/guide/providers.md, "In a
 * toolkit file"), nothing else; with `"mcp": true`, the provider's remote MCP server, its slug and client.
 */
const entrySchema = z.strictObject({
  provider: z.string().min(1),
  clientId: z.string().min(1).optional(),
  clientSecret: z.string().min(1).optional(),
  scopes: z.array(z.string()).optional(),
  authorizationUrl: overrideUrl.optional(),
  tokenUrl: overrideUrl.optional(),
  revocationUrl: overrideUrl.optional(),
  userInfoUrl: overrideUrl.optional(),
  baseUrl: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  pkce: z.boolean().optional(),
  values: z.record(z.string(), z.string().min(1)).optional(),
  appId: z.string().min(1).optional(),
  privateKey: z.string().min(1).optional(),
  /** The provider's remote MCP server instead of its REST API (`mcpToolkit`). */
  mcp: z.literal(true).optional(),
  /** The MCP toolkit's slug, with `mcp` only. */
  slug: z.string().min(1).optional(),
});

/** The fields an `"mcp": true` entry takes besides `provider`. */
const MCP_ENTRY_FIELDS = new Set(["mcp", "slug", "clientId", "clientSecret", "scopes", "values", "appId", "privateKey"]);

/**
 * Builds a toolkit from a `{ "provider": "<slug>", "clientId": ..., ... }` entry of a toolkit file.
 * Unknown providers and fields are errors that name them.
 */
export function catalogEntry(entry: Record<string, unknown>): Toolkit {
  const parsed = entrySchema.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? `${issue.path.join(".")}: ` : "";
    throw new TypeError(`Invalid provider entry "${String(entry.provider)}": ${where}${issue.message}.`);
  }
  const { provider, mcp, slug, ...options } = parsed.data;
  if (mcp) {
    const other = Object.keys(parsed.data).find((field) => field !== "provider" && !MCP_ENTRY_FIELDS.has(field));
    if (other) throw new TypeError(`Invalid provider entry "${provider}": ${other}: an "mcp": true entry takes no ${other}; remove it.`);
    return catalogMcpToolkit(provider, { ...options, ...(slug ? { slug } : {}) });
  }
  if (slug) throw new TypeError(`Invalid provider entry "${provider}": slug: only an "mcp": true entry takes a slug; remove it.`);
  return catalogToolkit(provider, options);
}

/**
 * Parses a toolkit file (one entry or an array) where an entry is a JSON toolkit or a catalog
 * provider (`{ "provider": "github", "clientId": "${GITHUB_CLIENT_ID}", ... }`). `${NAME}` is
 * replaced from `options.env` first, as `parseToolkitFile` does.
 */
export function loadToolkitFile(text: string, options: Omit<JsonToolkitOptions, "provider"> & { source?: string } = {}): Toolkit[] {
  return parseToolkitFile(text, { ...options, provider: catalogEntry });
}

/**
 * Every catalog provider as a toolkit, as `tools-proxy serve --catalog` serves them, most connected
 * first (`providersByPopularity`): an OAuth
 * provider reads its client from `TOOLS_PROXY_<SLUG>_CLIENT_ID` and `..._CLIENT_SECRET` (slug
 * upper-cased, `-` as `_`), else from those of the provider whose client it shares (`clientOf`:
 * Gmail, Calendar and Drive read `TOOLS_PROXY_GOOGLE_...`). Without them it is listed as not
 * configured. A GitHub App reads `TOOLS_PROXY_GITHUB_APP_ID` and `..._APP_PRIVATE_KEY`; Salesforce's
 * JWT bearer mode its client id (the consumer key) and `TOOLS_PROXY_SALESFORCE_PRIVATE_KEY`.
 * After the providers come the MCP toolkits of those that list their vendor's remote MCP server
 * (`linear-mcp`, `github-mcp`: see `mcpToolkit`).
 */
export function catalogToolkits(options: { env?: Record<string, string | undefined> } = {}): Toolkit[] {
  const env = options.env ?? globalThis.process?.env ?? {};
  const rest = providersByPopularity.map((provider) => catalogToolkit(provider.slug, { ...providerEnvOptions(provider, env), env }));
  return [...rest, ...catalogMcpToolkits(env)];
}

/** A provider's client and app as its environment variables give them (see `catalogToolkits`). */
function providerEnvOptions(provider: ProviderDefinition, env: Record<string, string | undefined>): ProviderOptions {
  const own = clientVariables(provider.slug);
  const shared = provider.clientOf ? clientVariables(provider.clientOf) : own;
  const clientId = env[own.id] || env[shared.id] || undefined;
  const clientSecret = (env[own.id] ? env[own.secret] : env[shared.secret]) || undefined;
  const app = appVariables(provider.slug);
  const appId = env[app.id] || undefined;
  const privateKey = env[app.privateKey] || env[privateKeyVariable(provider.slug)] || undefined;
  return { clientId, clientSecret, appId, privateKey };
}

/** The catalog's providers that list their vendor's remote MCP server, most connected first. */
export const mcpProviders: readonly ProviderDefinition[] = providersByPopularity.filter((provider) => provider.mcp);

/**
 * What a deployer gives a provider's MCP toolkit: its slug (default `<provider>-mcp`), and the
 * client. For a server connected by the MCP authorization spec (`auth: "discovery"`), a client the
 * deployer registered with the vendor, else one is registered dynamically; for one that takes the
 * provider's own ways to connect (`auth: "provider"`, GitHub), the provider's usual client, app or values.
 */
export interface McpToolkitOptions
  extends Pick<ProviderOptions, "clientId" | "clientSecret" | "scopes" | "values" | "env" | "appId" | "privateKey"> {
  slug?: string;
}

/** The default slug of a provider's MCP toolkit: `linear-mcp`. */
export function mcpToolkitSlug(providerSlug: string): string {
  return `${providerSlug}-mcp`;
}

/**
 * The definition of a toolkit whose tools are a catalog provider's own remote MCP server (Linear's,
 * Notion's, GitHub's): named `<Name> (MCP)`, with the provider's icon, aliases and categories, and
 * the vendor's page that gives the server's URL as its docs. Pass it to `defineToolkit`, or use
 * `catalogMcpToolkit` for the toolkit itself. A provider without an MCP server is a TypeError.
 */
export function mcpToolkit(slug: string, options: McpToolkitOptions = {}): ToolkitDefinition {
  const provider = getProvider(slug);
  if (!provider) throw new TypeError(`The catalog has no provider "${slug}". See tools-proxy/catalog's providers for the list.`);
  const server = provider.mcp;
  if (!server) {
    throw new TypeError(
      `The catalog lists no remote MCP server for ${provider.name}. The providers with one: ${mcpProviders.map((p) => p.slug).join(", ")}.`,
    );
  }
  const toolkitSlug = options.slug ?? mcpToolkitSlug(provider.slug);
  return {
    slug: toolkitSlug,
    name: `${provider.name} (MCP)`,
    description: `${provider.name}'s own remote MCP server, with the tools ${provider.name} publishes. ${provider.description}`,
    icon: catalogIconRef(provider.slug),
    aliases: [...provider.aliases, "mcp", `${provider.name} mcp`],
    categories: [...provider.categories],
    docsUrl: server.source,
    mcp: {
      url: server.url,
      transport: server.transport ?? "streamable-http",
      ...(server.authorizationServers ? { authorizationServers: [...server.authorizationServers] } : {}),
    },
    auth: server.auth === "provider" ? providerModesForMcp(provider, options) : [discoveryMode(provider, server, toolkitSlug, options)],
    tools: [],
  };
}

/**
 * The MCP authorization spec's mode of a provider's MCP server, with the deployer's client when
 * given. A server whose vendor takes no dynamic registration is left unconfigured without one,
 * naming the variables `catalogToolkits` reads (`TOOLS_PROXY_ASANA_MCP_CLIENT_ID`).
 */
function discoveryMode(
  provider: ProviderDefinition,
  server: McpServerDefinition,
  toolkitSlug: string,
  options: McpToolkitOptions,
): AuthScheme {
  const mode = mcpOAuthMode(server.url, {
    ...(server.authorizationServers ? { authorizationServers: [...server.authorizationServers] } : {}),
    ...(options.clientId ? { clientId: options.clientId } : {}),
    ...(options.clientSecret ? { clientSecret: options.clientSecret } : {}),
    ...(options.scopes ? { scopes: options.scopes } : {}),
  });
  if (server.dynamicRegistration === false && !options.clientId) {
    const variables = clientVariables(toolkitSlug);
    mode.unconfigured =
      `${provider.name}'s MCP server takes no dynamic client registration: its operator must register a client with ` +
      `${provider.name} and set ${variables.id} and ${variables.secret}, then restart it.`;
  }
  return mode;
}

/**
 * The provider's own ways to connect, for an MCP server that takes them (GitHub's OAuth app, token
 * and app installation work on its MCP server). Their account lookups and revocation requests are
 * paths of the provider's REST API, not of the MCP server, so they are left out rather than sent
 * to the wrong host; an absolute RFC 7009 revocation URL stays.
 */
function providerModesForMcp(provider: ProviderDefinition, options: McpToolkitOptions): AuthScheme[] {
  const env = options.env ?? globalThis.process?.env ?? {};
  return provider.auth.map((mode) => {
    const { identify: _identify, ...rest } = mode as typeof mode & { identify?: unknown };
    const kept = { ...rest } as Record<string, unknown>;
    delete kept.revocation;
    if (typeof kept.revocationUrl === "string" && !URL.canParse(kept.revocationUrl)) delete kept.revocationUrl;
    const configured = clientMode(provider, kept as ProviderDefinition["auth"][number], options);
    return configureValues(configured, env, options.values ?? {}, provider.name);
  });
}

/**
 * A catalog provider's remote MCP server as a toolkit (`defineToolkit(mcpToolkit(slug, options))`),
 * known to `serve --catalog` as the catalog's.
 */
export function catalogMcpToolkit(slug: string, options: McpToolkitOptions = {}): Toolkit {
  return markCatalogMade(defineToolkit(mcpToolkit(slug, options)));
}

/**
 * The MCP toolkits of `catalogToolkits`: a discovery server reads a configured client from
 * `TOOLS_PROXY_<SLUG>_MCP_CLIENT_ID` and `..._SECRET` (none needed where the vendor registers
 * clients dynamically); a server that takes the provider's modes reads the provider's variables.
 */
function catalogMcpToolkits(env: Record<string, string | undefined>): Toolkit[] {
  return mcpProviders.map((provider) => {
    if (provider.mcp!.auth === "provider") return catalogMcpToolkit(provider.slug, { ...providerEnvOptions(provider, env), env });
    const own = clientVariables(mcpToolkitSlug(provider.slug));
    const clientId = env[own.id] || undefined;
    const clientSecret = (clientId && env[own.secret]) || undefined;
    return catalogMcpToolkit(provider.slug, { clientId, clientSecret, env });
  });
}
