import { BlockList, isIP } from "node:net";

/**
 * Origin inputs (docs/guide/auth/origin-inputs.md): a connection that names a whole origin (a self-managed GitLab, a
 * Mattermost server) may point the proxy only at the public internet. This module holds the two
 * halves of the rule: the shape of the value (`originProblem`) and the addresses a name may
 * resolve to (`addressProblem`). Both are pure; the lookup and the pinned connection are in
 * `guarded-fetch.ts`.
 */

/** The ranges no origin may reach: IANA's IPv4 and IPv6 special-purpose address registries, plus multicast and reserved space. */
const IPV4_RANGES: Array<[string, number, string]> = [
  ["0.0.0.0", 8, "unspecified ('this network')"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared address space (CGNAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.0.2.0", 24, "documentation"],
  ["192.31.196.0", 24, "AS112"],
  ["192.52.193.0", 24, "AMT"],
  ["192.88.99.0", 24, "6to4 relay anycast"],
  ["192.168.0.0", 16, "private"],
  ["192.175.48.0", 24, "AS112"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved (and broadcast)"],
];

/**
 * IPv6 outside global unicast (2000::/3: loopback, unspecified, IPv4-mapped and -compatible,
 * ULA, link-local, site-local, multicast, discard, segment routing) is refused by the 2000::/3 check; these are the
 * special ranges inside it. NAT64 and 6to4 wrap an IPv4 address, which is checked in turn;
 * Teredo is refused whole (its client address is obfuscated and its relays reach anywhere).
 */
const IPV6_RANGES: Array<[string, number, string]> = [
  ["2001::", 32, "Teredo"],
  ["2001::", 23, "IETF protocol assignments"],
  ["2001:db8::", 32, "documentation"],
  ["3fff::", 20, "documentation"],
];

let lists: { v4: Map<string, BlockList>; v6: Map<string, BlockList>; global: BlockList } | undefined;

/** The block lists, built on first use (so that importing this module costs nothing on a runtime without `BlockList`). */
function blockLists() {
  if (lists) return lists;
  const build = (ranges: Array<[string, number, string]>, family: "ipv4" | "ipv6") => {
    const byKind = new Map<string, BlockList>();
    for (const [network, prefix, kind] of ranges) {
      const list = byKind.get(kind) ?? byKind.set(kind, new BlockList()).get(kind)!;
      list.addSubnet(network, prefix, family);
    }
    return byKind;
  };
  const global = new BlockList();
  global.addSubnet("2000::", 3, "ipv6");
  lists = { v4: build(IPV4_RANGES, "ipv4"), v6: build(IPV6_RANGES, "ipv6"), global };
  return lists;
}

/**
 * Why an IP address is not a public one (e.g. "loopback", "private", "IPv4-mapped"), or undefined
 * when it is public. Anything that is not an IP address is refused ("not an IP address").
 */
export function addressProblem(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  const { v4, v6, global } = blockLists();
  if (family === 4) {
    for (const [kind, list] of v4) if (list.check(bare, "ipv4")) return kind;
    return undefined;
  }
  if (family !== 6) return "not an IP address";
  const embedded = embeddedIpv4(bare);
  if (embedded !== undefined) {
    const inner = addressProblem(embedded.address);
    return inner === undefined ? undefined : `${embedded.kind} wrapping a ${inner} IPv4 address`;
  }
  if (!global.check(bare, "ipv6")) return "not global unicast IPv6 (loopback, unspecified, IPv4-mapped, ULA, link-local or multicast)";
  for (const [kind, list] of v6) if (list.check(bare, "ipv6")) return kind;
  return undefined;
}

/** The IPv4 address a NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address wraps. */
function embeddedIpv4(address: string): { kind: string; address: string } | undefined {
  const groups = expandIpv6(address);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) {
    return { kind: "NAT64", address: ipv4Of(groups[6]!, groups[7]!) };
  }
  if (groups[0] === 0x2002) return { kind: "6to4", address: ipv4Of(groups[1]!, groups[2]!) };
  return undefined;
}

const ipv4Of = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");

/** The eight 16-bit groups of a valid IPv6 address (a dotted IPv4 tail included). */
function expandIpv6(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? (text.split("::") as [string, string]) : [text, undefined];
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16));
}

/** Top-level names that never lead to the public internet (RFC 6761, 6762, 7686, 9476, and ICANN's `.internal`). */
const LOCAL_SUFFIXES = ["localhost", "local", "internal", "arpa", "test", "invalid", "onion", "alt"];

/**
 * What is wrong with an origin input's value, as the end of a sentence ("must be ..."), or
 * undefined. The value must be `https://host[:port]` written as the URL standard writes it (ASCII
 * case aside, and a lone trailing `/`): no user information, path, query or fragment, no IP
 * literal in any spelling, a host of at least two labels that is no local-only name. With
 * `allowPrivateNetworks`, `http:` and IP literals are allowed too.
 */
export function originProblem(value: string, options: { allowPrivateNetworks?: boolean } = {}): string | undefined {
  const allowPrivate = options.allowPrivateNetworks === true;
  const scheme = allowPrivate ? "http or https" : "https";
  const form = `an origin ${allowPrivate ? "http(s)" : "https"}://host[:port], e.g. https://git.example.com`;
  if (!/^https?:\/\//i.test(value)) {
    return /^[a-z][a-z0-9+.-]*:/i.test(value)
      ? `${form} (${scheme} only)`
      : `${form}, beginning with ${allowPrivate ? "http(s)" : "https"}://`;
  }
  const match = /^(https?):\/\/([^/?#\\]*)\/?$/i.exec(value);
  if (!match) return `${form}, with no path, query or fragment`;
  if (!allowPrivate && match[1]!.toLowerCase() !== "https") return `${form} (https only)`;
  if (match[2]!.includes("@")) return `${form}, with no user name or password`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${form}; this one is not a valid URL`;
  }
  const written = `${match[1]}://${match[2]}`.toLowerCase();
  if (written !== url.origin) return `${form}, written in standard form (${url.origin})`;
  if (url.port === "0") return `${form}, with a port from 1 to 65535`;
  const host = url.hostname;
  if (host.startsWith("[") || isIP(host) !== 0) return allowPrivate ? undefined : `${form}, with a host name, not an IP address`;
  if (host.endsWith(".")) return `${form}, with no dot at the end of the host`;
  const labels = host.split(".");
  if (labels.length < 2) return `${form}, with a fully qualified host name (at least two labels)`;
  if (!allowPrivate && LOCAL_SUFFIXES.includes(labels.at(-1)!)) return `${form}, on a public host (not .${labels.at(-1)})`;
  return undefined;
}
