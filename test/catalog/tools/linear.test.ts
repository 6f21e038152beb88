/**
 * The curated Linear tools through POST /execute, against an emulation of https://api.linear.app/graphql
 * answering as Linear's GraphQL API does (https://linear.app/developers/graphql): `{ data }` with
 * connections of `nodes` and `pageInfo { hasNextPage endCursor }` (https://linear.app/developers/pagination),
 * payloads `{ success, issue }`, and GraphQL errors in a 200 answer with `extensions.userPresentableMessage`.
 */
import { describe, expect, it } from "vitest";
import { linearTools } from "../../../src/catalog/tools/linear.js";
import { json, type Received, type Route, setupToolkit } from "./support-b.js";

const TEAM = { id: "team-uuid-1", key: "ENG", name: "Engineering" };
const ISSUE = {
  id: "issue-uuid-1",
  identifier: "ENG-123",
  title: "Fix login",
  description: "Steps…",
  url: "https://linear.app/acme/issue/ENG-123/fix-login",
  priority: 2,
  priorityLabel: "High",
  dueDate: null,
  createdAt: "2024-01-02T03:04:05.000Z",
  updatedAt: "2024-01-03T03:04:05.000Z",
  state: { id: "state-1", name: "In Progress", type: "started" },
  assignee: { id: "user-1", name: "Ada", email: "ada@example.com" },
  team: TEAM,
  labels: { nodes: [{ id: "label-1", name: "Bug" }] },
};
const ISSUE_OUT = { ...ISSUE, labels: ["Bug"] };

const operation = (request: Received) => (request.body as { query: string }).query;
const variables = (request: Received) => (request.body as { variables: Record<string, any> }).variables;

function answer(request: Received): Response {
  const query = operation(request);
  const vars = variables(request);
  if (query.includes("teams("))
    return json({ data: { teams: { nodes: [TEAM], pageInfo: { hasNextPage: true, endCursor: "team-cursor" } } } });
  if (query.includes("workflowStates("))
    return json({ data: { workflowStates: { nodes: [{ id: "state-1", name: "In Progress", type: "started", position: 2 }] } } });
  if (query.includes("users("))
    return json({ data: { users: { nodes: [ISSUE.assignee], pageInfo: { hasNextPage: false, endCursor: "u" } } } });
  if (query.includes("issues("))
    return json({ data: { issues: { nodes: [ISSUE], pageInfo: { hasNextPage: true, endCursor: "issue-cursor-2" } } } });
  if (query.includes("issue(id:")) {
    if (vars.id === "ENG-404") {
      return json({
        data: null,
        errors: [
          {
            message: "Entity not found: Issue",
            path: ["issue"],
            extensions: { type: "invalid input", userPresentableMessage: "Could not find referenced Issue." },
          },
        ],
      });
    }
    return json({
      data: {
        issue: { ...ISSUE, comments: { nodes: [{ id: "c1", body: "On it", createdAt: "x", user: { id: "user-1", name: "Ada" } }] } },
      },
    });
  }
  if (query.includes("issueCreate(") && vars.input.teamId === "not-a-team") {
    return json(
      { errors: [{ message: "Argument Validation Error", extensions: { userPresentableMessage: "teamId must be a UUID" } }] },
      400,
    );
  }
  if (query.includes("issueCreate("))
    return json({ data: { issueCreate: { success: true, issue: { ...ISSUE, title: vars.input.title } } } });
  if (query.includes("issueUpdate(")) return json({ data: { issueUpdate: { success: true, issue: ISSUE } } });
  if (query.includes("commentCreate("))
    return json({
      data: {
        commentCreate: { success: true, comment: { id: "c2", body: vars.input.body, url: "https://linear.app/c2", createdAt: "y" } },
      },
    });
  return json({ errors: [{ message: "Cannot query field" }] }, 400);
}

const routes: Route[] = [{ method: "POST", path: /^\/graphql$/, answer }];
const setup = () => setupToolkit({ slug: "linear", baseUrl: "https://api.linear.app", tools: linearTools, routes });

describe("Linear tools", () => {
  it("LINEAR_LIST_TEAMS asks for a page of teams and returns the end cursor while there are more", async () => {
    const linear = await setup();
    expect(await linear.ok("LINEAR_LIST_TEAMS", { limit: 10, cursor: "c1" })).toEqual({ results: [TEAM], nextCursor: "team-cursor" });
    const request = linear.last();
    expect([request.method, request.path]).toEqual(["POST", "/graphql"]);
    expect(request.headers.get("content-type")).toBe("application/json");
    expect(variables(request)).toEqual({ first: 10, after: "c1" });
  });

  it("LINEAR_LIST_WORKFLOW_STATES filters by team", async () => {
    const linear = await setup();
    expect(await linear.ok("LINEAR_LIST_WORKFLOW_STATES", { teamId: TEAM.id })).toEqual({
      results: [{ id: "state-1", name: "In Progress", type: "started" }],
    });
    expect(operation(linear.last())).toContain("team: { id: { eq: $teamId } }");
    expect(variables(linear.last())).toEqual({ teamId: TEAM.id });
  });

  it("LINEAR_LIST_USERS has no cursor on the last page", async () => {
    const linear = await setup();
    expect(await linear.ok("LINEAR_LIST_USERS")).toEqual({ results: [ISSUE.assignee], nextCursor: null });
  });

  it("LINEAR_SEARCH_ISSUES builds an IssueFilter from the arguments", async () => {
    const linear = await setup();
    const data = await linear.ok("LINEAR_SEARCH_ISSUES", {
      text: "login",
      teamId: TEAM.id,
      assignee: "me",
      state: "in progress",
      limit: 5,
    });
    expect(data).toEqual({ results: [ISSUE_OUT], nextCursor: "issue-cursor-2" });
    expect(variables(linear.last())).toEqual({
      first: 5,
      after: null,
      includeArchived: false,
      filter: {
        title: { containsIgnoreCase: "login" },
        team: { id: { eq: TEAM.id } },
        assignee: { isMe: { eq: true } },
        state: { name: { eqIgnoreCase: "in progress" } },
      },
    });
    await linear.ok("LINEAR_SEARCH_ISSUES", { assignee: "user-9", cursor: "issue-cursor-2" });
    expect(variables(linear.last())).toMatchObject({ after: "issue-cursor-2", filter: { assignee: { id: { eq: "user-9" } } } });
  });

  it("LINEAR_GET_ISSUE reads an issue by identifier with its comments", async () => {
    const linear = await setup();
    const data = await linear.ok("LINEAR_GET_ISSUE", { issue: "ENG-123" });
    expect(data).toEqual({ ...ISSUE_OUT, comments: [{ id: "c1", body: "On it", createdAt: "x", user: { id: "user-1", name: "Ada" } }] });
    expect(variables(linear.last())).toEqual({ id: "ENG-123" });
  });

  it("GraphQL errors in a 200 answer are a failed result naming the message", async () => {
    const linear = await setup();
    const result = await linear.execute("LINEAR_GET_ISSUE", { issue: "ENG-404" });
    expect(result).toMatchObject({ successful: false, code: "graphql_error", data: null });
    expect(result.error).toBe(
      "Linear refused the request: Entity not found: Issue (Could not find referenced Issue.). " +
        "Check the ids and values given (list teams, states or users to find them) and call again.",
    );
  });

  it("LINEAR_CREATE_ISSUE sends only the fields given as IssueCreateInput", async () => {
    const linear = await setup();
    const data = await linear.ok("LINEAR_CREATE_ISSUE", { teamId: TEAM.id, title: "New bug", priority: 1, labelIds: ["label-1"] });
    expect(data.title).toBe("New bug");
    expect(operation(linear.last())).toContain("issueCreate(input: $input)");
    expect(variables(linear.last())).toEqual({ input: { teamId: TEAM.id, title: "New bug", priority: 1, labelIds: ["label-1"] } });
  });

  it("LINEAR_UPDATE_ISSUE changes state and unassigns with null, and refuses an empty change", async () => {
    const linear = await setup();
    expect(await linear.ok("LINEAR_UPDATE_ISSUE", { issue: "ENG-123", stateId: "state-2", assigneeId: null })).toEqual(ISSUE_OUT);
    expect(variables(linear.last())).toEqual({ id: "ENG-123", input: { stateId: "state-2", assigneeId: null } });
    const sent = linear.received.length;
    expect(await linear.execute("LINEAR_UPDATE_ISSUE", { issue: "ENG-123" })).toMatchObject({
      successful: false,
      code: "invalid_arguments",
    });
    expect(linear.received.length).toBe(sent);
  });

  it("LINEAR_CREATE_COMMENT posts the body on the issue", async () => {
    const linear = await setup();
    expect(await linear.ok("LINEAR_CREATE_COMMENT", { issueId: ISSUE.id, body: "Done **now**" })).toEqual({
      id: "c2",
      body: "Done **now**",
      url: "https://linear.app/c2",
      createdAt: "y",
    });
    expect(variables(linear.last())).toEqual({ input: { issueId: ISSUE.id, body: "Done **now**" } });
  });

  it("an HTTP 400 with GraphQL errors is an upstream error quoting them", async () => {
    const linear = await setup();
    const result = await linear.execute("LINEAR_CREATE_ISSUE", { teamId: "not-a-team", title: "x" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 400 });
    expect(result.error).toBe(
      "Linear answered 400: Argument Validation Error (teamId must be a UUID). Correct the arguments as the message says and call again.",
    );
  });
});
