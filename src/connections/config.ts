import { ToolsError } from "../core/errors.js";
import type { AuthScheme } from "../credentials/auth-schemes.js";
import { grantTemplates } from "../credentials/grant-schemes.js";
import { type AddressLookup, hostProblem } from "../outbound/guarded-fetch.js";
import type { ConnectionInput, Toolkit } from "../toolkits/define.js";
import { describeRule, filledNames, inputType, inputValueProblem, isOptional, placeholdersOf } from "../toolkits/inputs.js";

/** What a config value may be: one DNS label, so that a templated host can never point elsewhere. */
export const CONFIG_VALUE = /^[A-Za-z0-9-]{1,63}$/;

/** The config names the provider fills itself with this scheme (from its token answer, callback or account lookups). */
export function providedNames(scheme: AuthScheme): Set<string> {
  const names = new Set(filledNames(scheme).keys());
  // A base URL path segment the credential fills (Telegram's `bot{token}`) is not an input.
  if ("placements" in scheme) for (const p of scheme.placements ?? []) if (p.in === "path") names.add(p.name);
  return names;
}

/** The placeholders of the toolkit's base URLs and of the scheme's OAuth endpoints. */
function placeholders(toolkit: Toolkit, scheme: AuthScheme): Set<string> {
  const urls = [...toolkit.baseUrls];
  if (scheme.type === "oauth2") urls.push(scheme.authorizationUrl, scheme.tokenUrl, scheme.refreshUrl ?? "", scheme.revocationUrl ?? "");
  const names = new Set(urls.flatMap(placeholdersOf));
  for (const name of grantTemplates(scheme).inputs) names.add(name);
  return names;
}

/**
 * The inputs a connection with this scheme takes from the caller, in the toolkit's order: its
 * declared inputs, then URL placeholders, without those the provider fills itself.
 */
export function neededInputs(toolkit: Toolkit, scheme: AuthScheme): Array<{ name: string; input: ConnectionInput | undefined }> {
  const provided = providedNames(scheme);
  const inputs = new Map<string, ConnectionInput>(toolkit.inputs.map((input) => [input.name, input]));
  const names = new Set([...inputs.keys(), ...placeholders(toolkit, scheme)].filter((name) => !provided.has(name)));
  return [...names].map((name) => ({ name, input: inputs.get(name) }));
}

/** Whether a value left out is no error: the input is optional or has a default. */
const mayBeLeftOut = (input: ConnectionInput | undefined) => input !== undefined && isOptional(input);

/**
 * Checks the config a caller sends with `POST /auth` against what the toolkit takes with this
 * scheme: every declared input and every URL placeholder the provider does not fill itself, each
 * following its input's rule (`inputValueProblem`; an undeclared placeholder: one DNS label), and
 * nothing else. Errors name the input and its rule (an enum's: its values). Returns the config to
 * keep: an input left out gets its `default` (an optional one without a default stays out), and a
 * host is lower-cased. `partial` lets inputs without a default be missing (a connect page asks
 * for them), but not wrong or unknown; with `defaults: false`, defaults are not applied yet (the
 * page offers them as the choice made).
 */
export function checkConfig(
  toolkit: Toolkit,
  scheme: AuthScheme,
  config: Record<string, string>,
  options: { partial?: boolean; defaults?: boolean; allowPrivateNetworks?: boolean } = {},
): Record<string, string> {
  // An input the provider fills itself with this scheme (Mailchimp's data centre, read by its
  // OAuth lookup) is not asked for; with another scheme (an API key) it is.
  const wanted = neededInputs(toolkit, scheme);
  const needed = new Set(wanted.map((w) => w.name));
  const inHeaders = new Set(Object.values(toolkit.headers ?? {}).flatMap(placeholdersOf));
  const checked: Record<string, string> = {};
  for (const { name, input } of wanted) {
    const given = config[name];
    if (given === undefined || given === "") {
      if (input?.default !== undefined && options.defaults !== false) checked[name] = input.default;
      else if (!mayBeLeftOut(input) && !options.partial) {
        const rule = describeRule(input);
        const what = input ? `${input.label} (${rule})` : rule;
        throw new ToolsError("invalid_request", `Toolkit "${toolkit.slug}" needs "config": { "${name}": "..." }: ${what}.`);
      }
      continue;
    }
    const problem = input
      ? inputValueProblem(input, given, { inHeader: inHeaders.has(name), allowPrivateNetworks: options.allowPrivateNetworks })
      : CONFIG_VALUE.test(given)
        ? null
        : `must be ${describeRule(undefined)}`;
    if (problem !== null)
      throw new ToolsError("invalid_request", `config.${name} is not valid: it ${problem}. Fix it and send the request again.`);
    const type = input && inputType(input);
    checked[name] = type === "host" ? given.toLowerCase() : type === "origin" ? originOf(given) : given;
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
  return neededInputs(toolkit, scheme).some(({ name, input }) => !config[name] && !mayBeLeftOut(input));
}

export { describeRule } from "../toolkits/inputs.js";
