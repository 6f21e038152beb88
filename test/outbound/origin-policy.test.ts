/**
 * The two halves of the origin rule (src/outbound/origin-policy.ts): which addresses are public
 * (IANA's special-purpose registries, embedded IPv4 of NAT64 and 6to4 checked in turn) and which
 * values are origins; and the template rules `defineToolkit` and `fillBaseUrl` keep for them.
 */
import { describe, expect, it } from "vitest";
import { hostProblem } from "../../src/outbound/guarded-fetch.js";
import { addressProblem, originProblem } from "../../src/outbound/origin-policy.js";
import { fillBaseUrl } from "../../src/outbound/url-policy.js";
import { defineToolkit } from "../../src/toolkits/define.js";

const NON_PUBLIC: Array<[string, string]> = [
  ["0.0.0.0", "unspecified"],
  ["0.255.1.1", "unspecified"],
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["100.64.0.1", "CGNAT"],
  ["100.127.255.254", "CGNAT"],
  ["127.0.0.1", "loopback"],
  ["127.255.0.9", "loopback"],
  ["169.254.169.254", "link-local"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.0.0.8", "IETF protocol assignments"],
  ["192.0.2.5", "documentation"],
  ["192.31.196.1", "AS112"],
  ["192.52.193.1", "AMT"],
  ["192.88.99.1", "6to4 relay anycast"],
  ["192.168.1.1", "private"],
  ["192.175.48.1", "AS112"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "reserved"],
  ["::", "not global unicast"],
  ["::1", "not global unicast"],
  ["[::1]", "not global unicast"],
  ["::ffff:127.0.0.1", "not global unicast"],
  ["::ffff:8.8.8.8", "not global unicast"],
  ["::127.0.0.1", "not global unicast"],
  ["fc00::1", "not global unicast"],
  ["fd12:3456::1", "not global unicast"],
  ["fe80::1", "not global unicast"],
  ["fec0::1", "not global unicast"],
  ["ff02::1", "not global unicast"],
  ["100::1", "not global unicast"],
  ["2001::1", "Teredo"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
  ["2001:2::1", "IETF protocol assignments"],
  ["2001:10::1", "IETF protocol assignments"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["5f00::1", "not global unicast"],
  ["64:ff9b::7f00:1", "NAT64 wrapping a loopback IPv4 address"],
  ["64:ff9b::10.0.0.1", "NAT64 wrapping a private IPv4 address"],
  ["2002:7f00:1::1", "6to4 wrapping a loopback IPv4 address"],
  ["2002:c0a8:101::", "6to4 wrapping a private IPv4 address"],
  ["64:ff9b:1::1", "not global unicast"],
  ["64:ff9a::808:808", "not global unicast"],
  ["not-an-ip", "not an IP address"],
  ["", "not an IP address"],
];

const PUBLIC = ["8.8.8.8", "1.1.1.1", "93.184.215.14", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0", "126.255.255.255"]
  .concat(["128.0.0.0", "169.253.255.255", "169.255.0.0", "172.15.255.255", "172.32.0.0", "192.0.1.0", "192.167.255.255", "192.169.0.0"])
  .concat(["198.17.255.255", "198.20.0.0", "223.255.255.255", "2606:4700::1111", "2a00:1450:4001::200e", "2001:4860:4860::8888"])
  .concat(["64:ff9b::808:808", "2002:808:808::1", "[2606:4700::1111]", "2001:200::1", "2001:ff9b::1", "2606:4700:0:0:0:0:0:1111"]);

describe("addressProblem", () => {
  it.each(NON_PUBLIC)("%s is not public: %s", (address, kind) => {
    expect(addressProblem(address)).toContain(kind);
  });

  it.each(PUBLIC)("%s is public", (address) => {
    expect(addressProblem(address)).toBeUndefined();
  });
});

describe("originProblem", () => {
  const ok = ["https://git.example.com", "https://git.example.com/", "https://git.example.com:8443", "https://a.b.c.example.org"];
  it.each(ok)("%s is an origin", (value) => expect(originProblem(value)).toBeUndefined());

  const refused: Array<[string, string]> = [
    ["http://git.example.com", "(https only)"],
    ["ftp://git.example.com", "(https only)"],
    ["git.example.com", "beginning with https://"],
    [" https://git.example.com", "beginning with https://"],
    ["https://git.example.com/x", "with no path, query or fragment"],
    ["https://git.example.com?x", "with no path, query or fragment"],
    ["https://git.example.com#x", "with no path, query or fragment"],
    ["https://git.example.com\\x", "with no path, query or fragment"],
    ["https://u@git.example.com", "with no user name or password"],
    ["https://git.example.com:99999", "this one is not a valid URL"],
    ["https://GIT.example.com:0443", "written in standard form (https://git.example.com)"],
    ["https://127.0.0.1", "with a host name, not an IP address"],
    ["https://[::1]", "with a host name, not an IP address"],
    ["https://git.example.com.", "with no dot at the end of the host"],
    ["https://intranet", "with a fully qualified host name"],
    ["https://a.localhost", "on a public host (not .localhost)"],
    ["https://printer.local", "on a public host (not .local)"],
    ["https://x.printer.local", "on a public host (not .local)"],
    ["https://git.corp.internal", "on a public host (not .internal)"],
    ["https://1.0.0.127.in-addr.arpa", "on a public host (not .arpa)"],
    ["https://git.example.test", "on a public host (not .test)"],
    ["https://git.example.invalid", "on a public host (not .invalid)"],
    ["https://abc.onion", "on a public host (not .onion)"],
    ["https://abc.alt", "on a public host (not .alt)"],
    ["https://git.example.com:0", "a port from 1 to 65535"],
  ];
  it.each(refused)("%s is refused: %s", (value, why) => {
    const problem = originProblem(value);
    expect(problem).toContain(why);
    expect(problem).toMatch(/^an origin https:\/\/host\[:port\], e\.g\. https:\/\/git\.example\.com/);
  });

  it("with allowPrivateNetworks, http, IP literals and local names are allowed, but not a path or user information", () => {
    const lifted = { allowPrivateNetworks: true };
    for (const value of ["http://127.0.0.1:8065", "https://[::1]", "http://chat.internal", "http://10.0.0.5"]) {
      expect(originProblem(value, lifted), value).toBeUndefined();
    }
    expect(originProblem("ftp://a.example.com", lifted)).toContain("(http or https only)");
    expect(originProblem("http://127.0.0.1/x", lifted)).toMatch(/^an origin http\(s\):\/\/host\[:port\].*no path/);
    expect(originProblem("http://a@127.0.0.1", lifted)).toContain("no user name");
    expect(originProblem("http://intranet", lifted)).toContain("fully qualified");
  });
});

describe("hostProblem", () => {
  const lookup = (answers: Record<string, string[]>) => async (host: string) => {
    if (!(host in answers)) throw new Error("ENOTFOUND");
    return answers[host]!.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

  it("checks every address a name resolves to, and an IP literal as it is", async () => {
    const answers = lookup({ "a.example.com": ["8.8.8.8"], "b.example.com": ["8.8.8.8", "10.0.0.1"], "c.example.com": [] });
    expect(await hostProblem("a.example.com", answers)).toBeUndefined();
    expect(await hostProblem("b.example.com", answers)).toBe("resolves to a non-public address (private)");
    expect(await hostProblem("c.example.com", answers)).toBe("does not resolve");
    expect(await hostProblem("d.example.com", answers)).toBe("does not resolve");
    expect(await hostProblem("[::1]", answers)).toContain("not global unicast");
    expect(await hostProblem("8.8.4.4", answers)).toBeUndefined();
  });
});

describe("origin templates", () => {
  const kit = (fields: Record<string, unknown>) =>
    defineToolkit({ slug: "kit", name: "Kit", description: "d", auth: { type: "bearer" }, tools: [], ...fields });
  const origin = { name: "server", label: "Server", type: "origin" as const };

  it("a base URL beginning with {name} needs an origin input of that name, used nowhere else", () => {
    expect(kit({ baseUrl: "{server}/api/v4", inputs: [origin] }).baseUrls).toEqual(["{server}/api/v4"]);
    expect(kit({ baseUrl: "{server}", inputs: [origin] }).baseUrls).toEqual(["{server}"]);
    expect(() => kit({ baseUrl: "{server}/api", inputs: [{ name: "server", label: "S" }] })).toThrow(
      'begins with {server}; declare server as an input of type "origin"',
    );
    expect(() => kit({ baseUrl: "https://{server}.example.com/api", inputs: [origin] })).toThrow(
      'origin input "server" may only begin a URL',
    );
    expect(() => kit({ baseUrl: "{server}/api?x=1", inputs: [origin] })).toThrow("a query or a fragment");
    expect(() => kit({ baseUrl: "{server}", inputs: [{ ...origin, default: "http://git.example.com" }] })).toThrow("(https only)");
  });

  it("OAuth endpoints may begin with the origin input too", () => {
    const toolkit = kit({
      baseUrl: "{server}/api/v4",
      inputs: [origin],
      auth: { type: "oauth2", authorizationUrl: "{server}/oauth/authorize", tokenUrl: "{server}/oauth/token", clientId: "c", scopes: [] },
    });
    expect(toolkit.inputs[0]!.type).toBe("origin");
  });

  it("fillBaseUrl puts the origin in place and keeps the rest a path", () => {
    expect(fillBaseUrl("{server}/api/v4", { server: "https://git.example.com" })).toBe("https://git.example.com/api/v4");
    expect(fillBaseUrl("{server}/api/{v}", { server: "http://127.0.0.1:8065", v: "v4" })).toBe("http://127.0.0.1:8065/api/v4");
    for (const server of ["", "https://git.example.com/x", "https://a@git.example.com", "javascript:alert(1)"]) {
      expect(() => fillBaseUrl("{server}/api", { server }), server).toThrow("no valid origin for the base URL placeholder {server}");
    }
    expect(() => fillBaseUrl("{server}/api/{v}", { server: "https://git.example.com", v: "a/b" })).toThrow("{v}");
  });
});
