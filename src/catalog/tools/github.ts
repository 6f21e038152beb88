// GitHub's curated tools. Facts from GitHub's REST reference:
// https://docs.github.com/en/rest/search/search#search-issues-and-pull-requests
// https://docs.github.com/en/rest/issues/issues (get, create) and
// https://docs.github.com/en/rest/issues/comments#create-an-issue-comment
// https://docs.github.com/en/rest/pulls/pulls (list, get)
// https://docs.github.com/en/rest/repos/contents#get-repository-content (base64 `content`; files over
// 1 MB need the raw media type: https://github.blog/changelog/2022-05-03-increased-file-size-limit-when-retrieving-file-contents-via-rest-api)
// https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api (the Link header)
import { z } from "zod";
import { invalidArguments } from "../../core/tool-error.js";
import { defineTool, type Tool, type ToolContext } from "../../toolkits/define.js";
import { type ProviderErrors, request, requestJson, segment, withQuery } from "../../toolkits/provider-requests.js";
import { contentTypeFor, decodeBase64, excerpt, utf8Text } from "./content.js";

// GitHub answers 404, not 403, for a repository the connection may not see: the advice names both.
const GITHUB: ProviderErrors = {
  name: "GitHub",
  hints: { 404: "Check the identifiers: the resource does not exist or this connection cannot see it." },
};
const JSON_MEDIA = { accept: "application/vnd.github+json" };

const owner = z.string().min(1).max(100).meta({ description: "Account that owns the repository, e.g. `octocat`." });
const repo = z.string().min(1).max(100).meta({ description: "Repository name without `.git`, e.g. `hello-world`." });
const issueNumber = z.number().int().positive().meta({ description: "The issue or pull request number, e.g. 42." });
const perPage = z.number().int().min(1).max(100).default(30).meta({ description: "Results per page, 1 to 100 (default 30)." });
const page = z
  .number()
  .int()
  .min(1)
  .default(1)
  .meta({ description: "Page to fetch, from 1. Pass the `nextPage` of the previous result to continue." });

/** The page number of the `rel="next"` link of a Link header, or null on the last page. */
export function nextPageOf(link: string | null): number | null {
  if (!link) return null;
  for (const part of link.split(",")) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (!match) continue;
    const value = new URL(match[1]!).searchParams.get("page");
    return value && /^\d+$/.test(value) ? Number(value) : null;
  }
  return null;
}

interface GitHubUser {
  login: string;
}
interface GitHubLabel {
  name: string;
}
interface GitHubIssue {
  number: number;
  title: string;
  state: string;
  state_reason?: string | null;
  html_url: string;
  repository_url?: string;
  user: GitHubUser | null;
  labels: Array<GitHubLabel | string>;
  assignees?: GitHubUser[] | null;
  comments: number;
  body?: string | null;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  pull_request?: unknown;
  milestone?: { title: string } | null;
}

function issueSummary(issue: GitHubIssue, bodyLimit?: number) {
  return {
    number: issue.number,
    title: issue.title,
    state: issue.state,
    stateReason: issue.state_reason ?? null,
    isPullRequest: issue.pull_request !== undefined,
    repository: issue.repository_url?.replace(/^.*\/repos\//, "") ?? null,
    url: issue.html_url,
    author: issue.user?.login ?? null,
    labels: issue.labels.map((label) => (typeof label === "string" ? label : label.name)),
    assignees: (issue.assignees ?? []).map((user) => user.login),
    milestone: issue.milestone?.title ?? null,
    comments: issue.comments,
    createdAt: issue.created_at,
    updatedAt: issue.updated_at,
    closedAt: issue.closed_at,
    body: bodyLimit === undefined ? (issue.body ?? null) : excerpt(issue.body, bodyLimit),
  };
}

interface GitHubPull {
  number: number;
  title: string;
  state: string;
  draft?: boolean;
  html_url: string;
  user: GitHubUser | null;
  body?: string | null;
  head: { ref: string; sha: string; label?: string };
  base: { ref: string; sha: string; label?: string };
  labels: GitHubLabel[];
  requested_reviewers?: GitHubUser[];
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  merged_at: string | null;
  merged?: boolean;
  mergeable?: boolean | null;
  mergeable_state?: string;
  comments?: number;
  review_comments?: number;
  commits?: number;
  additions?: number;
  deletions?: number;
  changed_files?: number;
}

function pullSummary(pull: GitHubPull, bodyLimit?: number) {
  return {
    number: pull.number,
    title: pull.title,
    state: pull.state,
    draft: pull.draft ?? false,
    url: pull.html_url,
    author: pull.user?.login ?? null,
    head: pull.head.ref,
    base: pull.base.ref,
    headSha: pull.head.sha,
    labels: pull.labels.map((label) => label.name),
    requestedReviewers: (pull.requested_reviewers ?? []).map((user) => user.login),
    createdAt: pull.created_at,
    updatedAt: pull.updated_at,
    closedAt: pull.closed_at,
    mergedAt: pull.merged_at,
    body: bodyLimit === undefined ? (pull.body ?? null) : excerpt(pull.body, bodyLimit),
  };
}

const repoPath = (args: { owner: string; repo: string }) => `/repos/${segment(args.owner)}/${segment(args.repo)}`;

const searchIssues = defineTool({
  slug: "GITHUB_SEARCH_ISSUES",
  name: "Search issues and pull requests",
  description:
    "Searches issues and pull requests across GitHub with GitHub's search syntax, e.g. `repo:octocat/hello-world is:issue is:open label:bug`, " +
    "`is:pr author:alice`, `involves:@me updated:>2024-01-01`. Returns `totalCount`, `items` (number, title, state, repository as owner/name, " +
    "url, author, labels, comment count, dates and the first 500 characters of the body) and `nextPage`, the page to pass to get more " +
    "(null on the last page). GitHub returns at most 1,000 results per query: narrow the query rather than paging far.",
  input: z.object({
    query: z.string().min(1).max(256).meta({ description: "GitHub search query; add `is:issue` or `is:pr` to choose one kind." }),
    sort: z.enum(["comments", "reactions", "created", "updated"]).optional().meta({ description: "Sort field; best match when left out." }),
    order: z.enum(["asc", "desc"]).optional().meta({ description: "Sort direction when `sort` is set (default desc)." }),
    perPage,
    page,
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const response = await request(ctx, GITHUB, "/search/issues", {
      query: { q: args.query, sort: args.sort, order: args.order, per_page: args.perPage, page: args.page },
      headers: JSON_MEDIA,
    });
    const body = (await response.json()) as { total_count: number; incomplete_results: boolean; items: GitHubIssue[] };
    return {
      totalCount: body.total_count,
      incompleteResults: body.incomplete_results,
      items: body.items.map((item) => issueSummary(item, 500)),
      nextPage: nextPageOf(response.headers.get("link")),
    };
  },
});

const getIssue = defineTool({
  slug: "GITHUB_GET_ISSUE",
  name: "Get issue",
  description:
    "Gets one issue (or pull request, seen as an issue) of a repository: title, state, author, labels, assignees, milestone, comment count, " +
    "dates and the full body in Markdown. Use GITHUB_GET_PULL_REQUEST for a pull request's branches and merge state.",
  input: z.object({ owner, repo, issueNumber }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const issue = await requestJson<GitHubIssue>(ctx, GITHUB, `${repoPath(args)}/issues/${args.issueNumber}`, { headers: JSON_MEDIA });
    return issueSummary(issue);
  },
});

const createIssue = defineTool({
  slug: "GITHUB_CREATE_ISSUE",
  name: "Create issue",
  description:
    "Opens a new issue in a repository and returns it (number, url and the rest). Labels, assignees and a milestone are set only when " +
    "the connection can push to the repository; otherwise GitHub drops them silently.",
  input: z.object({
    owner,
    repo,
    title: z.string().min(1).max(256).meta({ description: "The issue's title." }),
    body: z.string().max(65536).optional().meta({ description: "The issue's text, in GitHub Markdown." }),
    labels: z.array(z.string().min(1)).optional().meta({ description: "Names of labels to add; missing labels are created." }),
    assignees: z.array(z.string().min(1)).max(10).optional().meta({ description: "Logins of users to assign." }),
    milestone: z.number().int().positive().optional().meta({ description: "Number of the milestone to put the issue in." }),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  async run(args, ctx) {
    const { owner: _o, repo: _r, ...fields } = args;
    const issue = await requestJson<GitHubIssue>(ctx, GITHUB, `${repoPath(args)}/issues`, {
      method: "POST",
      json: fields,
      headers: JSON_MEDIA,
    });
    return issueSummary(issue);
  },
});

const commentOnIssue = defineTool({
  slug: "GITHUB_CREATE_ISSUE_COMMENT",
  name: "Comment on issue or pull request",
  description: "Adds a comment to an issue or a pull request's conversation. Returns the comment's id, url, author and creation time.",
  input: z.object({
    owner,
    repo,
    issueNumber,
    body: z.string().min(1).max(65536).meta({ description: "The comment, in GitHub Markdown." }),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  async run(args, ctx) {
    const comment = await requestJson<{ id: number; html_url: string; user: GitHubUser | null; created_at: string; body: string }>(
      ctx,
      GITHUB,
      `${repoPath(args)}/issues/${args.issueNumber}/comments`,
      { method: "POST", json: { body: args.body }, headers: JSON_MEDIA },
    );
    return {
      id: comment.id,
      url: comment.html_url,
      author: comment.user?.login ?? null,
      createdAt: comment.created_at,
      body: comment.body,
    };
  },
});

const listPulls = defineTool({
  slug: "GITHUB_LIST_PULL_REQUESTS",
  name: "List pull requests",
  description:
    "Lists a repository's pull requests, open ones by default, newest first. Returns `items` (number, title, state, draft, author, " +
    "head and base branches, labels, requested reviewers, dates, the first 500 characters of the body) and `nextPage` (null on the last page).",
  input: z.object({
    owner,
    repo,
    state: z.enum(["open", "closed", "all"]).default("open").meta({ description: "Which pull requests (default open)." }),
    head: z.string().optional().meta({ description: "Only those from this branch, written `user:branch` or `org:branch`." }),
    base: z.string().optional().meta({ description: "Only those that merge into this branch, e.g. `main`." }),
    sort: z.enum(["created", "updated", "popularity", "long-running"]).default("created").meta({ description: "Sort field." }),
    direction: z.enum(["asc", "desc"]).default("desc").meta({ description: "Sort direction." }),
    perPage,
    page,
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const response = await request(ctx, GITHUB, `${repoPath(args)}/pulls`, {
      query: {
        state: args.state,
        head: args.head,
        base: args.base,
        sort: args.sort,
        direction: args.direction,
        per_page: args.perPage,
        page: args.page,
      },
      headers: JSON_MEDIA,
    });
    const pulls = (await response.json()) as GitHubPull[];
    return { items: pulls.map((pull) => pullSummary(pull, 500)), nextPage: nextPageOf(response.headers.get("link")) };
  },
});

const getPull = defineTool({
  slug: "GITHUB_GET_PULL_REQUEST",
  name: "Get pull request",
  description:
    "Gets one pull request: title, state, draft, author, head and base branches, whether it is merged or mergeable, the number of " +
    "commits, changed files, additions and deletions, comment counts, dates and the full body.",
  input: z.object({ owner, repo, pullNumber: issueNumber }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const pull = await requestJson<GitHubPull>(ctx, GITHUB, `${repoPath(args)}/pulls/${args.pullNumber}`, { headers: JSON_MEDIA });
    return {
      ...pullSummary(pull),
      merged: pull.merged ?? pull.merged_at !== null,
      mergeable: pull.mergeable ?? null,
      mergeableState: pull.mergeable_state ?? null,
      comments: pull.comments ?? 0,
      reviewComments: pull.review_comments ?? 0,
      commits: pull.commits ?? 0,
      changedFiles: pull.changed_files ?? 0,
      additions: pull.additions ?? 0,
      deletions: pull.deletions ?? 0,
    };
  },
});

interface ContentEntry {
  type: "file" | "dir" | "symlink" | "submodule";
  name: string;
  path: string;
  sha: string;
  size: number;
  html_url: string | null;
  encoding?: string;
  content?: string;
  target?: string;
  submodule_git_url?: string;
}

/** The bytes of a file entry: its base64 `content`, or the raw media type for files over 1 MB. */
async function fileBytes(ctx: ToolContext, url: string, entry: ContentEntry): Promise<Uint8Array> {
  if (entry.encoding === "base64" && entry.content !== undefined && (entry.content !== "" || entry.size === 0)) {
    return decodeBase64(entry.content);
  }
  const raw = await request(ctx, GITHUB, url, { headers: { accept: "application/vnd.github.raw+json" } });
  return new Uint8Array(await raw.arrayBuffer());
}

const getFileContents = defineTool({
  slug: "GITHUB_GET_FILE_CONTENTS",
  name: "Get file contents",
  description:
    "Reads a file (or lists a directory) of a repository at a branch, tag or commit. A UTF-8 text file up to `maxTextBytes` comes back " +
    "as `content`; a binary or larger file is staged and comes back as `file`, a staging reference whose `stagingKey` GET /files/{key} " +
    "reads. A directory comes back as `entries` (name, path, type, size). Files up to 100 MB can be read.",
  input: z.object({
    owner,
    repo,
    path: z
      .string()
      .max(1024)
      .default("")
      .meta({ description: "Path in the repository, e.g. `src/index.ts`; empty for the root directory." }),
    ref: z.string().max(255).optional().meta({ description: "Branch, tag or commit SHA; the default branch when left out." }),
    maxTextBytes: z
      .number()
      .int()
      .min(0)
      .max(1_000_000)
      .default(100_000)
      .meta({ description: "Largest text file returned inline; larger ones are staged (default 100000). 0 stages every file." }),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const segments = args.path.split("/").filter(Boolean);
    if (segments.some((part) => part === "." || part === "..")) {
      throw invalidArguments("path must not contain `.` or `..` segments; give the file's path from the repository root.");
    }
    const url = withQuery(`${repoPath(args)}/contents/${segments.map(segment).join("/")}`, { ref: args.ref });
    const answer = await requestJson<ContentEntry | ContentEntry[]>(ctx, GITHUB, url, { headers: JSON_MEDIA });
    if (Array.isArray(answer)) {
      return {
        type: "dir",
        path: args.path,
        entries: answer.map((entry) => ({ name: entry.name, path: entry.path, type: entry.type, size: entry.size, sha: entry.sha })),
      };
    }
    const common = { type: answer.type, name: answer.name, path: answer.path, sha: answer.sha, size: answer.size, url: answer.html_url };
    if (answer.type === "symlink") return { ...common, target: answer.target ?? null };
    if (answer.type === "submodule") return { ...common, submoduleUrl: answer.submodule_git_url ?? null };
    const bytes = await fileBytes(ctx, url, answer);
    const text = bytes.length <= args.maxTextBytes ? utf8Text(bytes) : null;
    if (text !== null) return { ...common, encoding: "utf-8", content: text };
    const file = await ctx.files.stage(bytes, { contentType: contentTypeFor(answer.name), filename: answer.name });
    return { ...common, file };
  },
});

/** GitHub's curated tools: issues, pull requests and file contents. */
export const githubTools: Tool[] = [searchIssues, getIssue, createIssue, commentOnIssue, listPulls, getPull, getFileContents];
