import { z } from "zod";
import type { AuthScheme, ClientCredentialsScheme, OAuth2Scheme } from "../credentials/auth-schemes.js";
import { isGrantType } from "../credentials/grant-schemes.js";
import { configureValues } from "../credentials/placements.js";
import { defineToolkit, oauthEndpointUnderOrigin, type Toolkit } from "../toolkits/define.js";
import { type JsonToolkitOptions, parseToolkitFile } from "../toolkits/json.js";
import { generatedTools } from "./generated/index.js";
import { catalogIconRef } from "./icons.js";
import { markCatalogMade } from "./made.js";
import popularity from "./popularity.json" with { type: "json" };
import { type ProviderDefinition, providerSchema } from "./provider.js";
import { providerFiles } from "./providers/index.js";
import { curatedTools } from "./tools/index.js";

export type { GeneratedTarget, LazyTools, ToolSummary } from "./generated/index.js";
export { generatedSources, generatedTools } from "./generated/index.js";
export type { ProviderDefinition } from "./provider.js";

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
 * toolkit file"), nothing else.
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
});

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
  const { provider, ...options } = parsed.data;
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
 */
export function catalogToolkits(options: { env?: Record<string, string | undefined> } = {}): Toolkit[] {
  const env = options.env ?? globalThis.process?.env ?? {};
  return providersByPopularity.map((provider) => {
    const own = clientVariables(provider.slug);
    const shared = provider.clientOf ? clientVariables(provider.clientOf) : own;
    const clientId = env[own.id] || env[shared.id] || undefined;
    const clientSecret = (env[own.id] ? env[own.secret] : env[shared.secret]) || undefined;
    const app = appVariables(provider.slug);
    const appId = env[app.id] || undefined;
    const privateKey = env[app.privateKey] || env[privateKeyVariable(provider.slug)] || undefined;
    return catalogToolkit(provider.slug, { clientId, clientSecret, appId, privateKey, env });
  });
}
