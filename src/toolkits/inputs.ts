/**
 * Connection inputs: the values a connection is made with besides its credential (a subdomain, a
 * region, a tenant), their kinds and rules. A toolkit's inputs are checked here once when it is
 * defined, and each value a caller or a person sends is checked here when a connection is made.
 *
 * Where a value may go decides its kind's rule. A `label` or an `enum` value may fill a URL
 * template (an enum's values are checked against every place they fill when the toolkit is
 * defined); a `host` fills only an OAuth endpoint's whole host; a `text` value never fills a URL
 * (free text in a path or a host would let a connection choose where requests go), only a header
 * template, a tool's request or what tools read from the connection's config.
 */
import type { AuthScheme, ValueRule } from "../credentials/auth-schemes.js";
import { fillBaseUrl } from "../outbound/url-policy.js";
import { hostPatternProblem, matchesHostPattern } from "./host-input.js";
import { linearPattern } from "./patterns.js";

/**
 * A value a connection needs before it can be made (a shop, a subdomain, a tenant, a region),
 * sent as `POST /auth { config: { name: value } }` and used in the toolkit's URL templates as
 * `{name}`, in its header templates, and by its tools (`ctx.connection.params`).
 */
export interface ConnectionInput {
  name: string;
  /** What a person is asked, e.g. "Shop name". */
  label: string;
  description?: string;
  /** A regular expression the whole value must match, e.g. `^[a-z0-9][a-z0-9-]*$` (label, host and text inputs). */
  pattern?: string;
  example?: string;
  /**
   * `label` (the default): one DNS label, filling a URL template's subdomain or path segment.
   * `host`: a whole host name, one of `hosts`; it fills an OAuth endpoint written
   * `https://{name}/...` (Salesforce's login host: production, a sandbox or a My Domain).
   * `origin`: a whole `https://host[:port]` origin (self-managed instances).
   * `enum`: one of `values` (a region, an edition), shown as a choice.
   * `text`: free text on one line, at most `maxLength` characters; it never fills a URL.
   */
  type?: InputType;
  /** For a `host` input: the hosts a connection may name, a `*` label standing for one DNS label (`*.my.salesforce.com`). */
  hosts?: string[];
  /** For an `enum` input: the values it may take, in the order a person sees them. */
  values?: string[];
  /** For a `text` input: the longest value, in characters (default 256, at most 1024). */
  maxLength?: number;
  /** Whether a connection may leave it out (it then has no such value). An input with a `default` is optional. */
  optional?: boolean;
  /** The value a connection that leaves the input out gets, shown in its config; such an input is optional. */
  default?: string;
  /**
   * Set when the provider fills the value rather than a person: `token` from the token answer or
   * the sign-in's redirect (`tokenConfig`, `callbackConfig`), `lookup` from an account lookup
   * (`identify.config`). Every way to connect must fill it so; it is never asked for.
   */
  from?: "token" | "lookup";
}

/** The kinds of input. */
export type InputType = "label" | "host" | "origin" | "enum" | "text";

/** A text input's longest value when it names none, and the most it may name. */
export const TEXT_MAX_LENGTH = { default: 256, limit: 1024 } as const;

const LABEL = /^[A-Za-z0-9-]{1,63}$/;
// C0 and C1 controls, DEL, and the Unicode line and paragraph separators: a value stays on one line.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// What fetch sends in a header value: visible ASCII, space, tab and Latin-1.
const HEADER_VALUE = /^[\t\x20-\x7e\xa0-\xff]*$/;
const PLACEHOLDER = /\{([A-Za-z0-9_]+)\}/g;

/** An input's kind, `label` when it names none. */
export function inputType(input: Pick<ConnectionInput, "type">): InputType {
  return input.type ?? "label";
}

/** Whether a connection may leave the input out: it is optional, has a default, or the provider fills it. */
export function isOptional(input: Pick<ConnectionInput, "optional" | "default">): boolean {
  return input.optional === true || input.default !== undefined;
}

/**
 * Why `value` is not a value of the input, as the end of a sentence ("must be one of: us, eu"),
 * or null when it is. `inHeader`: the value fills a header template, so it must be a header value.
 */
export function inputValueProblem(input: ConnectionInput, value: string, options: { inHeader?: boolean } = {}): string | null {
  const rule = `must be ${describeRule(input)}`;
  switch (inputType(input)) {
    case "host":
      if (!matchesHostPattern(value.toLowerCase(), input.hosts ?? [])) return rule;
      break;
    case "enum":
      return (input.values ?? []).includes(value) ? null : rule;
    case "origin":
      if (!isHttpsOrigin(value)) return rule;
      break;
    case "text": {
      const max = input.maxLength ?? TEXT_MAX_LENGTH.default;
      if (value.length === 0 || [...value].length > max) return `${rule}, 1 to ${max} characters`;
      if (CONTROL.test(value)) return `${rule}: it contains a line break or a control character`;
      if (value !== value.trim()) return `${rule}: it starts or ends with whitespace`;
      if (options.inHeader && !HEADER_VALUE.test(value))
        return `${rule}: it goes in an HTTP header, which cannot carry a character beyond Latin-1`;
      break;
    }
    default:
      if (!LABEL.test(value)) return rule;
  }
  return input.pattern === undefined || linearPattern(input.pattern).test(value) ? null : rule;
}

/** Whether a value follows an input's rule (see `inputValueProblem`). */
export function inputValueFits(input: ConnectionInput, value: string): boolean {
  return inputValueProblem(input, value) === null;
}

/** The rule an input's value follows, in words, for a 400 and a page's hint. */
export function describeRule(input: ConnectionInput | undefined): string {
  const fallback = input?.default === undefined ? "" : ` (default ${input.default})`;
  const pattern = input?.pattern ? `, matching ${input.pattern}` : "";
  const example = input?.example ? `, e.g. "${input.example}"` : "";
  switch (input && inputType(input)) {
    case "host":
      return `one of these hosts, * being one DNS label: ${(input!.hosts ?? []).join(", ")}${fallback}`;
    case "enum":
      return `one of: ${(input!.values ?? []).join(", ")}${fallback}`;
    case "origin":
      return `an origin, https://host[:port], with no path${example}`;
    case "text":
      return `text on one line${pattern}${example}${fallback}`;
    default:
      return `one DNS label: letters, digits and -, at most 63 characters${pattern}${example}${fallback}`;
  }
}

/** Whether a value is written `https://host[:port]` and nothing more. */
function isHttpsOrigin(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.protocol === "https:" && url.origin === value.replace(/\/$/, "").toLowerCase() && !url.username && !url.password;
}

/**
 * A connection's config with the default of each input it lacks: a connection made before its
 * toolkit declared an input with a default (Intercom's region) goes on working with the default.
 */
export function withInputDefaults(inputs: readonly ConnectionInput[], config: Record<string, string>): Record<string, string> {
  const missing = inputs.filter((input) => input.default !== undefined && config[input.name] === undefined);
  if (missing.length === 0) return config;
  return { ...Object.fromEntries(missing.map((input) => [input.name, input.default!])), ...config };
}

/** The config names a scheme fills itself, with where from: its token answer or redirect, or its account lookups. */
export function filledNames(scheme: AuthScheme): Map<string, "token" | "lookup"> {
  const names = new Map<string, "token" | "lookup">();
  const add = (rules: Record<string, ValueRule> | undefined, from: "token" | "lookup") => {
    for (const name of Object.keys(rules ?? {})) if (!names.has(name)) names.set(name, from);
  };
  if (scheme.type === "oauth2") {
    add(scheme.tokenConfig, "token");
    add(scheme.callbackConfig, "token");
  }
  if ("identify" in scheme && typeof scheme.identify === "object")
    for (const lookup of [scheme.identify].flat()) add(lookup.config, "lookup");
  return names;
}

/** Whether every way to connect fills the input itself, so that it is never asked for. */
export function isFilled(input: Pick<ConnectionInput, "name">, modes: readonly AuthScheme[]): boolean {
  return modes.length > 0 && modes.every((mode) => filledNames(mode).has(input.name));
}

const INPUT_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** Checks one input as declared; a TypeError names the toolkit, the input and what to change. */
export function assertInput(slug: string, input: ConnectionInput): void {
  if (!INPUT_NAME.test(input.name)) {
    throw new TypeError(`Toolkit "${slug}": input name "${input.name}" is invalid: use letters, digits and "_" (at most 64).`);
  }
  const where = `Toolkit "${slug}": input "${input.name}"`;
  const type = inputType(input);
  if (!["label", "host", "origin", "enum", "text"].includes(type))
    throw new TypeError(`${where} has type "${type}": use label, host, origin, enum or text.`);
  if (type === "host") {
    if (!input.hosts?.length) throw new TypeError(`${where} is a host input: list the hosts it may name in hosts.`);
    for (const pattern of input.hosts) {
      const problem = hostPatternProblem(pattern);
      if (problem) throw new TypeError(`${where}: host "${pattern}" ${problem}.`);
    }
  } else if (input.hosts !== undefined) {
    throw new TypeError(`${where} has hosts but is not of type "host"; remove hosts or set type "host".`);
  }
  if (type === "enum") assertValues(where, input);
  else if (input.values !== undefined)
    throw new TypeError(`${where} has values but is not of type "enum"; remove values or set type "enum".`);
  if (type === "text") {
    const max = input.maxLength ?? TEXT_MAX_LENGTH.default;
    if (!Number.isInteger(max) || max < 1 || max > TEXT_MAX_LENGTH.limit)
      throw new TypeError(`${where}: maxLength must be a whole number from 1 to ${TEXT_MAX_LENGTH.limit}.`);
  } else if (input.maxLength !== undefined) throw new TypeError(`${where} has maxLength but is not of type "text".`);
  if (input.pattern !== undefined) {
    if (type === "enum" || type === "origin") throw new TypeError(`${where} is of type "${type}", which takes no pattern; remove it.`);
    try {
      linearPattern(input.pattern);
    } catch (error) {
      throw new TypeError(`${where}: ${(error as Error).message}.`, { cause: error });
    }
  }
  if (input.from !== undefined) {
    if (input.from !== "token" && input.from !== "lookup") throw new TypeError(`${where}: from must be "token" or "lookup".`);
    if (input.default !== undefined)
      throw new TypeError(`${where} is filled by the provider (from "${input.from}"), so it has no default.`);
  }
  if (input.default !== undefined) {
    if (!inputValueFits(input, input.default))
      throw new TypeError(`${where}: its default "${input.default}" does not follow the input's own rule.`);
  }
}

function assertValues(where: string, input: ConnectionInput): void {
  const values = input.values ?? [];
  if (values.length === 0) throw new TypeError(`${where} is an enum input: list the values it may take in values.`);
  if (new Set(values).size !== values.length) throw new TypeError(`${where} lists a value twice in values.`);
  for (const value of values) {
    if (typeof value !== "string" || value.length === 0 || value.length > 253 || CONTROL.test(value) || value !== value.trim())
      throw new TypeError(`${where}: value ${JSON.stringify(value)} must be 1 to 253 characters on one line, without surrounding spaces.`);
  }
}

/** The URL templates an input may fill: the toolkit's base URLs and the scheme's OAuth endpoints. */
function urlTemplates(baseUrls: readonly string[], modes: readonly AuthScheme[]): string[] {
  const endpoints = modes.flatMap((mode) =>
    mode.type === "oauth2" ? [mode.authorizationUrl, mode.tokenUrl, mode.refreshUrl, mode.revocationUrl, mode.userInfoUrl] : [],
  );
  return [...baseUrls, ...endpoints].filter((url): url is string => url !== undefined && /^https?:\/\//i.test(url));
}

/** The placeholders a template names. */
export function placeholdersOf(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

/**
 * Checks where each input goes: a text input, or an optional one without a default, fills no URL
 * (a URL cannot be made without the value, and free text must not choose where requests go); each
 * value of an enum input fits every URL it fills; an input filled `from` the provider is filled so
 * by every way to connect.
 */
export function assertInputPlaces(
  slug: string,
  inputs: readonly ConnectionInput[],
  baseUrls: readonly string[],
  modes: readonly AuthScheme[],
): void {
  const templates = urlTemplates(baseUrls, modes);
  for (const input of inputs) {
    const where = `Toolkit "${slug}": input "${input.name}"`;
    const filling = templates.filter((url) => placeholdersOf(url).includes(input.name));
    const type = inputType(input);
    if (filling.length && type === "text")
      throw new TypeError(`${where} is free text, which never fills a URL ("${filling[0]}"); use a label or enum input there.`);
    if (filling.length && input.optional === true && input.default === undefined && input.from === undefined)
      throw new TypeError(`${where} is optional without a default, but "${filling[0]}" needs it; give it a default.`);
    if (type === "enum") {
      for (const url of filling) {
        const others = Object.fromEntries(placeholdersOf(url).map((name) => [name, "placeholder"]));
        for (const value of input.values ?? []) {
          try {
            fillBaseUrl(url, { ...others, [input.name]: value }, { wholeHost: false });
          } catch {
            throw new TypeError(`${where}: value "${value}" cannot fill "${url}"; there a value is one DNS label (or leads the host).`);
          }
        }
      }
    }
    if (input.from !== undefined) {
      const missing = modes.find((mode) => filledNames(mode).get(input.name) !== input.from);
      if (missing) {
        const source = input.from === "token" ? "tokenConfig or callbackConfig" : "identify's config";
        throw new TypeError(
          `${where} is filled from "${input.from}", but mode "${missing.mode ?? missing.type}" does not fill it in its ${source}.`,
        );
      }
    }
  }
}
