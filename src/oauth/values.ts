import type { HandlerContext } from "../context/context.js";
import type { AccountLookup, AuthScheme, Credential, ValueRule } from "../credentials/auth-schemes.js";
import { fillPathPlacements } from "../credentials/placements.js";
import { fillWholeHosts } from "../outbound/fetch.js";
import { applyCredentialQuery, buildUpstreamHeaders, credentialValues } from "../outbound/headers.js";
import { fillBaseUrl } from "../outbound/url-policy.js";
import type { Toolkit } from "../toolkits/define.js";
import { matchesHostPattern } from "../toolkits/host-input.js";
import { linearPattern } from "../toolkits/patterns.js";
import { BodyTooLargeError, readBytes } from "../util/bytes.js";

/** The value at a dotted path (`team.id`, `0.id`) of a JSON value, or undefined. */
export function readPath(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split(".")) {
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A failure to read a value a definition asks for; its message names the value, never the answer. */
export class ValueError extends Error {}

/**
 * What a value the provider names may be: one DNS label, or several dot-separated (Salesforce's
 * sandbox instance `acme--dev.sandbox`), which `fillBaseUrl` accepts only where a placeholder
 * begins a host, the labels after it fixed; anywhere else it is refused when the URL is filled.
 */
const PROVIDED_VALUE = /^(?=.{1,253}$)[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*$/;

/**
 * Reads the config values `rules` name from `source` (a token answer, a callback's query, a
 * lookup's answer). A value must be a string or a number, match the rule's pattern (its first
 * capture group is kept) and be DNS labels (`PROVIDED_VALUE`), else the connection cannot be made.
 */
export function readValues(source: unknown, rules: Record<string, ValueRule> | undefined, where: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, rule] of Object.entries(rules ?? {})) {
    const path = typeof rule === "string" ? rule : rule.path;
    const found = readPath(source, path);
    let value = typeof found === "string" || typeof found === "number" ? String(found) : undefined;
    if (value !== undefined && typeof rule !== "string") {
      // Compiled when the toolkit was defined; RE2 matches it in time linear in the provider's value.
      const match = linearPattern(rule.pattern).exec(value);
      value = match ? (match[1] ?? match[0]) : undefined;
    }
    if (value === undefined || !PROVIDED_VALUE.test(value)) {
      throw new ValueError(`The provider's ${where} did not hold a usable "${path}", which this toolkit needs as "${name}".`);
    }
    values[name] = value;
  }
  return values;
}

/**
 * A URL a definition gives for one of its own requests: a path (`/user`) under the toolkit's first
 * base URL, or an absolute URL; `{placeholders}` filled from the connection's config.
 */
export function definitionUrl(toolkit: Pick<Toolkit, "baseUrls">, url: string, config: Record<string, string>): string {
  const absolute = url.startsWith("/") ? toolkit.baseUrls[0]!.replace(/\/+$/, "") + url : url;
  return absolute.includes("{") ? fillBaseUrl(absolute, config) : absolute;
}

/**
 * The toolkit's default headers with `{placeholders}` filled from the connection's config (Xero's
 * `xero-tenant-id: {tenantId}`); a header whose value is not known yet is left out.
 */
export function fillHeaders(headers: Record<string, string>, config: Record<string, string>): Record<string, string> {
  const filled: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    let known = true;
    const text = value.replace(/\{([A-Za-z0-9_]+)\}/g, (_, key: string) => {
      if (config[key] === undefined) known = false;
      return config[key] ?? "";
    });
    if (known) filled[name] = text;
  }
  return filled;
}

/** The largest "who am I" answer read. */
const MAX_LOOKUP_BYTES = 1024 * 1024;

/**
 * Runs the scheme's "who am I" requests in order with the new credential, each sent the way the
 * toolkit sends it (placement, default headers). Returns the account (`remoteUser`, the last one
 * named) and the config values read. A 401 or 403 answer means the provider refused the
 * credential (`refused: true`); any other failure throws `ValueError`.
 */
export async function runLookups(
  ctx: HandlerContext,
  toolkit: Toolkit,
  scheme: AuthScheme,
  credential: Credential,
  lookups: AccountLookup | AccountLookup[] | undefined,
  config: Record<string, string>,
): Promise<{ remoteUser?: string; config: Record<string, string>; refused?: boolean }> {
  const found: Record<string, string> = {};
  let remoteUser: string | undefined;
  // The credential's path placements (Telegram's bot{token}) are part of the base its lookups go under.
  const placed = {
    baseUrls: fillWholeHosts(toolkit.baseUrls, hostValues(toolkit, config)).map((base) =>
      fillPathPlacements(base, credentialValues(scheme, credential)),
    ),
  };
  for (const lookup of [lookups ?? []].flat()) {
    const url = applyCredentialQuery(new URL(definitionUrl(placed, lookup.url, { ...config, ...found })), scheme, credential);

    const values = { ...config, ...found };
    const json: Record<string, string> = lookup.body === undefined ? {} : { "content-type": "application/json" };
    const headers = buildUpstreamHeaders(
      { accept: "application/json", ...json, ...lookup.headers },
      scheme,
      credential,
      fillHeaders(toolkit.headers, values),
    );
    const response = await ctx.fetch(url, {
      method: lookup.method ?? (lookup.body === undefined ? "GET" : "POST"),
      headers,
      ...(lookup.body === undefined ? {} : { body: JSON.stringify(lookup.body) }),
      signal: AbortSignal.timeout(ctx.timeouts.proxyMs),
    });
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel().catch(() => {});
      return { config: found, refused: true };
    }
    let answer: unknown;
    try {
      answer = JSON.parse(new TextDecoder().decode(await readBytes(response.body, MAX_LOOKUP_BYTES)));
    } catch (error) {
      if (error instanceof BodyTooLargeError || error instanceof SyntaxError) answer = undefined;
      else throw error;
    }
    const slackStyleFailure = (answer as { ok?: unknown } | undefined)?.ok === false;
    if (!response.ok || answer === undefined || slackStyleFailure) {
      if (
        slackStyleFailure &&
        /invalid_auth|not_authed|token_revoked|account_inactive/.test(String((answer as { error?: unknown }).error))
      ) {
        return { config: found, refused: true };
      }
      throw new ValueError(`The provider's account request answered ${response.status} without the expected JSON.`);
    }
    Object.assign(found, readValues(answer, lookup.config, "account answer"));
    if (lookup.remoteUser) {
      const value = readPath(answer, lookup.remoteUser);
      if (typeof value !== "string" && typeof value !== "number") {
        throw new ValueError(`The provider's account answer has no "${lookup.remoteUser}" naming the account.`);
      }
      remoteUser = String(value);
    }
  }
  return { ...(remoteUser !== undefined ? { remoteUser } : {}), config: found };
}

/**
 * The values of the toolkit's `host` inputs in `config` that are one of the input's hosts (Wrike's
 * `host` from its token answer, checked again here), for base URLs written `https://{host}/...`.
 */
export function hostValues(toolkit: Pick<Toolkit, "inputs">, config: Record<string, string>): Record<string, string> {
  const hosts: Record<string, string> = {};
  for (const input of toolkit.inputs ?? []) {
    const value = config[input.name]?.toLowerCase();
    if (input.type === "host" && value !== undefined && matchesHostPattern(value, input.hosts ?? [])) hosts[input.name] = value;
  }
  return hosts;
}
