import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkOutboundUrl } from "../../src/outbound/url-policy.js";
import { loopbackWorld, oracleAllows, urlAround, WORLDS, type World } from "../support/ssrf-arbitraries.js";
import { headerPolicyProperty, plainUrlProperty, type UrlStats, urlPolicyProperty } from "../support/ssrf-properties.js";
import { carriesCredential, createSsrfSetup, SSRF_TOOLKITS, type SsrfSetup } from "../support/ssrf-servers.js";

// Small counts here; `npm run fuzz:url` runs the same pure properties a million times and more.
// URL_POLICY_RUNS sets the pure count, URL_POLICY_E2E_RUNS the count through the real handler.
const RUNS = Number(process.env.URL_POLICY_RUNS ?? 2_000);
const E2E_RUNS = Number(process.env.URL_POLICY_E2E_RUNS ?? 100);

describe("URL policy, pure: a credential goes only where the independent oracle allows", () => {
  it.each(WORLDS.map((w) => [w.name, w] as const))("%s base URL: URLs around it", (_name, w) => {
    const stats: UrlStats = { accepted: 0, refused: 0 };
    fc.assert(urlPolicyProperty(w, stats), { numRuns: RUNS });
    // The generator must reach both sides of the policy, or the property proves nothing.
    expect(stats.accepted).toBeGreaterThan(RUNS / 100);
    expect(stats.refused).toBeGreaterThan(RUNS / 10);
  });

  it.each(WORLDS.map((w) => [w.name, w] as const))("%s base URL: plainly written URLs under it are accepted unchanged", (_name, w) => {
    fc.assert(plainUrlProperty(w), { numRuns: RUNS });
  });

  it("headers: the credential is set last, exactly, and nothing forbidden passes", () => {
    fc.assert(headerPolicyProperty(), { numRuns: RUNS });
  });
});

describe("URL policy, end to end: the foreign server never sees a request", () => {
  let s: SsrfSetup;
  let w: World;
  beforeAll(async () => {
    s = await createSsrfSetup();
    w = loopbackWorld(s.upstream.port, s.foreign.port);
  });
  afterAll(async () => {
    s.h.assertNoLeaks();
    await s.close();
  });

  it(`${E2E_RUNS} generated URLs through POST /proxy against the real upstream and foreign servers`, async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(urlAround(w), fc.constantFrom(...SSRF_TOOLKITS), async (url, toolkit) => {
        const before = s.upstream.requests.length;
        const res = await s.proxy(toolkit, url);
        const arrived = s.upstream.requests.slice(before);
        expect(s.foreign.requests).toEqual([]);
        let allowed: URL | null = null;
        try {
          allowed = checkOutboundUrl(url, w.baseUrls);
        } catch {
          expect(res.status, url).toBe(400);
          expect(arrived).toEqual([]);
          return;
        }
        accepted++;
        expect(oracleAllows(url, w)).toBe(true);
        expect(res.json.successful, url).toBe(true);
        expect(arrived.length).toBeGreaterThanOrEqual(1);
        expect(arrived[0]!.url.startsWith(allowed.pathname)).toBe(true);
        for (const request of arrived) {
          expect(carriesCredential(request)).toBe(true);
          expect(() => checkOutboundUrl(`${w.origin}${request.url}`, w.baseUrls)).not.toThrow();
        }
      }),
      { numRuns: E2E_RUNS },
    );
    expect(accepted).toBeGreaterThan(0);
    expect(s.foreign.requests).toEqual([]);
  });
});
