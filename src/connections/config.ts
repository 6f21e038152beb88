import { ToolsError } from "../core/errors.js";
import type { AuthScheme } from "../credentials/auth-schemes.js";
import { type AddressLookup, hostProblem } from "../outbound/guarded-fetch.js";
import { originProblem } from "../outbound/origin-policy.js";
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
  if (scheme.type !== "none" && typeof scheme.identify === "object") for (const lookup of [scheme.identify].flat()) add(lookup.config);
  return names;
}

/** The placeholders of the toolkit's base URLs and of the scheme's OAuth endpoints. */
function placeholders(toolkit: Toolkit, scheme: AuthScheme): Set<string> {
  const urls = [...toolkit.baseUrls];
  if (scheme.type === "oauth2") urls.push(scheme.authorizationUrl, scheme.tokenUrl, scheme.refreshUrl ?? "", scheme.revocationUrl ?? "");
  return new Set(urls.flatMap((url) => [...url.matchAll(PLACEHOLDER)].map((m) => m[1]!)));
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
  options: { partial?: boolean; allowPrivateNetworks?: boolean } = {},
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
    const value =
      given === undefined || given === ""
        ? input!.default!
        : input?.type === "host"
          ? given.toLowerCase()
          : input?.type === "origin"
            ? originOf(given)
            : given;
    // An origin's own rule says what is wrong with it (https only, no path...), under the handler's policy.
    const originRule = input?.type === "origin" ? originProblem(value, { allowPrivateNetworks: options.allowPrivateNetworks }) : undefined;
    if (originRule) throw new ToolsError("invalid_request", `config.${name} is not valid: it must be ${originRule}.`);
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

/** An origin input's value with ASCII case folded and one trailing `/` cut (`HTTPS://Git.Example.com/` → `https://git.example.com`). */
function originOf(value: string): string {
  return value.replace(/[A-Z]/g, (c) => c.toLowerCase()).replace(/^([a-z]+:\/\/[^/?#]*)\/$/, "$1");
}

/**
 * Applies the handler's address policy to the connection's origin inputs, after
 * `checkConfig` checked their shape under the same policy (https only, no IP literal, a public
 * name): every address the name resolves to must be public. With `allowPrivateNetworks` nothing is
 * checked. Throws a 400 naming the input; never says which address a name resolved to.
 */
export async function checkOrigins(
  toolkit: Toolkit,
  config: Record<string, string>,
  policy: { allowPrivateNetworks: boolean; lookup: AddressLookup },
): Promise<void> {
  for (const input of toolkit.inputs) {
    const value = config[input.name];
    if (input.type !== "origin" || value === undefined || policy.allowPrivateNetworks) continue;
    const why = await hostProblem(new URL(value).hostname, policy.lookup);
    if (why) {
      throw new ToolsError(
        "invalid_request",
        `config.${input.name} is not allowed: its host ${why}, and connections may only name public hosts. Give the origin of a public server.`,
      );
    }
  }
}

/** Whether `POST /auth` must ask for inputs before it can start OAuth: some needed input has neither a value nor a default. */
export function missingInputs(toolkit: Toolkit, scheme: AuthScheme, config: Record<string, string>): boolean {
  return neededInputs(toolkit, scheme).some(({ name, input }) => !config[name] && input?.default === undefined);
}

/** The rule an input's value follows, in words, e.g. for a page's hint. */
export function describeRule(input: ConnectionInput | undefined): string {
  if (input?.type === "origin") {
    const fallback = input.default === undefined ? "" : ` (default ${input.default})`;
    return `the server's origin, https://host[:port] with no path, e.g. "${input.example ?? "https://git.example.com"}"${fallback}`;
  }
  if (input?.type === "host") {
    const fallback = input.default === undefined ? "" : ` (default ${input.default})`;
    return `one of these hosts, * being one DNS label: ${(input.hosts ?? []).join(", ")}${fallback}`;
  }
  const label = "one DNS label: letters, digits and -, at most 63 characters";
  const pattern = input?.pattern ? `, matching ${input.pattern}` : "";
  const example = input?.example ? `, e.g. "${input.example}"` : "";
  return `${label}${pattern}${example}`;
}
