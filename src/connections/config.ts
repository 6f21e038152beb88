import { ToolsError } from "../core/errors.js";
import type { AuthScheme } from "../credentials/auth-schemes.js";
import type { ConnectionInput, Toolkit } from "../toolkits/define.js";
import { describeRule, filledNames, inputType, inputValueProblem, isOptional, placeholdersOf } from "../toolkits/inputs.js";

/** What a config value may be: one DNS label, so that a templated host can never point elsewhere. */
export const CONFIG_VALUE = /^[A-Za-z0-9-]{1,63}$/;

/** The config names the provider fills itself with this scheme (from its token answer, callback or account lookups). */
export function providedNames(scheme: AuthScheme): Set<string> {
  const names = new Set(filledNames(scheme).keys());
  // A base URL path segment the credential fills (Telegram's `bot{token}`) is not an input.
  if (scheme.type !== "oauth2" && scheme.type !== "none") for (const p of scheme.placements ?? []) if (p.in === "path") names.add(p.name);
  return names;
}

/** The placeholders of the toolkit's base URLs and of the scheme's OAuth endpoints. */
function placeholders(toolkit: Toolkit, scheme: AuthScheme): Set<string> {
  const urls = [...toolkit.baseUrls];
  if (scheme.type === "oauth2") urls.push(scheme.authorizationUrl, scheme.tokenUrl, scheme.refreshUrl ?? "", scheme.revocationUrl ?? "");
  return new Set(urls.flatMap(placeholdersOf));
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
  options: { partial?: boolean; defaults?: boolean } = {},
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
      ? inputValueProblem(input, given, { inHeader: inHeaders.has(name) })
      : CONFIG_VALUE.test(given)
        ? null
        : `must be ${describeRule(undefined)}`;
    if (problem !== null)
      throw new ToolsError("invalid_request", `config.${name} is not valid: it ${problem}. Fix it and send the request again.`);
    checked[name] = input && inputType(input) === "host" ? given.toLowerCase() : given;
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
  return neededInputs(toolkit, scheme).some(({ name, input }) => !config[name] && !mayBeLeftOut(input));
}

export { describeRule } from "../toolkits/inputs.js";
