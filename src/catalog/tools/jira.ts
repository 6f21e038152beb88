/**
 * Jira Cloud tools, over REST v3 at https://api.atlassian.com/ex/jira/{cloudId} (the connection's
 * cloudId fills the base URL). Written from Atlassian's Jira Cloud platform REST API v3 reference:
 * - search with JQL (nextPageToken, isLast): https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issue-search/#api-rest-api-3-search-jql-get
 * - issues (get, create, edit, transitions): https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issues/
 * - comments: https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issue-comments/#api-rest-api-3-issue-issueidorkey-comment-post
 * - projects (paginated search): https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-projects/#api-rest-api-3-project-search-get
 * - user search: https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-user-search/#api-rest-api-3-user-search-get
 * - Atlassian Document Format for descriptions and comments: https://developer.atlassian.com/cloud/jira/platform/apis/document/structure/
 * - errors ({ errorMessages: [], errors: { field: message } }): https://developer.atlassian.com/cloud/jira/platform/rest/v3/intro/#status-codes
 */
import { z } from "zod";
import { ToolRunError } from "../../core/tool-error.js";
import { defineTool, type Tool, type ToolContext } from "../../toolkits/define.js";
import { type ProviderErrors, type ProviderRequest, requestJson, segment } from "../../toolkits/provider-requests.js";
import { cursorArgument, pageSize } from "./arguments.js";
import { field } from "./content.js";

const JIRA: ProviderErrors = {
  name: "Jira",
  reason(body) {
    const messages = field(body, "errorMessages");
    const errors = field(body, "errors");
    const parts = [
      ...(Array.isArray(messages) ? messages.filter((m) => typeof m === "string") : []),
      ...(errors && typeof errors === "object" ? Object.entries(errors).map(([name, message]) => `${name}: ${String(message)}`) : []),
    ];
    return parts.length ? parts.join("; ") : undefined;
  },
};

type Json = Record<string, unknown>;
const call = (ctx: ToolContext, path: string, request?: ProviderRequest) =>
  requestJson(ctx, JIRA, `/rest/api/3${path}`, request) as Promise<Json>;

/** Atlassian Document Format for plain text: a paragraph per block of lines, line breaks kept. */
export function textToAdf(text: string): Json {
  const paragraphs = text.split(/\r?\n\s*\r?\n/).filter((block) => block.trim() !== "");
  return {
    type: "doc",
    version: 1,
    content: paragraphs.map((block) => ({
      type: "paragraph",
      content: block
        .split(/\r?\n/)
        .flatMap((line, i) => [...(i > 0 ? [{ type: "hardBreak" }] : []), ...(line ? [{ type: "text", text: line }] : [])]),
    })),
  };
}

const BLOCKS = new Set(["paragraph", "heading", "blockquote", "codeBlock", "listItem", "rule", "panel"]);

/** The text of an Atlassian Document Format node: blocks on their own lines, list items with "- ". */
export function adfToText(node: unknown): string {
  if (!node || typeof node !== "object") return "";
  const type = field(node, "type");
  if (type === "text") return String(field(node, "text") ?? "");
  if (type === "hardBreak") return "\n";
  if (type === "mention") return String(field(field(node, "attrs"), "text") ?? "");
  const content = field(node, "content");
  const inner = Array.isArray(content) ? content.map(adfToText).join("") : "";
  if (type === "listItem") return `- ${inner.trim()}\n`;
  return BLOCKS.has(type as string) ? `${inner.trimEnd()}\n` : inner;
}

const user = (value: unknown) => (value ? { accountId: field(value, "accountId"), displayName: field(value, "displayName") } : null);

function issue(raw: unknown, withDescription = false): Json {
  const fields = (field(raw, "fields") ?? {}) as Json;
  return {
    id: field(raw, "id"),
    key: field(raw, "key"),
    summary: fields.summary ?? null,
    status: field(fields.status, "name") ?? null,
    statusCategory: field(field(fields.status, "statusCategory"), "name") ?? null,
    issueType: field(fields.issuetype, "name") ?? null,
    priority: field(fields.priority, "name") ?? null,
    assignee: user(fields.assignee),
    reporter: user(fields.reporter),
    project: fields.project ? { key: field(fields.project, "key"), name: field(fields.project, "name") } : null,
    labels: fields.labels ?? [],
    created: fields.created ?? null,
    updated: fields.updated ?? null,
    ...(withDescription ? { description: fields.description ? adfToText(fields.description).trim() : "" } : {}),
  };
}

const SEARCH_FIELDS = ["summary", "status", "issuetype", "priority", "assignee", "reporter", "project", "labels", "created", "updated"];

const issueKey = z.string().min(1).max(100).describe("The issue's key (e.g. 'PROJ-42') or numeric id.");

const searchIssues = defineTool({
  slug: "JIRA_SEARCH_ISSUES",
  name: "Search Jira issues with JQL",
  description:
    'Finds issues with a JQL query, e.g. "project = PROJ AND status != Done ORDER BY updated DESC" or "assignee = currentUser()". ' +
    "The query must be bounded (name a project, assignee, date or similar). Returns { results: [{ key, summary, status, " +
    "issueType, priority, assignee, project, labels, updated, ... }], nextCursor }; pass nextCursor back as cursor for more.",
  input: z.object({
    jql: z.string().min(1).max(10_000).describe("The JQL query."),
    cursor: cursorArgument,
    limit: pageSize(100, 25),
  }),
  annotations: { readOnly: true },
  async run(args, ctx) {
    const answer = await call(ctx, "/search/jql", {
      query: { jql: args.jql, maxResults: args.limit, fields: SEARCH_FIELDS.join(","), nextPageToken: args.cursor },
    });
    // Jira leaves nextPageToken out (or null) on the last page.
    const next = typeof answer.nextPageToken === "string" ? answer.nextPageToken : null;
    return { results: ((answer.issues as unknown[]) ?? []).map((raw) => issue(raw)), nextCursor: next };
  },
});

const getIssue = defineTool({
  slug: "JIRA_GET_ISSUE",
  name: "Get a Jira issue",
  description:
    "Reads an issue by key: summary, description (as plain text), status, type, priority, assignee, reporter, project, labels, " +
    "dates, and its latest comments ({ id, author, body, created }, at most 20).",
  input: z.object({ issue: issueKey }),
  annotations: { readOnly: true },
  async run(args, ctx) {
    const raw = await call(ctx, `/issue/${segment(args.issue)}`, {
      query: { fields: [...SEARCH_FIELDS, "description", "comment"].join(",") },
    });
    const comments = (field(field(raw.fields, "comment"), "comments") as unknown[] | undefined) ?? [];
    return {
      ...issue(raw, true),
      comments: comments.slice(-20).map((comment) => ({
        id: field(comment, "id"),
        author: user(field(comment, "author")),
        body: adfToText(field(comment, "body")).trim(),
        created: field(comment, "created"),
      })),
    };
  },
});

const description = z.string().max(30_000).optional().describe("Plain text; blank lines separate paragraphs.");
const labels = z
  .array(z.string().min(1).max(255).regex(/^\S+$/, "must have no spaces"))
  .max(50)
  .optional()
  .describe("Labels, each one word without spaces; on an update they replace the issue's labels.");

const createIssue = defineTool({
  slug: "JIRA_CREATE_ISSUE",
  name: "Create a Jira issue",
  description:
    "Creates an issue in a project (its key, see JIRA_LIST_PROJECTS) of a type such as Task, Bug or Story. Returns { id, key, " +
    "self } (self: its REST URL). A project may require more fields; Jira's answer then names them.",
  input: z.object({
    projectKey: z.string().min(1).max(100).describe("The project's key, e.g. 'PROJ'."),
    summary: z.string().min(1).max(255).describe("The issue's one-line title."),
    issueType: z.string().min(1).max(100).default("Task").describe("The issue type's name, e.g. Task, Bug, Story, Epic."),
    description,
    assigneeAccountId: z.string().min(1).max(128).optional().describe("The assignee's accountId (JIRA_FIND_USERS)."),
    priority: z.string().min(1).max(100).optional().describe("The priority's name, e.g. High."),
    labels,
    parentKey: z.string().min(1).max(100).optional().describe("The parent issue's key, for a sub-task or an issue under an epic."),
  }),
  annotations: { readOnly: false, destructive: false },
  async run(args, ctx) {
    const fields: Json = { project: { key: args.projectKey }, summary: args.summary, issuetype: { name: args.issueType } };
    if (args.description) fields.description = textToAdf(args.description);
    if (args.assigneeAccountId) fields.assignee = { accountId: args.assigneeAccountId };
    if (args.priority) fields.priority = { name: args.priority };
    if (args.labels) fields.labels = args.labels;
    if (args.parentKey) fields.parent = { key: args.parentKey };
    const created = await call(ctx, "/issue", { method: "POST", json: { fields } });
    return { id: created.id, key: created.key, self: created.self };
  },
});

const updateIssue = defineTool({
  slug: "JIRA_UPDATE_ISSUE",
  name: "Update a Jira issue",
  description:
    "Changes an issue's summary, description, assignee (null unassigns), priority or labels (replaced). Only the fields given " +
    "change. To change its status, use JIRA_TRANSITION_ISSUE. Returns { key, updated: [field names] }.",
  input: z.object({
    issue: issueKey,
    summary: z.string().min(1).max(255).optional().describe("A new one-line title."),
    description,
    assigneeAccountId: z.string().min(1).max(128).nullable().optional().describe("The assignee's accountId, or null to unassign."),
    priority: z.string().min(1).max(100).optional().describe("A new priority, by name, e.g. High."),
    labels,
  }),
  annotations: { readOnly: false, destructive: false, idempotent: true },
  async run(args, ctx) {
    const fields: Json = {};
    if (args.summary !== undefined) fields.summary = args.summary;
    if (args.description !== undefined) fields.description = textToAdf(args.description);
    if (args.assigneeAccountId !== undefined)
      fields.assignee = args.assigneeAccountId === null ? null : { accountId: args.assigneeAccountId };
    if (args.priority !== undefined) fields.priority = { name: args.priority };
    if (args.labels !== undefined) fields.labels = args.labels;
    if (Object.keys(fields).length === 0)
      throw new ToolRunError("Nothing to change: give at least one field.", { code: "invalid_arguments" });
    await call(ctx, `/issue/${segment(args.issue)}`, { method: "PUT", json: { fields } });
    return { key: args.issue, updated: Object.keys(fields) };
  },
});

const addComment = defineTool({
  slug: "JIRA_ADD_COMMENT",
  name: "Comment on a Jira issue",
  description: "Adds a comment (plain text; blank lines separate paragraphs) to an issue. Returns { id, author, created }.",
  input: z.object({
    issue: issueKey,
    body: z.string().min(1).max(30_000).describe("The comment as plain text; blank lines separate paragraphs."),
  }),
  annotations: { readOnly: false, destructive: false },
  async run(args, ctx) {
    const comment = await call(ctx, `/issue/${segment(args.issue)}/comment`, { method: "POST", json: { body: textToAdf(args.body) } });
    return { id: comment.id, author: user(comment.author), created: comment.created ?? null };
  },
});

interface Transition {
  id: string;
  name: string;
  to: string | null;
}

async function transitionsOf(ctx: ToolContext, key: string): Promise<Transition[]> {
  const answer = await call(ctx, `/issue/${segment(key)}/transitions`);
  return ((answer.transitions as unknown[]) ?? []).map((t) => ({
    id: String(field(t, "id")),
    name: String(field(t, "name")),
    to: (field(field(t, "to"), "name") as string | undefined) ?? null,
  }));
}

const listTransitions = defineTool({
  slug: "JIRA_LIST_TRANSITIONS",
  name: "List a Jira issue's transitions",
  description:
    "Lists the workflow transitions the issue can take now: { results: [{ id, name, to }] }, `to` being the status it leads " +
    "to. Pass an id or name to JIRA_TRANSITION_ISSUE.",
  input: z.object({ issue: issueKey }),
  annotations: { readOnly: true },
  run: async (args, ctx) => ({ results: await transitionsOf(ctx, args.issue) }),
});

const transitionIssue = defineTool({
  slug: "JIRA_TRANSITION_ISSUE",
  name: "Move a Jira issue to another status",
  description:
    "Takes a workflow transition: `transition` is its id, its name, or the name of the status it leads to (e.g. 'Done'), any " +
    "case. An unknown name fails listing the transitions available. Returns { key, transition: { id, name, to } }.",
  input: z.object({
    issue: issueKey,
    transition: z.string().min(1).max(255).describe("Transition id or name, or the target status's name."),
  }),
  annotations: { readOnly: false, destructive: false },
  async run(args, ctx) {
    const available = await transitionsOf(ctx, args.issue);
    const wanted = args.transition.toLowerCase();
    const chosen =
      available.find((t) => t.id === args.transition) ??
      available.find((t) => t.name.toLowerCase() === wanted) ??
      available.find((t) => t.to?.toLowerCase() === wanted);
    if (!chosen) {
      const names = available.map((t) => `${t.name} (id ${t.id}${t.to ? `, to ${t.to}` : ""})`).join(", ") || "none";
      throw new ToolRunError(`Issue ${args.issue} has no transition "${args.transition}" now. Available: ${names}.`, {
        code: "invalid_arguments",
      });
    }
    await call(ctx, `/issue/${segment(args.issue)}/transitions`, { method: "POST", json: { transition: { id: chosen.id } } });
    return { key: args.issue, transition: chosen };
  },
});

const listProjects = defineTool({
  slug: "JIRA_LIST_PROJECTS",
  name: "List Jira projects",
  description:
    "Lists the projects the connection can see, optionally those whose key or name contains `query`: { results: [{ id, key, " +
    "name, type }], nextCursor }; pass nextCursor back as cursor for more.",
  input: z.object({
    query: z.string().max(200).optional().describe("Only projects whose key or name contains this text."),
    cursor: cursorArgument,
    limit: pageSize(100, 50),
  }),
  annotations: { readOnly: true },
  async run(args, ctx) {
    const startAt = args.cursor === undefined ? 0 : Number(args.cursor);
    if (!Number.isSafeInteger(startAt) || startAt < 0) {
      throw new ToolRunError("cursor must be the nextCursor of a previous JIRA_LIST_PROJECTS result.", { code: "invalid_arguments" });
    }
    const answer = await call(ctx, "/project/search", { query: { startAt, maxResults: args.limit, query: args.query } });
    const values = (answer.values as unknown[]) ?? [];
    return {
      results: values.map((p) => ({
        id: field(p, "id"),
        key: field(p, "key"),
        name: field(p, "name"),
        type: field(p, "projectTypeKey") ?? null,
      })),
      nextCursor: answer.isLast === false ? String(startAt + values.length) : null,
    };
  },
});

const findUsers = defineTool({
  slug: "JIRA_FIND_USERS",
  name: "Find Jira users",
  description:
    "Finds users whose name or email starts with `query`: { results: [{ accountId, displayName, emailAddress }] } (the email " +
    "only when the user's privacy settings show it). Use accountId to assign issues.",
  input: z.object({ query: z.string().min(1).max(200).describe("Part of the person's name or email address."), limit: pageSize(100, 20) }),
  annotations: { readOnly: true },
  async run(args, ctx) {
    const users = (await requestJson(ctx, JIRA, "/rest/api/3/user/search", {
      query: { query: args.query, maxResults: args.limit },
    })) as unknown[];
    return {
      results: (users ?? []).map((u) => ({
        accountId: field(u, "accountId"),
        displayName: field(u, "displayName"),
        emailAddress: field(u, "emailAddress") ?? null,
      })),
    };
  },
});

/** Jira's curated tools. */
export const jiraTools: Tool[] = [
  searchIssues,
  getIssue,
  createIssue,
  updateIssue,
  addComment,
  listTransitions,
  transitionIssue,
  listProjects,
  findUsers,
];
