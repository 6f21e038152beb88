/**
 * Declared rate-limit headers end to end, over real HTTP through the handler: the catalog's GitHub
 * against a local emulation of GitHub's REST API, and a JSON toolkit declaring `seconds` resets.
 *
 * GitHub, as its REST API pages describe it
 * (https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api and
 * https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api): past the
 * primary rate limit it answers 403 or 429 with `x-ratelimit-remaining: 0`, and
 * `x-ratelimit-reset` is the end of the window in UTC epoch seconds; every answer carries the
 * `x-ratelimit-*` headers. A 403 with requests remaining is a permission failure.
 */

import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogToolkit, getProvider } from "../../src/catalog/index.js";
import { providerSchema } from "../../src/catalog/provider.js";
import { bearer, defineJsonToolkit, defineToolkit } from "../../src/index.js";
import { CREDENTIALS, createHarness, type Harness } from "../support/harness.js";
import { type RawRequest, type RawServer, startRawServer } from "./servers.js";

const TOKEN = CREDENTIALS.bearerToken;
const HOUR_S = 3_600;
const seen = new Map<string, number>();

/** Seconds of our clock, as GitHub's headers write them. */
const epochSeconds = () => Math.floor(Date.now() / 1000);

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
}

/**
 * GitHub's REST API, for the calls used here. `GET /search/issues?q=...` answers by its query:
 * `exhausted` (403, none remaining, reset in an hour), `exhausted429` (the same as 429),
 * `forbidden` (403, requests remaining), `brief-<tag>` (exhausted until a reset one second away,
 * then answers), anything else a search result.
 */
function github(request: RawRequest, res: ServerResponse) {
  const url = new URL(request.url, "http://github.invalid");
  if (request.headers.authorization !== `Bearer ${TOKEN}`) {
    return send(res, 401, { message: "Bad credentials", documentation_url: "https://docs.github.com/rest", status: "401" });
  }
  const quota = (remaining: number, resetIn: number) => ({
    "x-ratelimit-limit": "5000",
    "x-ratelimit-remaining": String(remaining),
    "x-ratelimit-used": String(5000 - remaining),
    "x-ratelimit-reset": String(epochSeconds() + resetIn),
    "x-ratelimit-resource": url.pathname.startsWith("/search") ? "search" : "core",
  });
  const exceeded = { message: "API rate limit exceeded for user ID 1.", documentation_url: "https://docs.github.com/rest", status: "403" };
  if (url.pathname === "/user") return send(res, 200, { login: "octocat", id: 1 }, quota(4999, HOUR_S));
  if (url.pathname !== "/search/issues") return send(res, 404, { message: "Not Found", status: "404" }, quota(4999, HOUR_S));
  const q = url.searchParams.get("q") ?? "";
  if (q === "exhausted") return send(res, 403, exceeded, quota(0, HOUR_S));
  if (q === "exhausted429") return send(res, 429, { ...exceeded, status: "429" }, quota(0, HOUR_S));
  if (q === "forbidden") {
    return send(res, 403, { message: "Resource not accessible by personal access token", status: "403" }, quota(4999, HOUR_S));
  }
  const attempts = (seen.get(q) ?? 0) + 1;
  seen.set(q, attempts);
  if (q.startsWith("brief-") && attempts === 1) return send(res, 403, exceeded, quota(0, 1));
  return send(res, 200, { total_count: 0, incomplete_results: false, items: [] }, quota(4998, HOUR_S));
}

/** An API declaring IETF-style `RateLimit-Reset` seconds: `/quota` answers 429 with a reset of 30 s. */
function quotaApi(request: RawRequest, res: ServerResponse) {
  if (new URL(request.url, "http://q.invalid").pathname === "/q/quota") {
    return send(res, 429, { error: "quota exceeded" }, { "ratelimit-remaining": "0", "ratelimit-reset": "30" });
  }
  send(res, 404, { error: "no such path" });
}

let gh: RawServer;
let q: RawServer;
let h: Harness;
let plain: Harness;
let key: string;
let plainKey: string;

const quotaToolkit = (origin: string) =>
  defineJsonToolkit(
    {
      slug: "quota",
      name: "Quota",
      description: "Declares IETF-style reset seconds.",
      baseUrl: `${origin}/q`,
      auth: { type: "bearer" },
      rateLimit: { reset: { header: "RateLimit-Reset", as: "seconds" }, remaining: "RateLimit-Remaining" },
      tools: [
        {
          slug: "QUOTA_GET",
          name: "Get",
          description: "GET /quota.",
          method: "GET",
          path: "/quota",
          inputParameters: { type: "object", properties: {} },
        },
        {
          slug: "QUOTA_DECLARED",
          name: "Get, declared",
          description: "GET /quota, as an OpenAPI import declares it.",
          method: "GET",
          path: "/quota",
          inputParameters: { type: "object", properties: {} },
          request: { response: "json" },
        },
      ],
    },
    { env: {} },
  );

beforeAll(async () => {
  gh = await startRawServer(github);
  q = await startRawServer(quotaApi);
  const toolkits = () => [catalogToolkit("github", { baseUrl: gh.origin }), quotaToolkit(q.origin)];
  h = await createHarness({ retries: { max: 2, baseDelayMs: 5, maxDelayMs: 3_000 }, extraToolkits: toolkits });
  plain = await createHarness({ extraToolkits: toolkits });
  key = (await h.issueAgentKey("agent-a")).key;
  plainKey = (await plain.issueAgentKey("agent-a")).key;
  for (const [harness, k] of [
    [h, key],
    [plain, plainKey],
  ] as const) {
    await harness.connect(k, "github", { token: TOKEN }, { mode: "bearer" });
    await harness.connect(k, "quota", { token: TOKEN });
  }
});
afterAll(async () => {
  h.assertNoLeaks();
  plain.assertNoLeaks();
  await Promise.all([h.close(), plain.close(), gh.close(), q.close()]);
});

const execute = (body: unknown, harness = plain, as = plainKey) => harness.call("POST", "/execute", { key: as, body });
const proxy = (body: Record<string, unknown>, harness = plain, as = plainKey) =>
  harness.call("POST", "/proxy", { key: as, body: { method: "GET", ...body } });
const searches = (query: string) => gh.requests.filter((r) => r.url.includes(`q=${query}`)).length;
/** The wait GitHub's reset of an hour gives, give or take the second its headers round to. */
const aboutAnHour = (ms: unknown) => {
  expect(ms).toBeGreaterThanOrEqual((HOUR_S - 2) * 1000);
  expect(ms).toBeLessThanOrEqual((HOUR_S + 1) * 1000);
};

describe("GitHub's primary rate limit, through the catalog's GitHub", () => {
  it("POST /execute: a 403 with none remaining is a retryable rate limit waiting until the reset", async () => {
    const res = await execute({ tool: "GITHUB_SEARCH_ISSUES", arguments: { query: "exhausted" } });
    expect(res.json).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 403, retryable: true });
    aboutAnHour(res.json.retryAfterMs);
    expect(res.json.error).toMatch(/^GitHub answered 403 Forbidden: API rate limit exceeded for user ID 1\. GitHub is rate limiting: wait/);
  });

  it("POST /execute: a 403 with requests remaining stays a permission failure, with no retry hint", async () => {
    const res = await execute({ tool: "GITHUB_SEARCH_ISSUES", arguments: { query: "forbidden" } });
    expect(res.json).toMatchObject({ successful: false, upstreamStatus: 403, retryable: false });
    expect(res.json).not.toHaveProperty("retryAfterMs");
    expect(res.json.error).toMatch(/Resource not accessible by personal access token\. The GitHub connection lacks a permission/);
  });

  it("POST /execute: a 429 with none remaining waits until the reset too", async () => {
    const res = await execute({ tool: "GITHUB_SEARCH_ISSUES", arguments: { query: "exhausted429" } });
    expect(res.json).toMatchObject({ successful: false, upstreamStatus: 429, retryable: true });
    aboutAnHour(res.json.retryAfterMs);
  });

  it("POST /proxy: the same two 403s, told apart by the remaining header", async () => {
    const limited = await proxy({ toolkit: "github", url: `${gh.origin}/search/issues?q=exhausted` });
    expect(limited.json).toMatchObject({ successful: false, status: 403, upstreamStatus: 403, retryable: true });
    expect(limited.json.headers["x-ratelimit-remaining"]).toBe("0");
    aboutAnHour(limited.json.retryAfterMs);
    const forbidden = await proxy({ toolkit: "github", url: `${gh.origin}/search/issues?q=forbidden` });
    expect(forbidden.json).toMatchObject({ successful: false, status: 403, retryable: false });
    expect(forbidden.json).not.toHaveProperty("retryAfterMs");
  });

  it("retries wait for a reset within maxDelayMs, as for a Retry-After, and leave a longer one to the caller", async () => {
    const started = performance.now();
    const brief = await execute({ tool: "GITHUB_SEARCH_ISSUES", arguments: { query: "brief-execute" } }, h, key);
    expect(brief.json).toMatchObject({ successful: true, data: { totalCount: 0 } });
    expect(searches("brief-execute")).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(200); // waited for the reset, not a 5 ms backoff

    const viaProxy = await proxy({ toolkit: "github", url: `${gh.origin}/search/issues?q=brief-proxy` }, h, key);
    expect(viaProxy.json).toMatchObject({ successful: true, status: 200 });
    expect(searches("brief-proxy")).toBe(2);

    const before = searches("exhausted");
    const long = await proxy({ toolkit: "github", url: `${gh.origin}/search/issues?q=exhausted` }, h, key);
    expect(long.json).toMatchObject({ successful: false, status: 403, retryable: true });
    aboutAnHour(long.json.retryAfterMs);
    expect(searches("exhausted") - before).toBe(1);

    const forbiddenBefore = searches("forbidden");
    await proxy({ toolkit: "github", url: `${gh.origin}/search/issues?q=forbidden` }, h, key);
    expect(searches("forbidden") - forbiddenBefore, "a permission 403 is never retried").toBe(1);
  });
});

describe("a JSON toolkit's declared HTTP tool, with a reset in seconds", () => {
  it("POST /execute and POST /proxy carry retryAfterMs from RateLimit-Reset", async () => {
    const executed = await execute({ tool: "QUOTA_GET", arguments: {} });
    expect(executed.json).toMatchObject({ successful: false, upstreamStatus: 429, retryable: true, retryAfterMs: 30_000 });
    const declared = await execute({ tool: "QUOTA_DECLARED", arguments: {} });
    expect(declared.json).toMatchObject({ successful: false, upstreamStatus: 429, retryable: true, retryAfterMs: 30_000 });
    const proxied = await proxy({ toolkit: "quota", url: `${q.origin}/q/quota` });
    expect(proxied.json).toMatchObject({ successful: false, status: 429, retryable: true, retryAfterMs: 30_000 });
  });
});

describe("declarations are checked where they are written", () => {
  const bad = { reset: { header: "x-ratelimit-reset", as: "minutes" } };

  it("defineToolkit and defineJsonToolkit name the field", () => {
    expect(() => defineToolkit({ slug: "t", name: "T", description: "", auth: bearer(), tools: [], rateLimit: bad as never })).toThrow(
      /^Toolkit "t": rateLimit\.reset\.as /,
    );
    expect(() =>
      defineJsonToolkit({
        slug: "t",
        name: "T",
        description: "",
        baseUrl: "https://api.example.com",
        auth: { type: "bearer" },
        rateLimit: bad,
      }),
    ).toThrow(/rateLimit\.reset\.as/);
  });

  it("a provider's data file names the field", () => {
    const github = getProvider("github")!;
    const parsed = providerSchema.safeParse({ ...github, rateLimit: { ...github.rateLimit, remaining: "x ratelimit" } });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path.join(".")).toBe("rateLimit.remaining");
  });

  it("the catalog's GitHub, GitLab and X declare theirs; a catalog toolkit carries it", () => {
    expect(catalogToolkit("github").rateLimit).toEqual({
      reset: { header: "x-ratelimit-reset", as: "epoch-seconds" },
      remaining: "x-ratelimit-remaining",
    });
    expect(catalogToolkit("gitlab").rateLimit).toEqual({ reset: { header: "ratelimit-reset", as: "epoch-seconds" } });
    expect(catalogToolkit("x").rateLimit).toEqual({ reset: { header: "x-rate-limit-reset", as: "epoch-seconds" } });
  });
});
