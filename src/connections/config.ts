import { ToolsError } from "../core/errors.js";
import type { AuthScheme } from "../credentials/auth-schemes.js";
import { type GrantScheme, grantTemplates, isGrantType } from "../credentials/grant-schemes.js";
import { type ConnectionInput, inputValueFits, type Toolkit } from "../toolkits/define.js";

/** What a config value may be: one DNS label, so that a templated host can never point elsewhere. */
export const CONFIG_VALUE = /^[A-Za-z0-9-]{1,63}$/;

const PLACEHOLDER = /\{([A-Za-z0-9_]+)\}/g;

/** The config names the provider fills itself with this scheme (from its token answer, callback or account lookups). */
export function providedNames(scheme: AuthScheme): Set<string> {
  const names = new Set<string>();
  const add = (rules: Record<string, unknown> | undefined) => {
    for (const name of Object.keys(rules ?? {})) names.add(name);
  };
  if (scheme.type === "oauth2") {
    add(scheme.tokenConfig);
    add(scheme.callbackConfig);
  }
  if (isGrantType(scheme.type)) add((scheme as GrantScheme).tokenConfig);
  if (scheme.type !== "none" && typeof scheme.identify === "object") for (const lookup of [scheme.identify].flat()) add(lookup.config);
  return names;
}

/** The placeholders of the toolkit's base URLs and of the scheme's OAuth endpoints. */
function placeholders(toolkit: Toolkit, scheme: AuthScheme): Set<string> {
  const urls = [...toolkit.baseUrls];
  if (scheme.type === "oauth2") urls.push(scheme.authorizationUrl, scheme.tokenUrl, scheme.refreshUrl ?? "", scheme.revocationUrl ?? "");
  const names = new Set(urls.flatMap((url) => [...url.matchAll(PLACEHOLDER)].map((m) => m[1]!)));
  for (const name of grantTemplates(scheme).inputs) names.add(name);
  return names;
}

/**
 * The inputs a connection with this scheme needs from the caller, in the toolkit's order: its
 * declared inputs, then URL placeholders, without those the provider fills itself.
 */
export function neededInputs(toolkit: Toolkit, scheme: AuthScheme): Array<{ name: string; input: ConnectionInput | undefined }> {
  const provided = providedNames(scheme);
  const inputs = new Map<string, ConnectionInput>(toolkit.inputs.map((input) => [input.name, input]));
  const names = new Set([...inputs.keys(), ...placeholders(toolkit, scheme)].filter((name) => !provided.has(name)));
  return [...names].map((name) => ({ name, input: inputs.get(name) }));
}

/**
 * Checks the config a caller sends with `POST /auth` against what the toolkit needs with this
 * scheme: every declared input and every URL placeholder the provider does not fill itself, each
 * one DNS label (a `host` input: one of its hosts) matching its input's pattern, and nothing else.
 * Errors name the input and its rule. Returns the config to keep: an input left out gets its
 * `default`, and a host is lower-cased. `partial` lets inputs without a default be missing (a
 * connect page asks for them), but not wrong or unknown.
 */
export function checkConfig(
  toolkit: Toolkit,
  scheme: AuthScheme,
  config: Record<string, string>,
  options: { partial?: boolean } = {},
): Record<string, string> {
  // An input the provider fills itself with this scheme (Mailchimp's data centre, read by its
  // OAuth lookup) is not asked for; with another scheme (an API key) it is.
  const wanted = neededInputs(toolkit, scheme);
  const needed = new Set(wanted.map((w) => w.name));
  const checked: Record<string, string> = {};
  for (const { name, input } of wanted) {
    const given = config[name];
    const rule = describeRule(input);
    if ((given === undefined || given === "") && input?.default === undefined) {
      if (options.partial) continue;
      const what = input ? `${input.label} (${rule})` : rule;
      throw new ToolsError("invalid_request", `Toolkit "${toolkit.slug}" needs "config": { "${name}": "..." }: ${what}.`);
    }
    const value = given === undefined || given === "" ? input!.default! : input?.type === "host" ? given.toLowerCase() : given;
    if (!(input ? inputValueFits(input, value) : CONFIG_VALUE.test(value))) {
      throw new ToolsError("invalid_request", `config.${name} is not valid: it must be ${rule}. Fix it and send the request again.`);
    }
    checked[name] = value;
  }
  for (const name of Object.keys(config)) {
    if (!needed.has(name)) {
      const known = [...needed].join(", ") || "none";
      throw new ToolsError(
        "invalid_request",
        `config.${name} is not an input of toolkit "${toolkit.slug}" (its inputs: ${known}); remove it.`,
      );
    }
  }
  return checked;
}

/** Whether `POST /auth` must ask for inputs before it can start OAuth: some needed input has neither a value nor a default. */
export function missingInputs(toolkit: Toolkit, scheme: AuthScheme, config: Record<string, string>): boolean {
  return neededInputs(toolkit, scheme).some(({ name, input }) => !config[name] && input?.default === undefined);
}

/** The rule an input's value follows, in words, e.g. for a page's hint. */
export function describeRule(input: ConnectionInput | undefined): string {
  if (input?.type === "host") {
    const fallback = input.default === undefined ? "" : ` (default ${input.default})`;
    return `one of these hosts, * being one DNS label: ${(input.hosts ?? []).join(", ")}${fallback}`;
  }
  const label = "one DNS label: letters, digits and -, at most 63 characters";
  const pattern = input?.pattern ? `, matching ${input.pattern}` : "";
  const example = input?.example ? `, e.g. "${input.example}"` : "";
  return `${label}${pattern}${example}`;
}
