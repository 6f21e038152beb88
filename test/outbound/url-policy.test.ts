import { describe, expect, it } from "vitest";
import { checkOutboundUrl, checkRedirectUrl, fillBaseUrl, resolveAgainstBase } from "../../src/outbound/url-policy.js";
import { refusal } from "../support/refusal.js";

// The decisions of the URL policy, one example each, without a server (ssrf-table.test.ts sends
// the bypass forms through the real handler).
const base = ["https://api.example.test/v1"];
const accepts = (url: string, bases = base, params = {}) => checkOutboundUrl(url, bases, params).href;

describe("checkOutboundUrl accepts exact equivalents of an allowed URL", () => {
  it.each([
    ["the base itself", "https://api.example.test/v1", "https://api.example.test/v1"],
    ["an uppercase host and scheme", "HTTPS://API.Example.TEST/v1/x", "https://api.example.test/v1/x"],
    ["the explicit default port", "https://api.example.test:443/v1/x", "https://api.example.test/v1/x"],
    ["dot segments that stay under the base", "https://api.example.test/v1/a/./b/../c", "https://api.example.test/v1/a/c"],
    [
      "Unicode and spaces in the path, percent-encoded",
      "https://api.example.test/v1/café/a b",
      "https://api.example.test/v1/caf%C3%A9/a%20b",
    ],
    [
      "anything in the query",
      "https://api.example.test/v1/x?next=http://evil.test/&p=%2f..%2f",
      "https://api.example.test/v1/x?next=http://evil.test/&p=%2f..%2f",
    ],
    ["an encoded percent sign", "https://api.example.test/v1/100%25", "https://api.example.test/v1/100%25"],
    ["a path parameter on a normal segment", "https://api.example.test/v1/items;v=2", "https://api.example.test/v1/items;v=2"],
  ])("%s", (_name, url, href) => expect(accepts(url)).toBe(href));
});

describe("checkOutboundUrl says why it refuses", () => {
  it.each([
    ["https://api.example.test:0443/v1", /standard form \(write it as api\.example\.test\)/],
    ["https://ａｐｉ.example.test/v1", /standard form/],
    ["https://api.exampl\u212a.test/v1", /standard form/],
    ["https:api.example.test/v1", /http\(s\):\/\/host\/path/],
    [" https://api.example.test/v1", /starts or ends with whitespace/],
    ["https://user@api.example.test/v1", /user information/],
    ["https://api.example.test/v1/a\\b", /backslash or a control character/],
    ["https://api.example.test/v1/%2e%2e%2fx", /encoded slash/],
    ["https://api.example.test/v1/%252e%252e", /double-encoded/],
    ["https://api.example.test/v1/%u002e%u002e/x", /%u escape/],
    ["https://api.example.test/v1/%c0%ae%c0%ae/x", /not UTF-8/],
    ["https://api.example.test/v1/..;/x", /only of dots/],
    ["https://api.example.test/v1/%EF%BC%8F", /looks like an ASCII/],
    ["https://api.example.test/v1evil", /outside the toolkit's base URL/],
    ["https://api.example.test./v1", /outside the toolkit's base URL/],
  ])("%s", (url, why) => {
    const message = refusal(() => checkOutboundUrl(url, base));
    expect(message).toMatch(why);
    expect(message).toMatch(/Use a URL under https:\/\/api\.example\.test\/v1\./);
  });

  it("a toolkit without a base URL makes no calls", () => {
    expect(refusal(() => checkOutboundUrl("https://api.example.test/v1", []))).toMatch(/no base URL/);
  });
});

describe("base URL placeholders", () => {
  const tenant = ["https://{tenant}.example.test/v1"];

  it("are filled from the connection and then matched exactly", () => {
    expect(accepts("https://acme.example.test/v1/x", tenant, { tenant: "acme" })).toBe("https://acme.example.test/v1/x");
    expect(refusal(() => checkOutboundUrl("https://other.example.test/v1/x", tenant, { tenant: "acme" }))).toMatch(
      /under https:\/\/acme\.example\.test\/v1/,
    );
  });

  it.each(["evil.test#", "acme.example.test/", "a..b", ".a", "a.", "a:1", "a@b", "", "é", "a".repeat(64)])(
    "refuse the value %j",
    (value) => {
      expect(refusal(() => checkOutboundUrl("https://acme.example.test/v1", tenant, { tenant: value }))).toMatch(
        /no valid value for the base URL placeholder \{tenant\}/,
      );
    },
  );

  it.each([
    ["the whole host", "https://{host}/v1", { host: "localhost" }],
    ["the whole host, as an IPv4 number", "https://{host}/v1", { host: "2130706433" }],
    ["the last label", "https://api.{tld}/v1", { tld: "test" }],
    ["an IP address", "https://{a}.0.0.1/v1", { a: "127" }],
  ])("may not choose %s", (_name, template, params) => {
    expect(refusal(() => fillBaseUrl(template, params))).toMatch(/may only fill a subdomain/);
  });

  it("may fill a path segment or a port", () => {
    expect(fillBaseUrl("https://api.example.test/t/{tenant}", { tenant: "acme" })).toBe("https://api.example.test/t/acme");
    expect(fillBaseUrl("https://api.example.test:{port}/v1", { port: "8443" })).toBe("https://api.example.test:8443/v1");
  });

  it("that begins the host may hold several labels (a Salesforce sandbox instance), the labels after it fixed", () => {
    const base = "https://{instance}.my.salesforce.com";
    expect(fillBaseUrl(base, { instance: "acme--dev.sandbox" })).toBe("https://acme--dev.sandbox.my.salesforce.com");
    expect(accepts("https://acme--dev.sandbox.my.salesforce.com/x", [base], { instance: "acme--dev.sandbox" })).toBe(
      "https://acme--dev.sandbox.my.salesforce.com/x",
    );
    for (const template of ["https://api.example.test/t/{tenant}", "https://eu.{tenant}.example.test/v1"]) {
      expect(refusal(() => fillBaseUrl(template, { tenant: "a.b" }))).toMatch(/no valid value for the base URL placeholder/);
    }
  });

  it("may be the whole host of an OAuth endpoint (wholeHost) only with a name of three labels or more", () => {
    const endpoint = "https://{loginHost}/services/oauth2/token";
    expect(fillBaseUrl(endpoint, { loginHost: "test.salesforce.com" }, { wholeHost: true })).toBe(
      "https://test.salesforce.com/services/oauth2/token",
    );
    for (const loginHost of ["localhost", "example.test", "127.0.0.1", "2130706433"]) {
      expect(
        refusal(() => fillBaseUrl(endpoint, { loginHost }, { wholeHost: true })),
        loginHost,
      ).toMatch(/may only fill a subdomain/);
    }
    expect(refusal(() => fillBaseUrl(endpoint, { loginHost: "test.salesforce.com" }))).toMatch(/may only fill a subdomain/);
  });
});

describe("checkRedirectUrl", () => {
  const from = new URL("https://api.example.test/v1/start");

  it.each([
    ["/v1/next", "https://api.example.test/v1/next"],
    ["next?x=1", "https://api.example.test/v1/next?x=1"],
    ["//api.example.test/v1/next", "https://api.example.test/v1/next"],
    ["https://API.example.test:443/v1/next", "https://api.example.test/v1/next"],
  ])("follows %s", (location, href) => expect(checkRedirectUrl(location, from, base).href).toBe(href));

  it.each([
    "/admin",
    "//evil.test/v1",
    "/\\evil.test/v1",
    "\\\\evil.test\\v1",
    "https:evil.test/v1",
    "https:\\\\evil.test/v1",
    "https://0x7f.1/v1",
    "/v1/..%2fadmin",
    "/v1/\tnext",
  ])("refuses %j", (location) => {
    refusal(() => checkRedirectUrl(location, from, base));
  });
});

describe("resolveAgainstBase (tools' relative URLs)", () => {
  it.each([
    ["/items", "https://api.example.test/v1/items"],
    ["items?x=1", "https://api.example.test/v1/items?x=1"],
    ["https://elsewhere.test/x", "https://elsewhere.test/x"],
  ])("%s", (url, resolved) => expect(resolveAgainstBase(url, ["https://api.example.test/v1/"])).toBe(resolved));
});
