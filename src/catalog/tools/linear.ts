/**
 * Linear tools, over its GraphQL API at https://api.linear.app/graphql. Written from Linear's
 * developer documentation:
 * - requests, queries and mutations (issues, issueCreate, issueUpdate, commentCreate, teams):
 *   https://linear.app/developers/graphql
 * - cursor pagination (first, after, pageInfo { hasNextPage endCursor }): https://linear.app/developers/pagination
 * - filters (IssueFilter: team, assignee isMe, state, title containsIgnoreCase): https://linear.app/developers/filtering
 * - errors (HTTP 200 with `errors`, `extensions.userPresentableMessage`): https://linear.app/developers/graphql
 * - the schema: https://studio.apollographql.com/public/Linear-API/variant/current/schema/reference
 */
import { z } from "zod";
import { ToolRunError } from "../../core/tool-error.js";
import { defineTool, type Tool, type ToolContext } from "../../toolkits/define.js";
import { type ProviderErrors, requestJson } from "../../toolkits/provider-requests.js";
import { cursorArgument, pageSize } from "./arguments.js";
import { field } from "./content.js";

/** The first GraphQL error's own words, with Linear's message for people when it adds one. */
function graphqlReason(body: unknown): string | undefined {
  const errors = field(body, "errors");
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  const first = errors[0];
  const message = field(first, "message");
  const forPeople = field(field(first, "extensions"), "userPresentableMessage");
  const text = typeof message === "string" ? message : "GraphQL error";
  return typeof forPeople === "string" && forPeople !== text ? `${text} (${forPeople})` : text;
}

const LINEAR: ProviderErrors = { name: "Linear", reason: graphqlReason };

type Json = Record<string, unknown>;
/** A GraphQL connection as Linear answers a list. */
interface Connection {
  nodes?: Json[];
  pageInfo?: { hasNextPage?: boolean; endCursor?: string | null };
}

/**
 * Runs a GraphQL operation and returns its `data`. GraphQL `errors`, which Linear sends with a
 * 200, are a failure (code `graphql_error`) that names the message.
 */
async function graphql(ctx: ToolContext, query: string, variables: Json): Promise<Json> {
  const answer = await requestJson(ctx, LINEAR, "/graphql", { method: "POST", json: { query, variables } });
  const reason = graphqlReason(answer);
  if (reason !== undefined) {
    const type = field(field((field(answer, "errors") as unknown[])[0], "extensions"), "type");
    const next =
      type === "ratelimited"
        ? "Linear is rate limiting: wait a minute and call again."
        : "Check the ids and values given (list teams, states or users to find them) and call again.";
    throw new ToolRunError(`Linear refused the request: ${reason}. ${next}`, { code: "graphql_error", retryable: type === "ratelimited" });
  }
  return (field(answer, "data") ?? {}) as Json;
}

const ISSUE_FIELDS = `id identifier title description url priority priorityLabel dueDate createdAt updatedAt
  state { id name type } assignee { id name email } team { id key name } labels { nodes { id name } }`;

function issue(node: unknown): Json | null {
  if (!node || typeof node !== "object") return null;
  const { labels, ...rest } = node as Json;
  return { ...rest, labels: ((labels as Connection | undefined)?.nodes ?? []).map((label) => label.name) };
}

const page = (connection: unknown, map: (node: Json) => unknown = (node) => node) => {
  const list = (connection ?? {}) as Connection;
  return { results: (list.nodes ?? []).map(map), nextCursor: list.pageInfo?.hasNextPage ? (list.pageInfo.endCursor ?? null) : null };
};

const PAGE_INFO = "pageInfo { hasNextPage endCursor }";

const issueRef = z.string().min(1).max(100).describe("The issue's identifier as people write it (e.g. 'ENG-123') or its UUID.");
const optionalId = (what: string) => z.string().min(1).max(100).optional().describe(what);
const priority = z.number().int().min(0).max(4).optional().describe("0 no priority, 1 urgent, 2 high, 3 medium, 4 low.");

const listTeams = defineTool({
  slug: "LINEAR_LIST_TEAMS",
  name: "List Linear teams",
  description:
    "Lists the workspace's teams: { results: [{ id, key, name }], nextCursor }. An issue is created in a team (its id); the key " +
    "is the prefix of the team's issue identifiers (ENG in ENG-123). Pass nextCursor back as cursor for more.",
  input: z.object({ cursor: cursorArgument, limit: pageSize(250, 50) }),
  annotations: { readOnly: true },
  async run(args, ctx) {
    const data = await graphql(
      ctx,
      `query Teams($first: Int!, $after: String) { teams(first: $first, after: $after) { nodes { id key name } ${PAGE_INFO} } }`,
      {
        first: args.limit,
        after: args.cursor ?? null,
      },
    );
    return page(data.teams);
  },
});

const listStates = defineTool({
  slug: "LINEAR_LIST_WORKFLOW_STATES",
  name: "List a Linear team's workflow states",
  description:
    "Lists the states an issue of a team can be in: { results: [{ id, name, type }] }, type being triage, backlog, unstarted, " +
    "started, completed or canceled. Use a state's id with LINEAR_UPDATE_ISSUE or LINEAR_CREATE_ISSUE.",
  input: z.object({ teamId: z.string().min(1).max(100).describe("The team's id (LINEAR_LIST_TEAMS).") }),
  annotations: { readOnly: true },
  async run(args, ctx) {
    const data = await graphql(
      ctx,
      `query States($teamId: ID!) { workflowStates(first: 100, filter: { team: { id: { eq: $teamId } } }) { nodes { id name type position } } }`,
      { teamId: args.teamId },
    );
    const states = (data.workflowStates as Connection | undefined)?.nodes ?? [];
    return { results: states.map(({ id, name, type }) => ({ id, name, type })) };
  },
});

const listUsers = defineTool({
  slug: "LINEAR_LIST_USERS",
  name: "List Linear users",
  description: "Lists the workspace's active users: { results: [{ id, name, email }], nextCursor }, to find an assignee's id.",
  input: z.object({ cursor: cursorArgument, limit: pageSize(250, 50) }),
  annotations: { readOnly: true },
  async run(args, ctx) {
    const data = await graphql(
      ctx,
      `query Users($first: Int!, $after: String) { users(first: $first, after: $after, filter: { active: { eq: true } }) { nodes { id name email } ${PAGE_INFO} } }`,
      { first: args.limit, after: args.cursor ?? null },
    );
    return page(data.users);
  },
});

const searchIssues = defineTool({
  slug: "LINEAR_SEARCH_ISSUES",
  name: "Search Linear issues",
  description:
    "Lists issues, most recently updated first, filtered by words in the title, team, assignee ('me' for the connected user) " +
    "and state name. Returns { results: [{ id, identifier, title, state, assignee, team, priority, url, ... }], nextCursor }; " +
    "pass nextCursor back as cursor for the next page.",
  input: z.object({
    text: z.string().max(200).optional().describe("Words the title contains (any case)."),
    teamId: optionalId("Only this team's issues (its id)."),
    assignee: optionalId("Only issues assigned to this user id, or 'me'."),
    state: z.string().max(100).optional().describe("Only issues in the state of this name, e.g. 'In Progress' (any case)."),
    includeArchived: z.boolean().default(false).describe("Include archived issues."),
    cursor: cursorArgument,
    limit: pageSize(100, 25),
  }),
  annotations: { readOnly: true },
  async run(args, ctx) {
    const filter: Json = {};
    if (args.text) filter.title = { containsIgnoreCase: args.text };
    if (args.teamId) filter.team = { id: { eq: args.teamId } };
    if (args.assignee) filter.assignee = args.assignee === "me" ? { isMe: { eq: true } } : { id: { eq: args.assignee } };
    if (args.state) filter.state = { name: { eqIgnoreCase: args.state } };
    const data = await graphql(
      ctx,
      `query Issues($first: Int!, $after: String, $filter: IssueFilter, $includeArchived: Boolean) {
        issues(first: $first, after: $after, filter: $filter, includeArchived: $includeArchived, orderBy: updatedAt) { nodes { ${ISSUE_FIELDS} } ${PAGE_INFO} }
      }`,
      { first: args.limit, after: args.cursor ?? null, filter, includeArchived: args.includeArchived },
    );
    return page(data.issues, issue);
  },
});

const getIssue = defineTool({
  slug: "LINEAR_GET_ISSUE",
  name: "Get a Linear issue",
  description:
    "Reads one issue by identifier (ENG-123) or id: title, description (markdown), state, assignee, team, labels, priority, " +
    "url, and its latest comments ({ id, body, user, createdAt }, at most 50).",
  input: z.object({ issue: issueRef }),
  annotations: { readOnly: true },
  async run(args, ctx) {
    const data = await graphql(
      ctx,
      `query Issue($id: String!) { issue(id: $id) { ${ISSUE_FIELDS} comments(first: 50) { nodes { id body createdAt user { id name } } } } }`,
      { id: args.issue },
    );
    if (!data.issue) throw new ToolRunError(`Linear has no issue "${args.issue}" this connection can see.`, { code: "not_found" });
    const { comments, ...rest } = data.issue as Json;
    return { ...issue(rest), comments: (comments as Connection | undefined)?.nodes ?? [] };
  },
});

const issueFields = {
  title: z.string().min(1).max(255).describe("The issue's one-line title."),
  description: z.string().max(100_000).optional().describe("The description, in markdown."),
  assigneeId: optionalId("The assignee's user id (LINEAR_LIST_USERS)."),
  stateId: optionalId("The workflow state's id (LINEAR_LIST_WORKFLOW_STATES)."),
  priority,
  labelIds: z.array(z.string().min(1)).max(50).optional().describe("Label ids; replaces the issue's labels."),
  dueDate: z.iso.date().optional().describe("Due date, YYYY-MM-DD."),
};

/** The fields given, without those left out, as Linear's issue input. */
const inputOf = (args: Json) => Object.fromEntries(Object.entries(args).filter(([name, value]) => name !== "issue" && value !== undefined));

const createIssue = defineTool({
  slug: "LINEAR_CREATE_ISSUE",
  name: "Create a Linear issue",
  description:
    "Creates an issue in a team (teamId from LINEAR_LIST_TEAMS), optionally assigned, in a state, with priority, labels and " +
    "due date. Returns the new issue with its identifier (e.g. ENG-124) and url.",
  input: z.object({ teamId: z.string().min(1).max(100).describe("The team's id."), ...issueFields }),
  annotations: { readOnly: false, destructive: false },
  async run(args, ctx) {
    const data = await graphql(
      ctx,
      `mutation Create($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { ${ISSUE_FIELDS} } } }`,
      { input: inputOf(args) },
    );
    return issue(field(data.issueCreate, "issue"));
  },
});

const updateIssue = defineTool({
  slug: "LINEAR_UPDATE_ISSUE",
  name: "Update a Linear issue",
  description:
    "Changes an issue's title, description, state (stateId), assignee (assigneeId; null unassigns), priority, labels or due " +
    "date. Only the fields given change. Returns the issue as it now is.",
  input: z.object({
    issue: issueRef,
    ...issueFields,
    title: issueFields.title.optional(),
    assigneeId: z.string().min(1).max(100).nullable().optional().describe("The assignee's user id, or null to unassign."),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: true },
  async run(args, ctx) {
    const input = inputOf(args);
    if (Object.keys(input).length === 0)
      throw new ToolRunError("Nothing to change: give at least one field.", { code: "invalid_arguments" });
    const data = await graphql(
      ctx,
      `mutation Update($id: String!, $input: IssueUpdateInput!) { issueUpdate(id: $id, input: $input) { success issue { ${ISSUE_FIELDS} } } }`,
      { id: args.issue, input },
    );
    return issue(field(data.issueUpdate, "issue"));
  },
});

const createComment = defineTool({
  slug: "LINEAR_CREATE_COMMENT",
  name: "Comment on a Linear issue",
  description: "Adds a comment (markdown) to an issue, as the connected user. Returns { id, body, url, createdAt }.",
  input: z.object({
    issueId: z.string().min(1).max(100).describe("The issue's UUID (the id field of LINEAR_GET_ISSUE or a search result)."),
    body: z.string().min(1).max(100_000).describe("The comment, in markdown."),
  }),
  annotations: { readOnly: false, destructive: false },
  async run(args, ctx) {
    const data = await graphql(
      ctx,
      `mutation Comment($input: CommentCreateInput!) { commentCreate(input: $input) { success comment { id body url createdAt } } }`,
      { input: { issueId: args.issueId, body: args.body } },
    );
    return field(data.commentCreate, "comment") ?? null;
  },
});

/** Linear's curated tools. */
export const linearTools: Tool[] = [listTeams, listStates, listUsers, searchIssues, getIssue, createIssue, updateIssue, createComment];
