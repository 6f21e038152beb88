import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as simpleIcons from "simple-icons";
import { describe, expect, it } from "vitest";
import { catalogToolkit, type ProviderDefinition, providers } from "../../src/catalog/index.js";
import { providerSchema } from "../../src/catalog/provider.js";
import { providerFiles } from "../../src/catalog/providers/index.js";
import { ownFieldNames } from "../../src/credentials/placements.js";
import { inputValueFits, oauthEndpointUnderOrigin } from "../../src/toolkits/define.js";

// Generic checks on every provider data file: each new file is held to them by being listed.

const directory = join(dirname(fileURLToPath(import.meta.url)), "../../src/catalog/providers");
const jsonFiles = readdirSync(directory)
  .filter((name) => name.endsWith(".json"))
  .sort();
const raw = (file: string): Record<string, unknown> => JSON.parse(readFileSync(join(directory, file), "utf8"));

const VOCABULARY = new Set(
  (
    "email calendar files documents spreadsheets chat crm sales support tickets project-management issues developer-tools code " +
    "design marketing payments accounting ecommerce social video scheduling forms signatures incident-management ai search sms " +
    "notes knowledge-base databases website analytics productivity communication hr monitoring advertising seo education " +
    "maps music recruiting finance infrastructure hosting surveys cms data-enrichment voice learning"
  ).split(" "),
);
const ICON_SLUGS = new Set<string>(Object.values(simpleIcons).map((icon) => icon.slug));
// Placeholders the engine fills itself in revocation requests (see RevocationRequest).
const ENGINE_PLACEHOLDERS = new Set(["accessToken", "refreshToken", "clientId"]);
/** What the engine fills in a request of its own: a revocation's placeholders, and the client's secret in a token request. */
const filledByEngine = (path: string, name: string) =>
  (/revocation/.test(path) && ENGINE_PLACEHOLDERS.has(name)) ||
  (/tokenUpgrade|refreshRequest/.test(path) && (ENGINE_PLACEHOLDERS.has(name) || name === "clientSecret"));

type Mode = ProviderDefinition["auth"][number];
type Lookup = { url: string; config?: Record<string, unknown> };

const lookups = (mode: Mode): Lookup[] => ("identify" in mode && mode.identify ? [mode.identify as Lookup | Lookup[]].flat() : []);

/** Every string in a JSON value, with its path. */
function strings(value: unknown, path = ""): Array<[string, string]> {
  if (typeof value === "string") return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((item, i) => strings(item, `${path}[${i}]`));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([key, item]) => strings(item, path ? `${path}.${key}` : key));
  }
  return [];
}

/** Names a connection's config can hold: its inputs, and values read from token answers and lookups. */
function configNames(provider: ProviderDefinition): Set<string> {
  const names = new Set((provider.inputs ?? []).map((input) => input.name));
  for (const mode of provider.auth) {
    if (mode.type === "oauth2") for (const name of Object.keys({ ...mode.tokenConfig, ...mode.callbackConfig })) names.add(name);
    // A token grant's answer values, and the fields a person types for its request's templates.
    if (mode.type === "clientCredentials" || mode.type === "tokenExchange") {
      for (const name of Object.keys(mode.tokenConfig ?? {})) names.add(name);
      for (const field of mode.fields ?? []) names.add(field.name);
    }
    for (const lookup of lookups(mode)) for (const name of Object.keys(lookup.config ?? {})) names.add(name);
    // Beside a token (OAuth 2, token grants), placements name the deployer's values and the client's id.
    if ("placements" in mode && mode.type !== "apiKey" && mode.type !== "bearer" && mode.type !== "basic") {
      for (const value of mode.values ?? []) names.add(value.name);
      if (mode.placements) names.add("clientId");
    }
    // A credential's own fields, its further secrets and the deployer's values fill placement templates and path segments.
    if (mode.type === "apiKey" || mode.type === "bearer" || mode.type === "basic") {
      for (const name of [...ownFieldNames(mode.type), ...(mode.fields ?? []), ...(mode.values ?? [])].map((f) =>
        typeof f === "string" ? f : f.name,
      ))
        names.add(name);
    }
  }
  return names;
}

describe("the provider list", () => {
  it("lists every data file in the directory, and nothing else", () => {
    const index = readFileSync(join(directory, "index.ts"), "utf8");
    const imported = [...index.matchAll(/from "\.\/([^"]+\.json)"/g)].map((match) => match[1]).sort();
    expect(imported).toEqual(jsonFiles);
    expect(providerFiles).toHaveLength(jsonFiles.length);
    expect(providers.map((provider) => `${provider.slug}.json`).sort()).toEqual(jsonFiles);
  });

  it("names each file after its slug, and no slug twice", () => {
    for (const file of jsonFiles) expect(`${raw(file).slug}.json`).toBe(file);
    const slugs = providers.map((provider) => provider.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
  });

  it("keeps the providers in slug order", () => {
    const slugs = providers.map((provider) => provider.slug);
    expect(slugs).toEqual([...slugs].sort());
  });
});

describe.each(jsonFiles)("%s", (file) => {
  const document = raw(file);
  const provider = providers.find((entry) => entry.slug === document.slug)!;

  it("parses with providerSchema and is listed in providers/index.ts", () => {
    expect(provider, "listed in src/catalog/providers/index.ts").toBeDefined();
    const parsed = providerSchema.safeParse(document);
    expect(parsed.success ? "" : parsed.error.message).toBe("");
  });

  it("uses https for every URL it gives", () => {
    const insecure = strings(document).filter(([, value]) => /^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !value.startsWith("https://"));
    expect(insecure).toEqual([]);
  });

  it("cites its documentation and sources", () => {
    expect(provider.docsUrl).toMatch(/^https:\/\//);
    expect(provider.sources.length).toBeGreaterThan(0);
  });

  it("uses only categories of the vocabulary", () => {
    expect(provider.categories.filter((category) => !VOCABULARY.has(category))).toEqual([]);
  });

  it("names a simple-icons icon only when simple-icons has it", () => {
    if (provider.icon !== undefined) expect(ICON_SLUGS.has(provider.icon), `simple-icons has no "${provider.icon}"`).toBe(true);
  });

  it("asks for scopes and identifies the account in every OAuth mode, or says why not", () => {
    const notes = (provider.unconfirmed ?? []).join("\n");
    for (const mode of provider.auth) {
      if (mode.type !== "oauth2") continue;
      if (mode.scopes.length === 0) expect(notes, "an OAuth mode without scopes says why").toMatch(/scope/i);
      if (!mode.userInfoUrl && lookups(mode).length === 0) expect(notes).toMatch(/identify lookup|who-am-I/i);
    }
  });

  it("gives API paths relative to the base URL as paths starting with /", () => {
    for (const mode of provider.auth) {
      const urls = [...lookups(mode).map((lookup) => lookup.url)];
      if (mode.type === "oauth2") urls.push(...[mode.revocation?.url, mode.refreshUrl].filter((url): url is string => !!url));
      for (const url of urls) expect(url.startsWith("/") || url.startsWith("https://"), url).toBe(true);
    }
  });

  it("fills every {placeholder} from an input, a value the connection keeps, or the engine", () => {
    const known = configNames(provider);
    const unknown = strings(document)
      .flatMap(([path, value]) => [...value.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((match) => [path, match[1]!] as const))
      .filter(([path, name]) => !known.has(name) && !filledByEngine(path, name))
      .filter(([path]) => !path.startsWith("inputs") && !path.startsWith("unconfirmed") && !path.startsWith("description"));
    expect(unknown).toEqual([]);
  });

  it("gives each connection input a pattern (a host input: its hosts) that its example and default follow", () => {
    for (const input of provider.inputs ?? []) {
      if (input.type === "host") expect(input.hosts?.length, input.name).toBeGreaterThan(0);
      else if (input.type === "enum") expect(input.values?.length, input.name).toBeGreaterThan(0);
      // An origin input's rule is the origin policy (https, public host), not a pattern.
      else if (input.type !== "origin") expect(input.pattern, input.name).toBeDefined();
      for (const value of [input.example, input.default]) if (value !== undefined) expect(inputValueFits(input, value), value).toBe(true);
    }
  });

  const deployerValues = provider.auth.flatMap((mode) => ("values" in mode ? (mode.values ?? []) : []));

  it("builds a toolkit with a deployer's client", () => {
    const values = Object.fromEntries(deployerValues.map((value) => [value.name, "deployer-value"]));
    const toolkit = catalogToolkit(provider.slug, { clientId: "id", clientSecret: "secret", values, env: {} });
    expect(toolkit.slug).toBe(provider.slug);
    expect(toolkit.authModes.map((mode) => mode.type)).toEqual(provider.auth.map((mode) => mode.type));
    for (const mode of toolkit.authModes) {
      if (mode.type !== "oauth2") continue;
      expect(mode.clientId).toBe("id");
      // OAuth on the server a connection names takes a public client: given a secret, it says to unset it.
      if (oauthEndpointUnderOrigin(mode)) {
        expect(mode.unconfigured).toContain("takes a public client");
        const publicClient = catalogToolkit(provider.slug, { clientId: "id" }).authModes.find((m) => m.type === "oauth2");
        expect(publicClient && "unconfigured" in publicClient).toBe(false);
      } else expect(mode.unconfigured).toBeUndefined();
    }
  });
});

/** Providers whose modes send a deployer's value (Trello's app key, Google Ads' developer token). */
const withDeployerValues = providers.filter((provider) => provider.auth.some((mode) => "values" in mode && (mode.values ?? []).length > 0));

it("several providers send deployer values (the table below is not empty)", () => {
  expect(withDeployerValues.map((provider) => provider.slug)).toEqual(
    expect.arrayContaining(["blackbaud", "etsy", "google-ads", "trello"]),
  );
});

describe.each(withDeployerValues.map((provider) => provider.slug))("%s, without its deployer values", (slug) => {
  const provider = providers.find((entry) => entry.slug === slug)!;
  it("names the variable of each deployer value it lacks, in the mode that sends it", () => {
    const toolkit = catalogToolkit(provider.slug, { clientId: "id", clientSecret: "secret", env: {} });
    provider.auth.forEach((mode, index) => {
      const sent = "values" in mode ? (mode.values ?? []) : [];
      const said = (toolkit.authModes[index] as { unconfigured?: string }).unconfigured ?? "";
      for (const value of sent) expect(said).toContain(value.env ?? value.name);
    });
  });
});

describe("providers that share an OAuth client", () => {
  const groups = new Map<string, ProviderDefinition[]>();
  for (const provider of providers) {
    if (provider.clientOf) groups.set(provider.clientOf, [...(groups.get(provider.clientOf) ?? []), provider]);
  }

  it.each([...groups.keys()])("%s: use the same authorization server", (client) => {
    const endpoints = groups.get(client)!.map((provider) => {
      const mode = provider.auth.find((entry) => entry.type === "oauth2");
      return mode?.type === "oauth2" ? [mode.authorizationUrl, mode.tokenUrl, mode.revocationUrl] : [];
    });
    for (const each of endpoints) expect(each).toEqual(endpoints[0]);
  });

  it.each([...groups.keys()])("%s: not configured, point at the shared client's variables", (client) => {
    const variable = `TOOLS_PROXY_${client.toUpperCase().replace(/-/g, "_")}_CLIENT_ID`;
    for (const provider of groups.get(client)!) {
      const mode = catalogToolkit(provider.slug).authModes.find((entry) => entry.type === "oauth2");
      expect(mode?.type === "oauth2" ? mode.unconfigured : "").toContain(variable);
    }
  });
});
