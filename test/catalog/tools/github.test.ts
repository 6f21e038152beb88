/**
 * GitHub's curated tools over an emulation of the REST API. Answer shapes follow GitHub's reference:
 * https://docs.github.com/en/rest/search/search#search-issues-and-pull-requests
 * https://docs.github.com/en/rest/issues/issues#get-an-issue
 * https://docs.github.com/en/rest/issues/issues#create-an-issue (422 "Validation Failed" with `errors`)
 * https://docs.github.com/en/rest/issues/comments#create-an-issue-comment
 * https://docs.github.com/en/rest/pulls/pulls#list-pull-requests
 * https://docs.github.com/en/rest/pulls/pulls#get-a-pull-request
 * https://docs.github.com/en/rest/repos/contents#get-repository-content
 * https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api (Link header)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubTools } from "../../../src/catalog/tools/github.js";
import { expectAuthorized, reply, toolkitHarness } from "./support.js";

const API = "https://api.github.com";
let t: Awaited<ReturnType<typeof toolkitHarness>>;

beforeAll(async () => {
  t = await toolkitHarness({ slug: "github", name: "GitHub", baseUrl: API, tools: githubTools });
});
afterAll(() => t.close());

const issue = (number: number, extra: Record<string, unknown> = {}) => ({
  url: `${API}/repos/octo/app/issues/${number}`,
  repository_url: `${API}/repos/octo/app`,
  html_url: `https://github.com/octo/app/issues/${number}`,
  number,
  state: "open",
  state_reason: null,
  title: `Issue ${number}`,
  body: "Steps to reproduce...",
  user: { login: "alice", id: 1 },
  labels: [{ id: 7, name: "bug", color: "f29513" }],
  assignees: [{ login: "bob" }],
  milestone: null,
  comments: 3,
  created_at: "2024-01-01T00:00:00Z",
  updated_at: "2024-01-02T00:00:00Z",
  closed_at: null,
  ...extra,
});

const pull = (number: number) => ({
  number,
  state: "open",
  title: `PR ${number}`,
  draft: false,
  html_url: `https://github.com/octo/app/pull/${number}`,
  user: { login: "carol" },
  body: "Fixes #1",
  head: { ref: "fix-bug", sha: "abc123", label: "octo:fix-bug" },
  base: { ref: "main", sha: "def456", label: "octo:main" },
  labels: [],
  requested_reviewers: [{ login: "dave" }],
  created_at: "2024-01-03T00:00:00Z",
  updated_at: "2024-01-04T00:00:00Z",
  closed_at: null,
  merged_at: null,
});

describe("GITHUB_SEARCH_ISSUES", () => {
  it("sends the query and returns the next page from the Link header", async () => {
    t.api.answer(() =>
      reply(
        { total_count: 2, incomplete_results: false, items: [issue(1), issue(2, { pull_request: { url: "x" }, body: "y".repeat(900) })] },
        200,
        {
          link: `<${API}/search/issues?q=repo%3Aocto%2Fapp&per_page=2&page=2>; rel="next", <${API}/search/issues?q=repo%3Aocto%2Fapp&per_page=2&page=5>; rel="last"`,
        },
      ),
    );
    const result = await t.execute("GITHUB_SEARCH_ISSUES", { query: "repo:octo/app is:open", perPage: 2, sort: "updated" });
    expect(result.successful, result.error ?? "").toBe(true);
    const [request] = t.api.sent;
    expect(request!.method).toBe("GET");
    expect(request!.url.origin + request!.url.pathname).toBe(`${API}/search/issues`);
    expect(Object.fromEntries(request!.url.searchParams)).toEqual({
      q: "repo:octo/app is:open",
      sort: "updated",
      per_page: "2",
      page: "1",
    });
    expectAuthorized(t.api.sent);
    expect(result.data.nextPage).toBe(2);
    expect(result.data.totalCount).toBe(2);
    expect(result.data.items[0]).toMatchObject({
      number: 1,
      repository: "octo/app",
      author: "alice",
      labels: ["bug"],
      isPullRequest: false,
    });
    expect(result.data.items[1].isPullRequest).toBe(true);
    expect(result.data.items[1].body).toHaveLength(500);
  });

  it("reports no next page on the last page", async () => {
    t.api.answer(() =>
      reply({ total_count: 1, incomplete_results: false, items: [issue(1)] }, 200, {
        link: `<${API}/search/issues?q=x&page=1>; rel="first", <${API}/search/issues?q=x&page=1>; rel="prev"`,
      }),
    );
    const result = await t.execute("GITHUB_SEARCH_ISSUES", { query: "x", page: 2 });
    expect(t.api.sent[0]!.url.searchParams.get("page")).toBe("2");
    expect(result.data.nextPage).toBeNull();
  });
});

describe("issues", () => {
  it("GITHUB_GET_ISSUE gets one issue with its whole body", async () => {
    t.api.answer(() => reply(issue(42, { body: "z".repeat(2000) })));
    const result = await t.execute("GITHUB_GET_ISSUE", { owner: "octo", repo: "app", issueNumber: 42 });
    expect(t.api.sent[0]!.url.href).toBe(`${API}/repos/octo/app/issues/42`);
    expect(result.data).toMatchObject({ number: 42, title: "Issue 42", assignees: ["bob"], comments: 3 });
    expect(result.data.body).toHaveLength(2000);
  });

  it("GITHUB_CREATE_ISSUE posts the fields and returns the issue", async () => {
    t.api.answer(() => reply(issue(43, { title: "Crash on start" }), 201));
    const result = await t.execute("GITHUB_CREATE_ISSUE", {
      owner: "octo",
      repo: "app",
      title: "Crash on start",
      body: "It crashes.",
      labels: ["bug"],
    });
    const [request] = t.api.sent;
    expect(request!.method).toBe("POST");
    expect(request!.url.href).toBe(`${API}/repos/octo/app/issues`);
    expect(request!.headers.get("content-type")).toBe("application/json");
    expect(request!.json()).toEqual({ title: "Crash on start", body: "It crashes.", labels: ["bug"] });
    expectAuthorized(t.api.sent);
    expect(result.data).toMatchObject({ number: 43, url: "https://github.com/octo/app/issues/43" });
  });

  it("GITHUB_CREATE_ISSUE reports GitHub's 422 with its validation errors and what to do", async () => {
    t.api.answer(() =>
      reply(
        {
          message: "Validation Failed",
          errors: [{ resource: "Issue", code: "invalid", field: "assignees", message: "nobody is not assignable" }],
          documentation_url: "https://docs.github.com/rest/issues/issues#create-an-issue",
        },
        422,
      ),
    );
    const result = await t.execute("GITHUB_CREATE_ISSUE", { owner: "octo", repo: "app", title: "x", assignees: ["nobody"] });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 422, data: null });
    expect(result.error).toMatch(/^GitHub answered 422: Validation Failed \(nobody is not assignable\)\. Fix the arguments/);
  });

  it("GITHUB_CREATE_ISSUE_COMMENT posts the comment", async () => {
    t.api.answer(() =>
      reply(
        {
          id: 99,
          html_url: "https://github.com/octo/app/issues/42#issuecomment-99",
          body: "On it",
          user: { login: "me" },
          created_at: "2024-02-01T00:00:00Z",
        },
        201,
      ),
    );
    const result = await t.execute("GITHUB_CREATE_ISSUE_COMMENT", { owner: "octo", repo: "app", issueNumber: 42, body: "On it" });
    expect(t.api.sent[0]!.method).toBe("POST");
    expect(t.api.sent[0]!.url.pathname).toBe("/repos/octo/app/issues/42/comments");
    expect(t.api.sent[0]!.json()).toEqual({ body: "On it" });
    expect(result.data).toEqual({
      id: 99,
      url: "https://github.com/octo/app/issues/42#issuecomment-99",
      author: "me",
      createdAt: "2024-02-01T00:00:00Z",
      body: "On it",
    });
  });

  it("encodes owner and repo so they cannot add path segments", async () => {
    t.api.answer(() => reply(issue(1)));
    await t.execute("GITHUB_GET_ISSUE", { owner: "octo", repo: "app?x=1", issueNumber: 1 });
    expect(t.api.sent[0]!.url.pathname).toBe("/repos/octo/app%3Fx%3D1/issues/1");
    expect(t.api.sent[0]!.url.search).toBe("");
  });
});

describe("pull requests", () => {
  it("GITHUB_LIST_PULL_REQUESTS filters and pages", async () => {
    t.api.answer(() => reply([pull(5), pull(6)], 200, { link: `<${API}/repositories/1/pulls?state=all&per_page=2&page=3>; rel="next"` }));
    const result = await t.execute("GITHUB_LIST_PULL_REQUESTS", {
      owner: "octo",
      repo: "app",
      state: "all",
      base: "main",
      perPage: 2,
      page: 2,
    });
    const url = t.api.sent[0]!.url;
    expect(url.pathname).toBe("/repos/octo/app/pulls");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      state: "all",
      base: "main",
      sort: "created",
      direction: "desc",
      per_page: "2",
      page: "2",
    });
    expect(result.data.nextPage).toBe(3);
    expect(result.data.items[0]).toMatchObject({ number: 5, head: "fix-bug", base: "main", requestedReviewers: ["dave"] });
  });

  it("GITHUB_GET_PULL_REQUEST returns the merge state and size", async () => {
    t.api.answer(() =>
      reply({
        ...pull(7),
        merged: false,
        mergeable: true,
        mergeable_state: "clean",
        comments: 1,
        review_comments: 2,
        commits: 3,
        additions: 10,
        deletions: 4,
        changed_files: 2,
      }),
    );
    const result = await t.execute("GITHUB_GET_PULL_REQUEST", { owner: "octo", repo: "app", pullNumber: 7 });
    expect(t.api.sent[0]!.url.pathname).toBe("/repos/octo/app/pulls/7");
    expect(result.data).toMatchObject({
      number: 7,
      merged: false,
      mergeable: true,
      mergeableState: "clean",
      commits: 3,
      additions: 10,
      deletions: 4,
      changedFiles: 2,
    });
  });

  it("GITHUB_GET_PULL_REQUEST reports a 404 and says to check the identifiers", async () => {
    t.api.answer(() =>
      reply({ message: "Not Found", documentation_url: "https://docs.github.com/rest/pulls/pulls#get-a-pull-request", status: "404" }, 404),
    );
    const result = await t.execute("GITHUB_GET_PULL_REQUEST", { owner: "octo", repo: "app", pullNumber: 999 });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 404 });
    expect(result.error).toMatch(/GitHub answered 404: Not Found\. Check the identifiers/);
  });
});

describe("GITHUB_GET_FILE_CONTENTS", () => {
  const entry = (name: string, content: string, size: number, encoding = "base64") => ({
    type: "file",
    encoding,
    size,
    name,
    path: `docs/${name}`,
    content,
    sha: "3d21ec53a331a6f037a91c368710b99387d012c1",
    html_url: `https://github.com/octo/app/blob/main/docs/${name}`,
    download_url: `https://raw.githubusercontent.com/octo/app/main/docs/${name}`,
  });

  it("decodes a base64 text file", async () => {
    const text = "# Hello\nUnicode: é ✓\n";
    // GitHub wraps the base64 at 60 characters with newlines.
    const encoded = Buffer.from(text)
      .toString("base64")
      .replace(/(.{20})/g, "$1\n");
    t.api.answer(() => reply(entry("README.md", encoded, Buffer.byteLength(text))));
    const result = await t.execute("GITHUB_GET_FILE_CONTENTS", { owner: "octo", repo: "app", path: "docs/README.md", ref: "v1.0" });
    expect(t.api.sent[0]!.url.pathname).toBe("/repos/octo/app/contents/docs/README.md");
    expect(t.api.sent[0]!.url.searchParams.get("ref")).toBe("v1.0");
    expect(result.data).toMatchObject({ type: "file", path: "docs/README.md", encoding: "utf-8", content: text });
  });

  it("stages a binary file, readable with GET /files/{key}", async () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    t.api.answer(() => reply(entry("logo.png", Buffer.from(png).toString("base64"), png.length)));
    const result = await t.execute("GITHUB_GET_FILE_CONTENTS", { owner: "octo", repo: "app", path: "docs/logo.png" });
    expect(result.data.content).toBeUndefined();
    expect(result.data.file).toMatchObject({ contentType: "image/png", filename: "logo.png", size: png.length });
    const file = await t.download(result.data.file.stagingKey);
    expect(file.bytes).toEqual(png);
    expect(file.contentType).toBe("image/png");
  });

  it("fetches a file over 1 MB with the raw media type and stages it", async () => {
    const big = "a".repeat(2000);
    t.api.answer((request) =>
      request.headers.get("accept") === "application/vnd.github.raw+json"
        ? new Response(big, { headers: { "content-type": "application/vnd.github.raw" } })
        : reply(entry("big.txt", "", 2000, "none")),
    );
    const result = await t.execute("GITHUB_GET_FILE_CONTENTS", { owner: "octo", repo: "app", path: "docs/big.txt", maxTextBytes: 1000 });
    expect(t.api.sent.map((r) => r.headers.get("accept"))).toEqual(["application/vnd.github+json", "application/vnd.github.raw+json"]);
    expectAuthorized(t.api.sent);
    expect(result.data.file).toMatchObject({ contentType: "text/plain", size: 2000 });
    expect((await t.download(result.data.file.stagingKey)).text).toBe(big);
  });

  it("lists a directory", async () => {
    t.api.answer(() =>
      reply([
        { type: "file", size: 10, name: "a.md", path: "docs/a.md", sha: "1", html_url: "h" },
        { type: "dir", size: 0, name: "img", path: "docs/img", sha: "2", html_url: "h" },
      ]),
    );
    const result = await t.execute("GITHUB_GET_FILE_CONTENTS", { owner: "octo", repo: "app", path: "docs" });
    expect(result.data).toEqual({
      type: "dir",
      path: "docs",
      entries: [
        { name: "a.md", path: "docs/a.md", type: "file", size: 10, sha: "1" },
        { name: "img", path: "docs/img", type: "dir", size: 0, sha: "2" },
      ],
    });
  });

  it("refuses dot segments before sending anything", async () => {
    t.api.answer(() => reply({}));
    const result = await t.execute("GITHUB_GET_FILE_CONTENTS", { owner: "octo", repo: "app", path: "docs/../../secrets" });
    expect(result).toMatchObject({ successful: false, code: "invalid_arguments" });
    expect(t.api.sent).toHaveLength(0);
  });
});
