import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import type { Dispatcher } from "undici";
import { ToolsError } from "../core/errors.js";
import { addressProblem } from "./origin-policy.js";

/** An address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/**
 * Resolves a host name to every address it has (the handler's `lookup` option; default: the
 * system resolver, `dns.promises.lookup(host, { all: true })`).
 */
export type AddressLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: AddressLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Passed to a socket's lookup callback when a name resolves to a non-public address; `guardedFetch` turns it into a ToolsError. */
class AddressRefused extends Error {
  constructor(
    readonly hostname: string,
    readonly why: string,
  ) {
    super();
  }
}

/** A host as the URL parser gives it, without an IPv6 literal's brackets. */
const unbracketed = (host: string) => (host.startsWith("[") ? host.slice(1, -1) : host);

/**
 * Every address `hostname` resolves to, each checked, or why it may not be connected to: it
 * resolves to nothing (or the lookup failed), or one of its addresses (not only the first) is not
 * public. An IP literal is checked as it is. One lookup: the addresses checked are those returned.
 */
async function resolvePublic(hostname: string, lookup: AddressLookup): Promise<{ addresses: ResolvedAddress[] } | { why: string }> {
  const bare = unbracketed(hostname);
  const family = isIP(bare);
  const addresses =
    family !== 0
      ? [{ address: bare, family }]
      : await Promise.resolve()
          .then(() => lookup(bare))
          .catch(() => []);
  if (addresses.length === 0) return { why: "does not resolve" };
  for (const { address } of addresses) {
    const why = addressProblem(address);
    if (why) return { why: `resolves to a non-public address (${why})` };
  }
  return { addresses };
}

/** Why `hostname` may not be connected to, as the end of a sentence ("resolves to a non-public address (loopback)"), or undefined. */
export async function hostProblem(hostname: string, lookup: AddressLookup): Promise<string | undefined> {
  const resolved = await resolvePublic(hostname, lookup);
  return "why" in resolved ? resolved.why : undefined;
}

/**
 * A socket's `lookup` (`net.connect`'s option) that resolves once, checks every address, and
 * hands the socket only those checked addresses (all of them, or the first of the family asked
 * for); a refusal is an `AddressRefused` error.
 */
export function checkedLookup(lookup: AddressLookup): LookupFunction {
  return (hostname, options, callback) => {
    void resolvePublic(hostname, lookup).then((resolved) => {
      const wanted = "why" in resolved ? [] : resolved.addresses.filter(({ family }) => !options.family || family === options.family);
      if (wanted.length === 0) return callback(new AddressRefused(hostname, "why" in resolved ? resolved.why : "does not resolve"), "", 0);
      if (options.all) return (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, wanted);
      callback(null, wanted[0]!.address, wanted[0]!.family);
    });
  };
}

/**
 * A fetch for toolkits whose origin a connection chose: every new connection resolves the host,
 * checks every address it resolves to, and connects to those checked addresses (the check is in
 * the socket's own `lookup`, so DNS rebinding between a check and the connect cannot move it).
 * Redirects are not followed here: each hop comes back to `createOutboundFetch`, whose next
 * request opens (or reuses) a connection checked the same way. A refusal is a `ToolsError`
 * (`upstream_unreachable`) saying why, without the address.
 */
export function createGuardedFetch(lookup: AddressLookup): typeof fetch {
  // undici is loaded on first use, so that the handler's module loads on runtimes whose undici lacks an Agent.
  let undici: Promise<{ agent: Dispatcher; fetch: typeof import("undici").fetch }> | undefined;
  return async function guardedFetch(input, init) {
    const url = new URL(input instanceof Request ? input.url : String(input));
    // A socket given an IP address never calls its lookup, so an IP host is checked here.
    const literal = unbracketed(url.hostname);
    const why = isIP(literal) === 0 ? undefined : addressProblem(literal);
    if (why) throw refusal(url.hostname, `is a non-public address (${why})`);
    undici ??= import("undici").then(({ Agent, fetch }) => ({ agent: new Agent({ connect: { lookup: checkedLookup(lookup) } }), fetch }));
    const { agent, fetch } = await undici;
    try {
      return (await fetch(input as never, { ...(init as object), dispatcher: agent } as never)) as unknown as Response;
    } catch (error) {
      const refused = findRefusal(error);
      throw refused ? refusal(refused.hostname, refused.why) : error;
    }
  };
}

function refusal(hostname: string, why: string): ToolsError {
  return new ToolsError(
    "upstream_unreachable",
    `The connection's origin ${hostname} ${why}; tools-proxy connects an origin a connection names only to public addresses. ` +
      "Point the connection at a public host, or ask the deployer to set allowPrivateNetworks.",
    { cause: new AddressRefused(hostname, why) },
  );
}

/** Why the address-checking fetch refused a request ("resolves to a non-public address (loopback)"), or undefined for any other error. */
export function refusalReason(error: unknown): string | undefined {
  return findRefusal(error)?.why;
}

function findRefusal(error: unknown): AddressRefused | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) if (cause instanceof AddressRefused) return cause;
  return undefined;
}
