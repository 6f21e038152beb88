import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_REDIRECTS } from "../../src/outbound/fetch.js";
import { expectError } from "../support/harness.js";
import { BYPASS_FORMS, LOOPBACK_SPELLINGS, REDIRECT_TARGETS } from "../support/ssrf-forms.js";
import { carriesCredential, createSsrfSetup, SSRF_CREDENTIALS, SSRF_TOOLKITS, type SsrfSetup } from "../support/ssrf-servers.js";

// Every form runs through the real handler against two real servers on the loopback: the
// toolkits' upstream (port U, base URL http://127.0.0.1:U/v1) and a foreign server (port F) that
// must never receive anything. Toolkits rotate, so each credential scheme meets the forms.
let s: SsrfSetup;
let U: number;
let F: number;
const toolkitFor = (i: number) => SSRF_TOOLKITS[i % SSRF_TOOLKITS.length]!;

beforeAll(async () => {
  s = await createSsrfSetup();
  U = s.upstream.port;
  F = s.foreign.port;
});
afterAll(async () => {
  expect(s.foreign.requests.filter(carriesCredential)).toEqual([]);
  expect(s.foreign.requests).toEqual([]);
  expect(s.h.foreign.requests).toEqual([]);
  s.h.assertNoLeaks();
  await s.close();
});

describe("the test servers", () => {
  it("every loopback spelling really reaches the foreign server, so a policy bug would be seen", async () => {
    for (const host of LOOPBACK_SPELLINGS) {
      const res = await fetch(`http://${host}:${F}/probe`);
      expect(await res.text(), host).toBe("foreign server reached");
    }
    expect(s.foreign.requests).toHaveLength(LOOPBACK_SPELLINGS.length);
    s.foreign.requests.length = 0;
  });

  it.each(SSRF_TOOLKITS)("%s: the canonical URL reaches the upstream with the credential", async (toolkit) => {
    const res = await s.proxy(toolkit, `${s.base}/echo`);
    expect(res.json).toMatchObject({ successful: true, status: 200, data: { path: "/v1/echo" } });
    expect(carriesCredential(s.upstream.requests.at(-1)!)).toBe(true);
  });

  it.each([
    ["an uppercase scheme", () => `HTTP://127.0.0.1:${U}/v1/echo`, "/v1/echo"],
    ["dot segments that stay in the base", () => `http://127.0.0.1:${U}/v1/a/../echo`, "/v1/echo"],
    ["`?@` in the query", () => `http://127.0.0.1:${U}/v1/echo?@127.0.0.1:${F}`, "/v1/echo?@127.0.0.1:" as string],
    ["Unicode in the path", () => `http://127.0.0.1:${U}/v1/caf\u00e9`, "/v1/caf%C3%A9"],
  ])("accepts an exact equivalent of an allowed URL: %s", async (_name, url, sent) => {
    expect((await s.proxy("ssrf-bearer", url())).json.successful).toBe(true);
    expect(s.upstream.requests.at(-1)!.url.startsWith(sent)).toBe(true);
  });
});

describe(`POST /proxy refuses ${BYPASS_FORMS.length} bypass forms with a 400, sending nothing anywhere`, () => {
  it("covers at least 40 forms", () => expect(BYPASS_FORMS.length).toBeGreaterThanOrEqual(40));

  it.each(BYPASS_FORMS.map((form, i) => ({ ...form, toolkit: toolkitFor(i) })))("$name ($toolkit)", async ({ url, toolkit }) => {
    const before = s.upstream.requests.length;
    expectError(await s.proxy(toolkit, url(U, F)), 400, "invalid_request");
    expect(s.upstream.requests.length).toBe(before);
    expect(s.foreign.requests).toEqual([]);
  });
});

describe("tools' ctx.fetch applies the same policy", () => {
  it.each([
    ["the foreign origin", () => `http://127.0.0.1:${F}/v1/echo`],
    ["localhost", () => `http://localhost:${F}/v1/echo`],
    ["the allowed server respelled", () => `http://0x7f.1:${U}/v1/echo`],
    ["a relative URL climbing out", () => "../admin"],
    ["a relative ..; segment", () => "..;/admin"],
    ["an encoded slash", () => "..%2fadmin"],
    ["userinfo", () => `http://127.0.0.1:${U}@127.0.0.1:${F}/v1/echo`],
  ])("refuses %s: the result says why and nothing is sent", async (_name, url) => {
    const before = s.upstream.requests.length;
    const res = await s.execute("ssrf-key", url());
    expect(res.json).toMatchObject({ successful: false, code: "invalid_request", data: null });
    expect(res.json.error).toMatch(/not allowed/);
    expect(s.upstream.requests.length).toBe(before);
    expect(s.foreign.requests).toEqual([]);
  });

  it("returns a redirect to the foreign server to the tool, unfollowed", async () => {
    const to = `http://localhost:${F}/v1/echo`;
    const res = await s.execute("ssrf-key", `/redirect?to=${encodeURIComponent(to)}&code=307`);
    expect(res.json).toMatchObject({ successful: true, data: { status: 307, location: to } });
    expect(s.foreign.requests).toEqual([]);
  });
});

describe("redirects", () => {
  const cases = [301, 302, 303, 307, 308].flatMap((code) => REDIRECT_TARGETS.map((target) => ({ code, ...target })));

  it.each(cases.map((c, i) => ({ ...c, toolkit: toolkitFor(i) })))(
    "$code to $name is returned unfollowed ($toolkit)",
    async ({ code, url, toolkit }) => {
      const to = url(U, F);
      const before = s.upstream.requests.length;
      const post = code === 307 || code === 308;
      const res = await s.proxy(
        toolkit,
        `${s.base}/redirect?code=${code}&to=${encodeURIComponent(to)}`,
        post ? { method: "POST", body: { x: 1 } } : {},
      );
      expect(res.json).toMatchObject({ status: code, successful: true, headers: { location: to } });
      expect(s.upstream.requests.length).toBe(before + 1);
      expect(s.foreign.requests).toEqual([]);
    },
  );

  it(`follows a chain within the base ${MAX_REDIRECTS} times, with the credential on every hop`, async () => {
    const before = s.upstream.requests.length;
    const res = await s.proxy("ssrf-key", `${s.base}/chain?n=${MAX_REDIRECTS}`);
    expect(res.json).toMatchObject({ status: 200, data: { path: "/v1/chain" } });
    const hops = s.upstream.requests.slice(before);
    expect(hops).toHaveLength(MAX_REDIRECTS + 1);
    expect(hops.every((hop) => hop.headers["x-secret-key"] === SSRF_CREDENTIALS.headerKey)).toBe(true);
  });

  it.each([
    ["one hop too many", `/chain?n=${MAX_REDIRECTS + 1}`],
    ["a loop", "/loop"],
  ])("stops at %s: the last 3xx comes back", async (_name, path) => {
    const before = s.upstream.requests.length;
    const res = await s.proxy("ssrf-query", `${s.base}${path}`);
    expect(res.json).toMatchObject({ status: 302, successful: true });
    expect(s.upstream.requests.length - before).toBe(MAX_REDIRECTS + 1);
  });

  it.each([300, 304, 305])(
    "returns a %i with a Location under the base unfollowed: only 301, 302, 303, 307 and 308 redirect",
    async (code) => {
      const before = s.upstream.requests.length;
      const to = `${s.base}/echo`;
      const res = await s.proxy("ssrf-key", `${s.base}/redirect?code=${code}&to=${encodeURIComponent(to)}`);
      expect(res.json).toMatchObject({ status: code, headers: { location: to } });
      expect(s.upstream.requests.length).toBe(before + 1);
    },
  );
});
