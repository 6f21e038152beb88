import { describe, expect, it } from "vitest";
import { type AnswerUrlMapping, linkEntries, routeAnswerUrls, routeLink, routeUrl } from "../../../src/execution/answer-urls.js";

/**
 * The rule for the URLs of a passthrough answer, on its own: a URL under the toolkit's base URL
 * becomes the same path under the route; anything else is foreign and never comes out.
 */

const ROUTE = "https://tools.example/proxy/tools/passthrough/acme";
const mapping = (base = "https://api.acme.test/v1", answered = "https://api.acme.test/v1/items?page=1"): AnswerUrlMapping => ({
  base,
  route: ROUTE,
  answeredUrl: new URL(answered),
});

describe("routeUrl: under the base URL, to the route", () => {
  it.each([
    ["an absolute URL", "https://api.acme.test/v1/items?page=2", `${ROUTE}/items?page=2`],
    ["the base URL itself", "https://api.acme.test/v1", ROUTE],
    ["upper-case scheme and host", "HTTPS://API.ACME.TEST/v1/items", `${ROUTE}/items`],
    ["the default port written out", "https://api.acme.test:443/v1/items", `${ROUTE}/items`],
    ["a scheme-relative URL", "//api.acme.test/v1/items", `${ROUTE}/items`],
    ["a path-absolute reference", "/v1/items/2", `${ROUTE}/items/2`],
    ["a path-relative reference", "items/2", `${ROUTE}/items/2`],
    ["a query-only reference", "?page=2", `${ROUTE}/items?page=2`],
    ["a reference with dot segments that stay under the base", "/v1/a/../items", `${ROUTE}/items`],
    ["a fragment", "https://api.acme.test/v1/items#x", `${ROUTE}/items#x`],
    ["percent-encoding, kept", "https://api.acme.test/v1/a%20b", `${ROUTE}/a%20b`],
    ["an empty reference (the URL that answered)", "", `${ROUTE}/items?page=1`],
    ["leading whitespace, which the URL parser drops", " https://api.acme.test/v1/items", `${ROUTE}/items`],
  ])("%s", (_, reference, expected) => {
    expect(routeUrl(reference, mapping())).toBe(expected);
  });

  it("keeps a relative reference path-absolute when asked (a Location), an absolute one absolute", () => {
    expect(routeUrl("/v1/items/2", mapping(), { keepRelative: true })).toBe("/proxy/tools/passthrough/acme/items/2");
    expect(routeUrl("?page=2", mapping(), { keepRelative: true })).toBe("/proxy/tools/passthrough/acme/items?page=2");
    expect(routeUrl("https://api.acme.test/v1/items", mapping(), { keepRelative: true })).toBe(`${ROUTE}/items`);
    expect(routeUrl("/v1/a//", mapping(), { keepRelative: true })).toBe("/proxy/tools/passthrough/acme/a//");
    expect(routeUrl("/v1/a:b", mapping(), { keepRelative: true })).toBe("/proxy/tools/passthrough/acme/a:b");
  });

  it("a base URL written with trailing slashes maps as the same base", () => {
    expect(routeUrl("https://api.acme.test/v1/items", mapping("https://api.acme.test/v1//"))).toBe(`${ROUTE}/items`);
  });

  it("a base URL without a path keeps the whole path", () => {
    const m = mapping("https://api.github.com", "https://api.github.com/repos/o/r/issues");
    expect(routeUrl("https://api.github.com/repositories/1/issues?page=2", m)).toBe(`${ROUTE}/repositories/1/issues?page=2`);
  });
});

describe("routeUrl: anything else is foreign (null)", () => {
  it.each([
    ["another host", "https://other.example/v1/items"],
    ["a host that ends like the base's", "https://evil-api.acme.test/v1/items"],
    ["a host that starts like the base's", "https://api.acme.test.evil.example/v1/items"],
    ["another scheme", "http://api.acme.test/v1/items"],
    ["another port", "https://api.acme.test:8443/v1/items"],
    ["the base origin outside the base path", "https://api.acme.test/v2/items"],
    ["a path that only starts with the base path's letters", "https://api.acme.test/v10/items"],
    ["a relative path outside the base path", "/v2/items"],
    ["dot segments that climb out of the base", "/v1/../admin"],
    ["a relative path that climbs out", "../../admin"],
    ["a scheme-relative URL elsewhere", "//other.example/v1/items"],
    ["a backslash (browsers read /\\ as //)", "/\\other.example/v1"],
    ["userinfo", "https://user:pass@api.acme.test/v1/items"],
    ["userinfo that hides the real host", "https://api.acme.test@other.example/v1/items"],
    ["a percent-encoded host", "https://api%2eacme.test/v1/items"],
    ["a fullwidth host (IDNA maps it to the same name)", "https://ａｐｉ.acme.test/v1/items"],
    ["a trailing dot", "https://api.acme.test./v1/items"],
    ["an encoded slash in the path", "https://api.acme.test/v1/a%2f..%2fadmin"],
    ["a javascript: URL", "javascript:alert(1)"],
    ["a data: URL", "data:text/html,hi"],
    ["leading whitespace before another host", " https://other.example/v1/items"],
    ["a line break", "https://api.acme.test/v1/items\r\nx: y"],
    ["not a URL", "http://"],
  ])("%s", (_, reference) => {
    expect(routeUrl(reference, mapping())).toBeNull();
  });

  it("an IP base URL: other spellings of the same address are foreign too", () => {
    const m = mapping("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1/x");
    expect(routeUrl("http://127.0.0.1:8080/v1/y", m)).toBe(`${ROUTE}/y`);
    for (const spelling of [
      "http://2130706433:8080/v1/y",
      "http://0x7f.1:8080/v1/y",
      "http://[::ffff:7f00:1]:8080/v1/y",
      "http://localhost:8080/v1/y",
    ]) {
      expect(routeUrl(spelling, m), spelling).toBeNull();
    }
  });
});

describe("linkEntries", () => {
  it("splits at commas outside brackets and quoted strings", () => {
    expect(linkEntries('<https://a/x?p=1,2>; rel="next", <https://a/y>; title="a, b"; rel=last,,<z>')).toEqual([
      { target: "https://a/x?p=1,2", params: '; rel="next"' },
      { target: "https://a/y", params: '; title="a, b"; rel=last' },
      { target: "z", params: "" },
    ]);
    expect(linkEntries('<a>; title="say \\"hi, there\\""')).toEqual([{ target: "a", params: '; title="say \\"hi, there\\""' }]);
    expect(linkEntries("")).toEqual([]);
  });

  it("keeps the parameters as written, but for trailing whitespace; an empty target is the URL that answered", () => {
    expect(linkEntries("<a> ; rel=next  , <>;rel=self")).toEqual([
      { target: "a", params: " ; rel=next" },
      { target: "", params: ";rel=self" },
    ]);
    expect(linkEntries("<>; rel=self")).toEqual([{ target: "", params: "; rel=self" }]);
  });

  it.each([
    ["an entry without brackets", "https://other.example/x; rel=next"],
    ["a bracket never closed", "<https://other.example/x; rel=next"],
    ["a quoted string never closed", '<a>; title="x, <https://other.example/>; rel=next'],
    ["text after the target that is not a parameter", "<a> <https://other.example/>"],
    ["text after the target before a parameter", "<a> junk; rel=next"],
    ["text before the target", "x <https://other.example/>; rel=next"],
  ])("null for %s", (_, value) => {
    expect(linkEntries(value)).toBeNull();
  });
});

describe("routeLink", () => {
  it("routes the entries under the base URL and drops the others, keeping their parameters", () => {
    const value = [
      '<https://api.acme.test/v1/items?page=2>; rel="next"',
      '<https://other.example/page-3>; rel="last"',
      '</v1/items?page=1>; rel="first"',
      '<//other.example/x>; rel="prev"',
    ].join(", ");
    expect(routeLink(value, mapping())).toBe(`<${ROUTE}/items?page=2>; rel="next", <${ROUTE}/items?page=1>; rel="first"`);
  });

  it.each([
    '; anchor="https://other.example/"; rel=next',
    ';anchor="https://other.example/"',
    '; rel=next; ANCHOR = "https://other.example/"',
  ])("drops an entry with an anchor (a second URL, the link's context): %s", (params) => {
    expect(routeLink(`<https://api.acme.test/v1/a>${params}`, mapping())).toBeNull();
  });

  it("null when no entry is left, or when the value cannot be read", () => {
    expect(routeLink('<http://other.example/page-2>; rel="next"', mapping())).toBeNull();
    expect(routeLink('http://other.example/page-2; rel="next"', mapping())).toBeNull();
  });
});

describe("routeAnswerUrls", () => {
  it("routes or removes Location, Content-Location and Link, removes Refresh, and leaves the rest", () => {
    const headers = {
      "content-type": "application/json",
      location: "https://other.example/x",
      "content-location": "/v1/items/2",
      link: '<https://other.example/page-2>; rel="next"',
      refresh: "0; url=https://api.acme.test/v1/items",
      etag: '"1"',
    };
    expect(routeAnswerUrls(headers, mapping())).toEqual({
      "content-type": "application/json",
      "content-location": "/proxy/tools/passthrough/acme/items/2",
      etag: '"1"',
    });
    expect(headers.location).toBe("https://other.example/x"); // the caller's object is not changed
  });

  it("routes a Location under the base URL and a Link with a routed entry", () => {
    expect(routeAnswerUrls({ location: "https://api.acme.test/v1/items/3", link: '<?page=2>; rel="next"' }, mapping())).toEqual({
      location: `${ROUTE}/items/3`,
      link: `<${ROUTE}/items?page=2>; rel="next"`,
    });
  });
});
