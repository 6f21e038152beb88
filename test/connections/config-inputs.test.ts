/**
 * What a connection's config must hold (src/connections/config.ts): the inputs a toolkit needs with
 * a scheme (declared inputs, then URL placeholders, without what the provider fills itself), the
 * check of a caller's config (one DNS label, the input's pattern, nothing unknown) and the rule in
 * words.
 */
import { describe, expect, it } from "vitest";
import { CONFIG_VALUE, checkConfig, describeRule, missingInputs, neededInputs, providedNames } from "../../src/connections/config.js";
import type { AuthScheme, OAuth2Scheme } from "../../src/credentials/auth-schemes.js";
import type { ConnectionInput, Toolkit } from "../../src/toolkits/define.js";

const toolkit = (baseUrls: string[], inputs: ConnectionInput[] = []) => ({ slug: "acme", baseUrls, inputs }) as unknown as Toolkit;
const oauth = (extra: Partial<OAuth2Scheme> = {}): OAuth2Scheme => ({
  type: "oauth2",
  authorizationUrl: "https://auth.example.com/authorize",
  tokenUrl: "https://auth.example.com/token",
  clientId: "c",
  scopes: [],
  ...extra,
});
const apiKey: AuthScheme = { type: "apiKey", in: "header", name: "x-api-key" };

describe("CONFIG_VALUE", () => {
  it("is one DNS label: letters, digits and dashes, 1 to 63 of them", () => {
    for (const ok of ["a", "A-z9", "x".repeat(63), "0", "-"]) expect(CONFIG_VALUE.test(ok), ok).toBe(true);
    for (const bad of ["", "x".repeat(64), "a.b", "a b", "a_b", ".a", "a.", "a/b", "ü"]) expect(CONFIG_VALUE.test(bad), bad).toBe(false);
  });
});

describe("providedNames", () => {
  it("reads an OAuth scheme's token and callback values and its lookups' values", () => {
    const scheme = oauth({
      tokenConfig: { team: "team.id" },
      callbackConfig: { shop: "shop" },
      identify: [{ url: "/me", config: { dc: "dc" } }, { url: "/you" }],
    });
    expect(providedNames(scheme)).toEqual(new Set(["team", "shop", "dc"]));
  });

  it("reads a single lookup of a typed credential, and nothing for none or without lookups", () => {
    expect(providedNames({ ...apiKey, identify: { url: "/me", config: { region: "r" } } } as AuthScheme)).toEqual(new Set(["region"]));
    expect(providedNames(apiKey)).toEqual(new Set());
    expect(providedNames({ type: "none" })).toEqual(new Set());
    expect(providedNames(oauth())).toEqual(new Set());
  });

  it("only an OAuth scheme fills values from a token answer", () => {
    expect(providedNames({ ...apiKey, tokenConfig: { a: "a" }, callbackConfig: { b: "b" } } as unknown as AuthScheme)).toEqual(new Set());
  });
});

describe("neededInputs", () => {
  it("lists declared inputs first, then placeholders of base URLs and OAuth endpoints, once each", () => {
    const kit = toolkit(
      ["https://{shop}.example.com/{api_v2}", "https://{shop}.cdn.example.com"],
      [
        { name: "region", label: "Region" },
        { name: "shop", label: "Shop" },
      ],
    );
    const scheme = oauth({
      authorizationUrl: "https://{tenant}.auth.example.com/a",
      tokenUrl: "https://{tok}.auth.example.com/t",
      refreshUrl: "https://{ref}.auth.example.com/r",
      revocationUrl: "https://{rev}.auth.example.com/v",
    });
    const needed = neededInputs(kit, scheme);
    expect(needed.map((n) => n.name)).toEqual(["region", "shop", "api_v2", "tenant", "tok", "ref", "rev"]);
    expect(needed[1]).toEqual({ name: "shop", input: { name: "shop", label: "Shop" } });
    expect(needed[2]).toEqual({ name: "api_v2", input: undefined });
  });

  it("leaves out what the provider fills with this scheme, but not with another", () => {
    const kit = toolkit(["https://{dc}.api.example.com"], [{ name: "dc", label: "Data centre" }]);
    expect(neededInputs(kit, oauth({ identify: { url: "/me", config: { dc: "dc" } } }))).toEqual([]);
    expect(neededInputs(kit, apiKey).map((n) => n.name)).toEqual(["dc"]);
  });

  it("a typed credential's scheme has no endpoints of its own", () => {
    expect(neededInputs(toolkit(["https://api.example.com"]), apiKey)).toEqual([]);
  });
});

/** The ToolsError a call throws: a 400 with its code, as every refusal of a config is. */
function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error("expected a refusal");
}

describe("checkConfig", () => {
  const kit = toolkit(["https://{shop}.example.com"], [{ name: "shop", label: "Shop name", pattern: "^\\p{Ll}+$", example: "acme" }]);

  it("returns the valid config to keep, as a copy", () => {
    const config = { shop: "acme" };
    const kept = checkConfig(kit, apiKey, config);
    expect(kept).toEqual(config);
    expect(kept).not.toBe(config);
  });

  it("refuses a missing or empty input, naming it, its label and its rule", () => {
    for (const config of [{}, { shop: "" }] as Record<string, string>[]) {
      expect(() => checkConfig(kit, apiKey, config)).toThrow(
        'Toolkit "acme" needs "config": { "shop": "..." }: Shop name (one DNS label: letters, digits and -, at most 63 characters, matching ^\\p{Ll}+$, e.g. "acme").',
      );
    }
  });

  it("names only the rule of a placeholder that is no declared input", () => {
    expect(() => checkConfig(toolkit(["https://{org}.example.com"]), apiKey, {})).toThrow(
      'Toolkit "acme" needs "config": { "org": "..." }: one DNS label: letters, digits and -, at most 63 characters.',
    );
  });

  it("lets an input be missing when partial, but never wrong or unknown", () => {
    expect(checkConfig(kit, apiKey, {}, { partial: true })).toEqual({});
    // An empty value is a missing one: the connect page asks for it.
    expect(checkConfig(kit, apiKey, { shop: "" }, { partial: true })).toEqual({});
    expect(() => checkConfig(kit, apiKey, { shop: "Acme" }, { partial: true })).toThrow("config.shop is not valid");
    expect(() => checkConfig(kit, apiKey, { other: "x" }, { partial: true })).toThrow("config.other is not an input");
  });

  it("refuses a value that is no DNS label, or that misses the input's pattern (read as Unicode)", () => {
    expect(() => checkConfig(kit, apiKey, { shop: "Acme" })).toThrow(
      'config.shop is not valid: it must be one DNS label: letters, digits and -, at most 63 characters, matching ^\\p{Ll}+$, e.g. "acme". Fix it and send the request again.',
    );
    expect(() => checkConfig(kit, apiKey, { shop: "a.b" })).toThrow("config.shop is not valid");
    const free = toolkit(["https://{org}.example.com"]);
    expect(() => checkConfig(free, apiKey, { org: "a.b" })).toThrow("config.org is not valid");
    expect(checkConfig(free, apiKey, { org: "A-1" })).toEqual({ org: "A-1" });
  });

  it("refuses a name that is no input, listing the inputs, or none", () => {
    expect(() => checkConfig(kit, apiKey, { shop: "acme", host: "evil" })).toThrow(
      'config.host is not an input of toolkit "acme" (its inputs: shop); remove it.',
    );
    expect(() => checkConfig(toolkit(["https://api.example.com"]), apiKey, { host: "evil" })).toThrow(
      'config.host is not an input of toolkit "acme" (its inputs: none); remove it.',
    );
    const two = toolkit(["https://{a}.{b}.example.com"]);
    expect(() => checkConfig(two, apiKey, { a: "x", b: "y", c: "z" })).toThrow("(its inputs: a, b)");
  });

  it("refuses each way with the code invalid_request", () => {
    expect(refusal(() => checkConfig(kit, apiKey, {})).code).toBe("invalid_request");
    expect(refusal(() => checkConfig(kit, apiKey, { shop: "a.b" })).code).toBe("invalid_request");
    expect(refusal(() => checkConfig(kit, apiKey, { shop: "acme", x: "y" })).code).toBe("invalid_request");
  });

  it("refuses a value the provider fills itself", () => {
    const filled = toolkit(["https://{dc}.api.example.com"]);
    expect(() => checkConfig(filled, oauth({ tokenConfig: { dc: "dc" } }), { dc: "us1" })).toThrow("config.dc is not an input");
  });
});

describe("describeRule", () => {
  it("says the label rule, then the pattern and the example when there are some", () => {
    const label = "one DNS label: letters, digits and -, at most 63 characters";
    expect(describeRule(undefined)).toBe(label);
    expect(describeRule({ name: "a", label: "A" })).toBe(label);
    expect(describeRule({ name: "a", label: "A", pattern: "^x$" })).toBe(`${label}, matching ^x$`);
    expect(describeRule({ name: "a", label: "A", example: "x" })).toBe(`${label}, e.g. "x"`);
  });
});

describe("inputs with a default, and host inputs", () => {
  const hosts = ["login.example.com", "*.my.example.com"];
  const loginHost: ConnectionInput = { name: "loginHost", label: "Login host", type: "host", hosts, default: "login.example.com" };
  const hostKit = toolkit(["https://api.example.com"], [loginHost]);
  const hostOauth = oauth({ authorizationUrl: "https://{loginHost}/authorize", tokenUrl: "https://{loginHost}/token" });
  const region: ConnectionInput = { name: "region", label: "Region", default: "eu" };

  it("describes a host input by its hosts, and its default when it has one", () => {
    expect(describeRule(loginHost)).toBe(
      "one of these hosts, * being one DNS label: login.example.com, *.my.example.com (default login.example.com)",
    );
    expect(describeRule({ ...loginHost, default: undefined })).toBe(
      "one of these hosts, * being one DNS label: login.example.com, *.my.example.com",
    );
    expect(describeRule({ name: "h", label: "H", type: "host" })).toBe("one of these hosts, * being one DNS label: ");
  });

  it("fills a missing or empty input with its default, and lower-cases a given host", () => {
    expect(checkConfig(hostKit, hostOauth, {})).toEqual({ loginHost: "login.example.com" });
    expect(checkConfig(hostKit, hostOauth, { loginHost: "" })).toEqual({ loginHost: "login.example.com" });
    expect(checkConfig(hostKit, hostOauth, { loginHost: "ACME.My.Example.com" })).toEqual({ loginHost: "acme.my.example.com" });
    expect(checkConfig(toolkit(["https://{region}.example.com"], [region]), apiKey, {})).toEqual({ region: "eu" });
    // A label input keeps its case: only hosts are case-blind.
    expect(checkConfig(toolkit(["https://{region}.example.com"], [region]), apiKey, { region: "US" })).toEqual({ region: "US" });
  });

  it("refuses a host outside the list, naming the input and its hosts", () => {
    expect(() => checkConfig(hostKit, hostOauth, { loginHost: "evil.example" })).toThrow(
      "config.loginHost is not valid: it must be one of these hosts, * being one DNS label: login.example.com, *.my.example.com (default login.example.com).",
    );
  });

  it("asks for inputs only when one has neither a value nor a default", () => {
    const both = toolkit(["https://{shop}.example.com"], [{ name: "shop", label: "Shop" }, loginHost]);
    expect(missingInputs(hostKit, hostOauth, {})).toBe(false);
    expect(missingInputs(both, hostOauth, {})).toBe(true);
    expect(missingInputs(both, hostOauth, { shop: "acme" })).toBe(false);
    expect(missingInputs(both, hostOauth, { shop: "" })).toBe(true);
    expect(missingInputs(toolkit(["https://api.example.com"]), apiKey, {})).toBe(false);
    // A placeholder that is no declared input has no default.
    expect(missingInputs(toolkit(["https://{org}.example.com"]), apiKey, {})).toBe(true);
  });
});
