import { readFileSync } from "node:fs";
import * as icons from "simple-icons";
import { describe, expect, it } from "vitest";
import { catalogToolkit, getProvider } from "../../src/catalog/index.js";
import { type ProviderDefinition, providerSchema } from "../../src/catalog/provider.js";

// The second batch of catalog providers: each data file must pass the schema as written, become a
// toolkit, and keep the rules the schema alone cannot check (placeholders, hosts, categories, icons).
const slugs = [
  "zoho-crm",
  "attio",
  "intercom",
  "zendesk",
  "front",
  "shopify",
  "stripe",
  "quickbooks",
  "xero",
  "dropbox",
  "box",
  "zoom",
  "calendly",
  "discord",
  "x",
  "linkedin",
  "reddit",
  "figma",
  "miro",
  "canva",
  "mailchimp",
  "docusign",
  "typeform",
  "webflow",
  "todoist",
  "pagerduty",
  "sendgrid",
  "twilio",
  "resend",
  "brave-search",
  "openai",
];

const vocabulary = new Set(
  (
    "email calendar files documents spreadsheets chat crm sales support tickets project-management issues developer-tools code " +
    "design marketing payments accounting ecommerce social video scheduling forms signatures incident-management ai search sms " +
    "notes knowledge-base databases website analytics productivity communication hr monitoring advertising seo education " +
    "maps music recruiting finance infrastructure hosting surveys cms data-enrichment voice learning"
  ).split(" "),
);

const iconSlugs = new Set(Object.values(icons).map((icon) => (icon as { slug: string }).slug));

function load(slug: string): ProviderDefinition {
  const text = readFileSync(new URL(`../../src/catalog/providers/${slug}.json`, import.meta.url), "utf8");
  return providerSchema.parse(JSON.parse(text));
}

const PLACEHOLDER = /\{([A-Za-z0-9_]+)\}/g;
const placeholders = (value: string) => [...value.matchAll(PLACEHOLDER)].map((match) => match[1]!);

type Lookup = { url: string; config?: Record<string, unknown> };
const lookupsOf = (identify: unknown): Lookup[] => (identify === undefined ? [] : ([identify].flat() as Lookup[]));

/** Names a connection's config can hold: its inputs, and what callbacks, token answers and lookups read. */
function configNames(provider: ProviderDefinition): Set<string> {
  const names = new Set((provider.inputs ?? []).map((input) => input.name));
  for (const mode of provider.auth) {
    const fields = mode as { callbackConfig?: object; tokenConfig?: object; identify?: unknown };
    for (const name of Object.keys(fields.callbackConfig ?? {})) names.add(name);
    for (const name of Object.keys(fields.tokenConfig ?? {})) names.add(name);
    for (const lookup of lookupsOf(fields.identify)) for (const name of Object.keys(lookup.config ?? {})) names.add(name);
  }
  return names;
}

/** Every URL the definition sends a request to, with where it is. */
function urls(provider: ProviderDefinition): Array<[string, string]> {
  const found: Array<[string, string]> = [[[provider.baseUrl].flat().join(" "), "baseUrl"]];
  for (const [index, mode] of provider.auth.entries()) {
    const fields = mode as Record<string, unknown>;
    for (const key of ["authorizationUrl", "tokenUrl", "revocationUrl", "userInfoUrl", "refreshUrl"]) {
      if (typeof fields[key] === "string") found.push([fields[key] as string, `auth[${index}].${key}`]);
    }
    const revocation = fields.revocation as { url?: string } | undefined;
    if (revocation?.url) found.push([revocation.url, `auth[${index}].revocation.url`]);
    for (const lookup of lookupsOf(fields.identify)) found.push([lookup.url, `auth[${index}].identify.url`]);
  }
  return found;
}

describe.each(slugs)("catalog provider %s", (slug) => {
  const provider = load(slug);

  it("is named by its file and listed in the catalog", () => {
    expect(provider.slug).toBe(slug);
    expect(getProvider(slug)).toEqual(provider);
  });

  it("uses only the category vocabulary and existing simple-icons", () => {
    for (const category of provider.categories) expect(vocabulary, `category "${category}"`).toContain(category);
    if (provider.icon !== undefined) expect(iconSlugs, `icon "${provider.icon}"`).toContain(provider.icon);
  });

  it("fills every placeholder from the connection's config, never in a host's last label", () => {
    const names = configNames(provider);
    // The revocation body's own placeholders are filled from the tokens and the client, not from config.
    const tokenFields = new Set(["accessToken", "refreshToken", "clientId"]);
    for (const [value, where] of urls(provider)) {
      for (const name of placeholders(value)) {
        expect(names.has(name) || tokenFields.has(name), `${where}: {${name}} is not an input nor read into config`).toBe(true);
      }
      for (const url of value.split(" ").filter((part) => part.startsWith("https://"))) {
        const host = new URL(url.replace(PLACEHOLDER, "x")).host;
        const labels = url.slice("https://".length).split("/")[0]!.split(".");
        expect(labels.at(-1), `${where}: ${url}`).not.toMatch(PLACEHOLDER);
        expect(labels.at(-2), `${where}: ${url}`).not.toMatch(PLACEHOLDER);
        expect(host).not.toBe("");
      }
    }
    for (const [header, value] of Object.entries(provider.headers ?? {})) {
      for (const name of placeholders(value)) expect(names.has(name), `header ${header}: {${name}}`).toBe(true);
    }
  });

  it("keeps input values to one DNS label where they fill a host", () => {
    const hosts = urls(provider)
      .flatMap(([value]) => value.split(" "))
      .map((url) => url.slice("https://".length).split("/")[0]!);
    for (const input of provider.inputs ?? []) {
      if (input.type === "enum") {
        // A fixed list (Intercom's regional hosts): labels only, and only where the placeholder leads the host.
        for (const value of input.values ?? []) expect(value, input.name).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)*$/);
        for (const host of hosts.filter((h) => h.includes(`{${input.name}}`))) expect(host.startsWith(`{${input.name}}.`), host).toBe(true);
        continue;
      }
      expect(input.pattern, `input ${input.name} needs a pattern`).toBeDefined();
      const pattern = new RegExp(input.pattern!);
      if (input.example !== undefined) expect(input.example).toMatch(pattern);
      if (hosts.some((host) => host.includes(`{${input.name}}`))) {
        for (const bad of ["a.b", "a/b", "a b", "evil.com#", ""]) expect(pattern.test(bad), `${input.name} accepts "${bad}"`).toBe(false);
      }
    }
  });

  it("becomes a toolkit, configured with a client and unconfigured without", () => {
    const toolkit = catalogToolkit(slug, { clientId: "id", clientSecret: "secret" });
    expect(toolkit.slug).toBe(slug);
    expect(toolkit.authModes.map((mode) => mode.type)).toEqual(provider.auth.map((mode) => mode.type));
    expect(toolkit.baseUrls).toEqual([provider.baseUrl].flat());
    for (const mode of toolkit.authModes) {
      if (mode.type !== "oauth2") continue;
      expect(mode.clientId).toBe("id");
      expect(mode.clientSecret).toBe("secret");
      expect(mode.unconfigured).toBeUndefined();
    }
    const bare = catalogToolkit(slug);
    // A provider sharing a client (Zoho CRM's clientOf zoho) names the shared client's variable.
    const variable = `TOOLS_PROXY_${(provider.clientOf ?? slug).toUpperCase().replace(/-/g, "_")}_CLIENT_ID`;
    for (const mode of bare.authModes) if (mode.type === "oauth2") expect(mode.unconfigured).toContain(variable);
  });

  it("says what it could not confirm in whole sentences", () => {
    for (const sentence of provider.unconfirmed ?? []) expect(sentence).toMatch(/^[A-Z0-9"'(].*[.)]$/s);
  });
});
