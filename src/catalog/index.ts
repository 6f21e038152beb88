import type { AuthScheme, OAuth2Scheme } from "../credentials/auth-schemes.js";
import { defineToolkit, type Toolkit } from "../toolkits/define.js";
import { catalogIconRef } from "./icons.js";
import { type ProviderDefinition, providerSchema } from "./provider.js";
import { providerFiles } from "./providers/index.js";
import { curatedTools } from "./tools/index.js";

export type { ProviderDefinition } from "./provider.js";

/** Every provider of the built-in catalog, validated, in slug order. */
export const providers: readonly ProviderDefinition[] = providerFiles.map((file) => providerSchema.parse(file));

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
}

/** The names of the environment variables that hold a provider's OAuth client. */
export function clientVariables(slug: string): { id: string; secret: string } {
  const name = slug.toUpperCase().replace(/-/g, "_");
  return { id: `TOOLS_PROXY_${name}_CLIENT_ID`, secret: `TOOLS_PROXY_${name}_CLIENT_SECRET` };
}

/**
 * Turns a catalog provider into a toolkit with the deployer's client credentials and overrides.
 * An OAuth provider without a `clientId` is still listed, as not configured: `POST /auth` for it
 * answers 400 naming the variables to set (its other modes, such as a personal token, still work).
 */
export function catalogToolkit(slug: string, options: ProviderOptions = {}): Toolkit {
  const provider = getProvider(slug);
  if (!provider) throw new TypeError(`The catalog has no provider "${slug}". See tools-proxy/catalog's providers for the list.`);
  const auth = provider.auth.map((mode): AuthScheme => {
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
    };
    if (!options.clientId) {
      const variables = clientVariables(provider.clientOf ?? provider.slug);
      scheme.unconfigured =
        `${provider.name} is not configured on this server: its operator must set ${variables.id} and ` +
        `${variables.secret} (the OAuth client's id and secret), then restart it.`;
    }
    return scheme;
  });
  return defineToolkit({
    slug: provider.slug,
    name: provider.name,
    description: provider.description,
    icon: catalogIconRef(provider.slug),
    baseUrl: options.baseUrl ?? provider.baseUrl,
    auth,
    headers: provider.headers,
    inputs: provider.inputs,
    aliases: provider.aliases,
    categories: provider.categories,
    docsUrl: provider.docsUrl,
    tools: curatedTools[provider.slug] ?? [],
  });
}
