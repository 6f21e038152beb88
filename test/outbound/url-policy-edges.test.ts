import { describe, expect, it } from "vitest";
import { defineToolkit } from "../../src/index.js";
import { checkOutboundUrl, checkRedirectUrl, fillBaseUrl, resolveAgainstBase } from "../../src/outbound/url-policy.js";
import { refusal } from "../support/refusal.js";

// The URL policy's edges that url-policy.test.ts does not reach: whitespace the parser would drop,
// other base URL shapes (IPv6, http, a trailing `//`), ports, deep encodings, redirects and tools'
// relative URLs, and base URL templates that would let a connection choose the host.
const base = ["https://api.example.test/v1"];

describe("whitespace the URL parser would drop is refused, not silently removed", () => {
  it.each([
    ["a trailing space", "https://api.example.test/v1 "],
    ["a trailing space after a query", "https://api.example.test/v1/x?q=1 "],
    ["a leading space", " https://api.example.test/v1"],
    ["a trailing no-break space", "https://api.example.test/v1\u00a0"],
    ["a trailing byte order mark", "https://api.example.test/v1\ufeff"],
  ])("%s", (_name, url) => {
    const message = refusal(() => checkOutboundUrl(url, base));
    expect(message).toBe(
      "The URL is not allowed for this toolkit: it starts or ends with whitespace. Use a URL under https://api.example.test/v1.",
    );
  });

  it("also in an absolute redirect Location", () => {
    const from = new URL("https://api.example.test/v1/start");
    expect(refusal(() => checkRedirectUrl("https://api.example.test/v1/next ", from, base))).toMatch(/starts or ends with whitespace/);
  });

  it("a space inside the path is kept, percent-encoded", () => {
    expect(checkOutboundUrl("https://api.example.test/v1/a b", base).href).toBe("https://api.example.test/v1/a%20b");
  });
});

describe("checkOutboundUrl: other base URLs, ports and encodings", () => {
  it("says when a URL of the right shape does not parse", () => {
    expect(refusal(() => checkOutboundUrl("https://exa mple.test/v1", base))).toMatch(/: it is not a valid URL\. Use a URL under/);
  });

  it("accepts an IPv6 base URL written as the parser writes it, and refuses another spelling", () => {
    const v6 = ["http://[::1]:8080/v1"];
    expect(checkOutboundUrl("http://[::1]:8080/v1/x", v6).href).toBe("http://[::1]:8080/v1/x");
    expect(refusal(() => checkOutboundUrl("http://[0::1]:8080/v1/x", v6))).toMatch(/standard form \(write it as \[::1\]:8080\)/);
  });

  it("accepts the explicit default port of http", () => {
    expect(checkOutboundUrl("http://api.example.test:80/v1/x", ["http://api.example.test/v1"]).href).toBe("http://api.example.test/v1/x");
  });

  it("accepts a base URL's own port, and refuses an empty port or a port after a trailing dot", () => {
    const withPort = ["https://api.example.test:8443/v1"];
    expect(checkOutboundUrl("https://api.example.test:8443/v1/x", withPort).href).toBe("https://api.example.test:8443/v1/x");
    expect(refusal(() => checkOutboundUrl("https://api.example.test:/v1", base))).toMatch(/standard form/);
    expect(refusal(() => checkOutboundUrl("http://127.0.0.1.:8080/v1", ["http://127.0.0.1:8080/v1"]))).toMatch(/standard form/);
  });

  it("reads a base path with several trailing slashes as the path without them", () => {
    expect(checkOutboundUrl("https://api.example.test/v1/x", ["https://api.example.test/v1//"]).href).toBe("https://api.example.test/v1/x");
  });

  it("follows a path through three decodings and refuses one that still changes after them", () => {
    // %252541 decodes to %2541, %41, then A: three decodings.
    expect(checkOutboundUrl("https://api.example.test/v1/%252541", base).pathname).toBe("/v1/%252541");
    expect(refusal(() => checkOutboundUrl("https://api.example.test/v1/%25252541", base))).toMatch(
      /: its path is percent-encoded more than three times over\./,
    );
  });

  it.each([
    ["an encoded slash", "https://api.example.test/v1/a%2fb", "its path contains an encoded slash, backslash, dot or NUL"],
    ["a double-encoded slash", "https://api.example.test/v1/a%252fb", "its path contains a double-encoded slash, backslash, dot or NUL"],
    ["a %u escape", "https://api.example.test/v1/%u002e", "its path contains an encoded %u escape"],
    ["an empty user information", "https://@api.example.test/v1", "it contains user information"],
  ])("names %s in the refusal", (_name, url, why) => {
    expect(refusal(() => checkOutboundUrl(url, base))).toBe(`The URL is not allowed for this toolkit: ${why}. Use a URL under ${base[0]}.`);
  });

  it.each([
    ["a dot file", "https://api.example.test/v1/.well-known/x"],
    ["a name ending in dots", "https://api.example.test/v1/wait.../x"],
    ["%u with fewer than four hex digits, which no server reads as an escape", "https://api.example.test/v1/%uabc"],
  ])("accepts %s", (_name, url) => {
    expect(checkOutboundUrl(url, base).href).toBe(url);
  });

  it("accepts an encoded DEL or C1 control in the path: neither looks like an ASCII delimiter", () => {
    expect(checkOutboundUrl("https://api.example.test/v1/a%7Fb%C2%80", base).pathname).toBe("/v1/a%7Fb%C2%80");
  });
});

describe("checkRedirectUrl", () => {
  const from = new URL("https://api.example.test/v1/start");

  it("follows a relative Location with a colon in its path", () => {
    expect(checkRedirectUrl("/v1/a:b", from, base).href).toBe("https://api.example.test/v1/a:b");
  });

  it("checks a scheme-relative Location as written, so a respelled port is refused", () => {
    expect(refusal(() => checkRedirectUrl("//api.example.test:0443/v1/next", from, base))).toMatch(/standard form/);
  });
});

describe("resolveAgainstBase (tools' relative URLs)", () => {
  const bases = ["https://api.example.test/v1"];

  it.each([
    ["a leading space", " /items"],
    ["a trailing space", "items "],
    ["a leading tab", "\titems"],
    ["a leading control character", "\u0001items"],
    ["a trailing control character", "items\u0001"],
    ["a leading space before an absolute URL", "  https://api.example.test/v1/x"],
  ])("refuses %s", (_name, url) => {
    expect(refusal(() => resolveAgainstBase(url, bases))).toBe(
      "The URL starts or ends with whitespace or a control character; send it without.",
    );
  });

  it.each([
    ["a space inside", "/search?q=a b", "https://api.example.test/v1/search?q=a b"],
    ["a colon in a path segment", "search/a:b", "https://api.example.test/v1/search/a:b"],
  ])("resolves a relative URL with %s", (_name, url, resolved) => {
    expect(resolveAgainstBase(url, bases)).toBe(resolved);
  });

  it("drops every trailing slash of the base before joining", () => {
    expect(resolveAgainstBase("/items", ["https://api.example.test/v1//"])).toBe("https://api.example.test/v1/items");
  });

  it("leaves the URL as it is for a toolkit without a base URL (the policy then refuses it)", () => {
    expect(resolveAgainstBase("/items", [])).toBe("/items");
    expect(refusal(() => checkOutboundUrl(resolveAgainstBase("/items", []), []))).toMatch(/no base URL/);
  });
});

describe("base URL placeholders: the connection picks a subdomain, never the host", () => {
  it.each([
    ["a last label ending in a digit", "https://{tenant}.example.test1/v1", { tenant: "acme" }, "https://acme.example.test1/v1"],
    ["a tenant made of digits", "https://{tenant}.example.test/v1", { tenant: "123" }, "https://123.example.test/v1"],
    ["no placeholder, in the short form the parser accepts", "https:api.example.test/v1", {}, "https:api.example.test/v1"],
  ])("accepts %s", (_name, template, params, filled) => {
    expect(fillBaseUrl(template, params)).toBe(filled);
  });

  it.each([
    ["the whole host, in the short form https:{host}", "https:{host}/v1", { host: "localhost" }],
    ["the whole host, with a single slash", "https:/{host}/v1", { host: "localhost" }],
    ["the whole host, after a leading space", " https://{host}/v1", { host: "localhost" }],
  ])("refuses %s: the template must be written http(s)://host/path", (_name, template, params) => {
    expect(refusal(() => fillBaseUrl(template, params))).toBe(
      "This toolkit's base URL has a placeholder but is not written as http(s)://host/path; write it in that form.",
    );
  });

  it.each([
    ["the whole host, before a trailing dot", "https://{host}./v1", { host: "localhost" }],
    ["the last label, before a trailing dot", "https://api.{tld}./v1", { tld: "test" }],
    ["part of the last label", "https://api.{tld}x/v1", { tld: "evil" }],
    ["an IPv4-mapped IPv6 address", "http://[::ffff:{a}.0.0.1]/v1", { a: "127" }],
    ["a host that does not parse", "https://{tenant}.exa mple.test/v1", { tenant: "acme" }],
  ])("refuses %s", (_name, template, params) => {
    expect(refusal(() => fillBaseUrl(template, params))).toMatch(/lets a connection choose its whole host/);
  });

  const toolkitWith = (baseUrl: string) => () =>
    defineToolkit({ slug: "acme", name: "Acme", description: "", baseUrl, auth: { type: "none" }, tools: [] });

  it.each([
    ["the short form", "https:{host}/v1", /baseUrl "https:\{host\}\/v1" has a placeholder but is not written as http\(s\):\/\/host\/path/],
    ["the whole host", "https://{host}/v1", /baseUrl "https:\/\/\{host\}\/v1" lets a connection choose its whole host/],
    ["the last label before a trailing dot", "https://api.{tld}./v1", /lets a connection choose its whole host/],
  ])("defineToolkit refuses a template that would be refused on every call: %s", (_name, baseUrl, message) => {
    expect(toolkitWith(baseUrl)).toThrow(message);
  });

  it("defineToolkit accepts placeholders in a subdomain and in the path, on any host", () => {
    expect(toolkitWith("https://{tenant}.example.test/v1")).not.toThrow();
    expect(toolkitWith("http://127.0.0.1:8080/{tenant}/v1")).not.toThrow();
    // Without a placeholder, any form the URL parser accepts is left to the URL policy.
    expect(toolkitWith("https:api.example.test/v1")).not.toThrow();
  });

  it("a URL on the host a connection would have chosen is refused end to end", () => {
    expect(refusal(() => checkOutboundUrl("https://localhost/v1/x", ["https:{host}/v1"], { host: "localhost" }))).toMatch(
      /not written as http\(s\):\/\/host\/path/,
    );
    expect(refusal(() => checkOutboundUrl("https://localhost./v1/x", ["https://{host}./v1"], { host: "localhost" }))).toMatch(
      /choose its whole host/,
    );
  });
});
