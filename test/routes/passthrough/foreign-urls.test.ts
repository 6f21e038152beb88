import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { catalogToolkit } from "../../../src/catalog/index.js";
import { createToolsClient } from "../../../src/client/index.js";
import { type Answer, type Emulation, startEmulation, startToolsServer, type ToolsServer } from "./servers.js";

/**
 * No client that follows a passthrough answer sends its API key off the handler's origin. An
 * upstream names a second local server, standing in for a foreign origin, in its `Link` and
 * `Location` headers; clients that follow them (Octokit's `paginate`, `fetch` with
 * `redirect: "follow"`, which keeps `x-api-key` across origins) run against a real server. The
 * foreign server counts the requests that carry the key: always zero.
 *
 * The GitHub emulation follows GitHub's pages: pagination by absolute `Link` URLs
 * (https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api) and the
 * repository archive, a `302 Found` to a signed URL on another host, codeload.github.com
 * (https://docs.github.com/en/rest/repos/contents#download-a-repository-archive-tar).
 */

const run = crypto.randomUUID().slice(0, 8);
const GITHUB_TOKEN = `ghp_foreignurls${run}`;
const ISSUES = [1, 2, 3, 4].map((number) => ({ number, title: `Issue ${number}` }));

let github: Emulation;
let foreign: Emulation;
let tools: ToolsServer;

/** Requests the foreign server received that carry the API key or the credential, anywhere. */
const leaked = () => foreign.received.filter((r) => JSON.stringify(r).includes(tools.key) || JSON.stringify(r).includes(GITHUB_TOKEN));

/** An answer of the GitHub emulation: `/answer?status=N&location=URL&link=VALUE&h-<name>=VALUE`. */
function scripted(url: URL): Answer {
  const headers: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (name === "location" || name === "link") headers[name] = value;
    if (name.startsWith("h-")) headers[name.slice(2)] = value;
  }
  return { status: Number(url.searchParams.get("status") ?? 200), headers, body: { scripted: true } };
}

beforeAll(async () => {
  foreign = await startEmulation(() => ({ body: "foreign origin reached" }));
  github = await startEmulation((_request, url): Answer => {
    if (url.pathname === "/answer") return scripted(url);
    if (url.pathname === "/user") return { body: { login: "octocat" } }; // asked when the credential is typed
    const issues = /^\/repos\/octo\/(hello|mixed)\/issues$/.exec(url.pathname);
    if (issues) {
      const page = Number(url.searchParams.get("page") ?? 1);
      // `hello` links its next page on the foreign origin; `mixed` on GitHub, beside foreign entries.
      const next =
        issues[1] === "hello"
          ? `<${foreign.origin}/repositories/1/issues?page=${page + 1}>; rel="next"`
          : `<${github.origin}/repos/octo/mixed/issues?page=${page + 1}>; rel="next", <//${new URL(foreign.origin).host}/x>; rel="prev"`;
      const last = `<${foreign.origin}/repositories/1/issues?page=2>; rel="last"`;
      return { headers: { link: page < 2 ? `${next}, ${last}` : last }, body: ISSUES.slice((page - 1) * 2, page * 2) };
    }
    if (/^\/repos\/octo\/hello\/tarball\/main$/.test(url.pathname)) {
      return { status: 302, headers: { location: `${foreign.origin}/octo/hello/legacy.tar.gz/main?token=signed-${run}` }, body: "" };
    }
    return { status: 404, body: { message: "Not Found" } };
  });
  tools = await startToolsServer([catalogToolkit("github", { baseUrl: github.origin })]);
  await tools.connect({ toolkit: "github", mode: "bearer", credentials: { token: GITHUB_TOKEN } });
});

afterAll(async () => {
  await tools?.close();
  await Promise.all([github?.close(), foreign?.close()]);
});

beforeEach(() => {
  foreign.received.length = 0;
  github.received.length = 0;
});

const passthrough = () => createToolsClient({ baseUrl: tools.api, apiKey: tools.key }).passthroughUrl("github");
const octokit = () => new Octokit({ auth: tools.key, baseUrl: passthrough(), request: { retries: 0 } });

/** A request to the emulation's `/answer` through the passthrough, followed as `fetch` follows. */
function answerThrough(query: Record<string, string>, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has("authorization")) headers.set("x-api-key", tools.key);
  return fetch(`${passthrough()}/answer?${new URLSearchParams(query)}`, { redirect: "follow", ...init, headers });
}

describe("@octokit/rest paginate", () => {
  it("stops at a next page on a foreign origin: the page is not followed, the API key never leaves", async () => {
    const all = await octokit().paginate(octokit().rest.issues.listForRepo, { owner: "octo", repo: "hello", per_page: 2 });
    expect(all.map((i) => i.number)).toEqual([1, 2]);
    expect(github.received.map((r) => r.url)).toEqual(["/repos/octo/hello/issues?per_page=2"]);
    expect(leaked()).toEqual([]);
    expect(foreign.received).toEqual([]);
  });

  it("follows a next page under the base URL through the passthrough, and drops the foreign entries beside it", async () => {
    const res = await octokit().rest.issues.listForRepo({ owner: "octo", repo: "mixed", per_page: 2 });
    expect(res.headers.link).toBe(`<${passthrough()}/repos/octo/mixed/issues?page=2>; rel="next"`);
    const all = await octokit().paginate(octokit().rest.issues.listForRepo, { owner: "octo", repo: "mixed", per_page: 2 });
    expect(all.map((i) => i.number)).toEqual([1, 2, 3, 4]);
    for (const request of github.received) expect(request.headers.authorization).toBe(`Bearer ${GITHUB_TOKEN}`);
    expect(foreign.received).toEqual([]);
  });
});

describe("@octokit/rest on a redirect to a foreign origin (a repository archive)", () => {
  it("raises 502 upstream_redirect that says what to do; nothing reaches the foreign origin", async () => {
    const error = await octokit()
      .rest.repos.downloadTarballArchive({ owner: "octo", repo: "hello", ref: "main" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "HttpError", status: 502 });
    const body = (error as { response: { data: { code: string; error: string } } }).response.data;
    expect(body.code).toBe("upstream_redirect");
    expect(body.error).toMatch(/POST \/proxy\/tools\/proxy/);
    expect(body.error).not.toContain("signed-");
    expect(leaked()).toEqual([]);
    expect(foreign.received).toEqual([]);
  });

  it("POST /proxy answers the same redirect as data: its Location, fetched without the API key, downloads the archive", async () => {
    const client = createToolsClient({ baseUrl: tools.api, apiKey: tools.key });
    const result = await client.proxy({ toolkit: "github", method: "GET", url: `${github.origin}/repos/octo/hello/tarball/main` });
    expect(result).toMatchObject({ successful: true, status: 302 });
    const location = result.headers.location!;
    expect(new URL(location).origin).toBe(foreign.origin);
    expect((await fetch(location)).status).toBe(200);
    expect(foreign.received).toHaveLength(1);
    expect(leaked()).toEqual([]);
  });
});

describe("fetch with redirect: follow", () => {
  const foreignTargets = () => [
    ["an absolute URL", `${foreign.origin}/x`],
    ["a scheme-relative URL", `//${new URL(foreign.origin).host}/x`],
    ["userinfo naming the base host", `http://${new URL(github.origin).host}@${new URL(foreign.origin).host}/x`],
    ["a backslash", `/\\${new URL(foreign.origin).host}/x`],
    ["upper case", foreign.origin.toUpperCase()],
  ];

  it.each([301, 302, 303, 307, 308])("a %i to a foreign origin is 502 upstream_redirect, whatever the URL's spelling", async (status) => {
    for (const [spelling, location] of foreignTargets()) {
      const ways: Array<Record<string, string>> = [{ "x-api-key": tools.key }, { authorization: `Bearer ${tools.key}` }];
      for (const auth of ways) {
        const res = await answerThrough({ status: String(status), location: location! }, { headers: auth });
        expect(res.status, spelling).toBe(502);
        expect(((await res.json()) as { code: string }).code, spelling).toBe("upstream_redirect");
      }
    }
    expect(leaked()).toEqual([]);
    expect(foreign.received).toEqual([]);
  });

  it("a 307 of a POST to a foreign origin: the body goes nowhere else either", async () => {
    const res = await answerThrough({ status: "307", location: `${foreign.origin}/upload` }, { method: "POST", body: "payload" });
    expect(res.status).toBe(502);
    expect(github.received).toHaveLength(1);
    expect(foreign.received).toEqual([]);
  });

  it("a redirect under the base URL is followed by the server, and the client lands on its answer", async () => {
    const res = await answerThrough({ status: "302", location: `${github.origin}/answer?status=200` });
    expect(res.status).toBe(200);
    expect(res.redirected).toBe(false);
    expect(await res.json()).toEqual({ scripted: true });
  });
});

describe("other headers that carry a URL", () => {
  it("a 201's foreign Location is dropped, and Content-Location, Refresh and the like never come through", async () => {
    const res = await answerThrough({
      status: "201",
      location: `${foreign.origin}/created`,
      "h-content-location": `${foreign.origin}/created`,
      "h-refresh": `0; url=${foreign.origin}/x`,
      "h-operation-location": `${foreign.origin}/op`,
      "h-azure-asyncoperation": `${foreign.origin}/op`,
      "h-link": `<${foreign.origin}/x>; rel="preload"`,
    });
    expect(res.status).toBe(201);
    for (const name of ["location", "content-location", "refresh", "operation-location", "azure-asyncoperation", "link"]) {
      expect(res.headers.get(name), name).toBeNull();
    }
    expect(foreign.received).toEqual([]);
  });

  it("a Location and a Link under the base URL point at the passthrough", async () => {
    const res = await answerThrough({ status: "201", location: "/repos/octo/hello", link: `<${github.origin}/answer?page=2>; rel="next"` });
    expect(res.headers.get("location")).toBe(`${new URL(passthrough()).pathname}/repos/octo/hello`);
    expect(res.headers.get("link")).toBe(`<${passthrough()}/answer?page=2>; rel="next"`);
  });
});
