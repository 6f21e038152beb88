/**
 * The curated Jira tools through POST /execute, against an emulation of
 * https://api.atlassian.com/ex/jira/{cloudId} answering with the shapes of the Jira Cloud REST v3 reference:
 * - search/jql (issues, nextPageToken, isLast): https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issue-search/#api-rest-api-3-search-jql-get
 * - issue, create (201 { id, key, self }), edit (204), transitions (GET list, POST 204):
 *   https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issues/
 * - comment (201): https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issue-comments/
 * - project/search (PageBean with isLast): https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-projects/#api-rest-api-3-project-search-get
 * - errors ({ errorMessages, errors }): https://developer.atlassian.com/cloud/jira/platform/rest/v3/intro/#status-codes
 */
import { describe, expect, it } from "vitest";
import { adfToText, jiraTools, textToAdf } from "../../../src/catalog/tools/jira.js";
import { json, type Route, setupToolkit } from "./support-b.js";

const CLOUD_ID = "11223344-a1b2-3b33-c444-def123456789";
const API = `/ex/jira/${CLOUD_ID}/rest/api/3`;
const SELF = `https://api.atlassian.com${API}/issue/10002`;

const rawIssue = {
  id: "10002",
  key: "ED-1",
  self: SELF,
  fields: {
    summary: "Login fails",
    status: { name: "In Progress", statusCategory: { key: "indeterminate", name: "In Progress" } },
    issuetype: { name: "Bug" },
    priority: { name: "High" },
    assignee: { accountId: "5b10a2844c20165700ede21g", displayName: "Mia Krystof", active: true },
    reporter: null,
    project: { id: "10000", key: "ED", name: "Edison Project" },
    labels: ["auth"],
    created: "2024-01-01T10:00:00.000+0000",
    updated: "2024-01-02T10:00:00.000+0000",
    description: textToAdf("First line\nsecond line\n\nNext paragraph"),
    comment: {
      comments: [{ id: "10000", author: { accountId: "a1", displayName: "Ada" }, body: textToAdf("Looking"), created: "2024-01-03" }],
    },
  },
};

const summaryOut = {
  id: "10002",
  key: "ED-1",
  summary: "Login fails",
  status: "In Progress",
  statusCategory: "In Progress",
  issueType: "Bug",
  priority: "High",
  assignee: { accountId: "5b10a2844c20165700ede21g", displayName: "Mia Krystof" },
  reporter: null,
  project: { key: "ED", name: "Edison Project" },
  labels: ["auth"],
  created: "2024-01-01T10:00:00.000+0000",
  updated: "2024-01-02T10:00:00.000+0000",
};

const TRANSITIONS = {
  transitions: [
    { id: "11", name: "To Do", to: { id: "1", name: "To Do" } },
    { id: "31", name: "Finish", to: { id: "3", name: "Done" } },
  ],
};

const routes: Route[] = [
  {
    method: "GET",
    path: new RegExp(`^${API}/search/jql$`),
    answer: (request) =>
      request.query.get("jql") === "project = NOPE"
        ? json({ errorMessages: ["The value 'NOPE' does not exist for the field 'project'."], errors: {} }, 400)
        : request.query.get("nextPageToken") === "token-2"
          ? json({ issues: [rawIssue], isLast: true })
          : json({ issues: [rawIssue], nextPageToken: "token-2", isLast: false }),
  },
  { method: "GET", path: new RegExp(`^${API}/issue/ED-1$`), answer: () => json(rawIssue) },
  {
    method: "POST",
    path: new RegExp(`^${API}/issue$`),
    answer: (request) =>
      (request.body as any).fields.issuetype.name === "Nope"
        ? json({ errorMessages: [], errors: { issuetype: "Specify a valid issue type" } }, 400)
        : json({ id: "10003", key: "ED-2", self: `https://api.atlassian.com${API}/issue/10003` }, 201),
  },
  { method: "PUT", path: new RegExp(`^${API}/issue/ED-1$`), answer: () => new Response(null, { status: 204 }) },
  {
    method: "POST",
    path: new RegExp(`^${API}/issue/ED-1/comment$`),
    answer: () => json({ id: "10010", author: { accountId: "a1", displayName: "Ada" }, created: "2024-01-04T00:00:00.000+0000" }, 201),
  },
  { method: "GET", path: new RegExp(`^${API}/issue/ED-1/transitions$`), answer: () => json(TRANSITIONS) },
  { method: "POST", path: new RegExp(`^${API}/issue/ED-1/transitions$`), answer: () => new Response(null, { status: 204 }) },
  {
    method: "GET",
    path: new RegExp(`^${API}/project/search$`),
    answer: (request) =>
      json({
        startAt: Number(request.query.get("startAt")),
        maxResults: 1,
        total: 2,
        isLast: request.query.get("startAt") !== "0",
        values: [{ id: "10000", key: "ED", name: "Edison Project", projectTypeKey: "software" }],
      }),
  },
  {
    method: "GET",
    path: new RegExp(`^${API}/user/search$`),
    answer: () => json([{ accountId: "a1", accountType: "atlassian", displayName: "Ada", emailAddress: "ada@example.com", active: true }]),
  },
];

const setup = () =>
  setupToolkit({
    slug: "jira",
    baseUrl: "https://api.atlassian.com/ex/jira/{cloudId}",
    params: { cloudId: CLOUD_ID },
    tools: jiraTools,
    routes,
  });

describe("Jira tools", () => {
  it("JIRA_SEARCH_ISSUES sends JQL to /search/jql under the connection's cloud id and returns nextPageToken as the cursor", async () => {
    const jira = await setup();
    const data = await jira.ok("JIRA_SEARCH_ISSUES", { jql: "project = ED", limit: 10, cursor: "token-1" });
    expect(data).toEqual({ results: [summaryOut], nextCursor: "token-2" });
    const request = jira.last();
    expect([request.method, request.path]).toEqual(["GET", `${API}/search/jql`]);
    expect(request.query.get("jql")).toBe("project = ED");
    expect(request.query.get("nextPageToken")).toBe("token-1");
    expect(request.query.get("maxResults")).toBe("10");
    expect(request.query.get("fields")).toContain("summary,status");
    expect(await jira.ok("JIRA_SEARCH_ISSUES", { jql: "project = ED", cursor: "token-2" })).toEqual({
      results: [summaryOut],
      nextCursor: null,
    });
  });

  it("a Jira error is a failed result quoting errorMessages", async () => {
    const jira = await setup();
    const result = await jira.execute("JIRA_SEARCH_ISSUES", { jql: "project = NOPE" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 400 });
    expect(result.error).toBe(
      "Jira answered 400: The value 'NOPE' does not exist for the field 'project'. Correct the arguments as the message says and call again.",
    );
  });

  it("JIRA_GET_ISSUE returns the description and comments as plain text", async () => {
    const jira = await setup();
    const data = await jira.ok("JIRA_GET_ISSUE", { issue: "ED-1" });
    expect(data).toEqual({
      ...summaryOut,
      description: "First line\nsecond line\nNext paragraph",
      comments: [{ id: "10000", author: { accountId: "a1", displayName: "Ada" }, body: "Looking", created: "2024-01-03" }],
    });
    expect(jira.last().query.get("fields")).toContain("description,comment");
  });

  it("JIRA_CREATE_ISSUE posts fields with an ADF description", async () => {
    const jira = await setup();
    const data = await jira.ok("JIRA_CREATE_ISSUE", {
      projectKey: "ED",
      summary: "New",
      issueType: "Bug",
      description: "Hello",
      assigneeAccountId: "a1",
      priority: "High",
      labels: ["x"],
      parentKey: "ED-0",
    });
    expect(data).toEqual({ id: "10003", key: "ED-2", self: `https://api.atlassian.com${API}/issue/10003` });
    expect(jira.last().body).toEqual({
      fields: {
        project: { key: "ED" },
        summary: "New",
        issuetype: { name: "Bug" },
        description: { type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text: "Hello" }] }] },
        assignee: { accountId: "a1" },
        priority: { name: "High" },
        labels: ["x"],
        parent: { key: "ED-0" },
      },
    });
    const refused = await jira.execute("JIRA_CREATE_ISSUE", { projectKey: "ED", summary: "x", issueType: "Nope" });
    expect(refused.error).toContain("Jira answered 400: issuetype: Specify a valid issue type.");
  });

  it("JIRA_UPDATE_ISSUE puts only the fields given and can unassign", async () => {
    const jira = await setup();
    expect(await jira.ok("JIRA_UPDATE_ISSUE", { issue: "ED-1", summary: "Renamed", assigneeAccountId: null })).toEqual({
      key: "ED-1",
      updated: ["summary", "assignee"],
    });
    expect([jira.last().method, jira.last().body]).toEqual(["PUT", { fields: { summary: "Renamed", assignee: null } }]);
  });

  it("JIRA_ADD_COMMENT posts an ADF body", async () => {
    const jira = await setup();
    const data = await jira.ok("JIRA_ADD_COMMENT", { issue: "ED-1", body: "Fixed.\n\nDeployed" });
    expect(data).toEqual({ id: "10010", author: { accountId: "a1", displayName: "Ada" }, created: "2024-01-04T00:00:00.000+0000" });
    expect(jira.last().body).toEqual({ body: textToAdf("Fixed.\n\nDeployed") });
    expect(((jira.last().body as any).body.content as unknown[]).length).toBe(2);
  });

  it("JIRA_LIST_TRANSITIONS and JIRA_TRANSITION_ISSUE by target status name", async () => {
    const jira = await setup();
    expect(await jira.ok("JIRA_LIST_TRANSITIONS", { issue: "ED-1" })).toEqual({
      results: [
        { id: "11", name: "To Do", to: "To Do" },
        { id: "31", name: "Finish", to: "Done" },
      ],
    });
    const data = await jira.ok("JIRA_TRANSITION_ISSUE", { issue: "ED-1", transition: "done" });
    expect(data).toEqual({ key: "ED-1", transition: { id: "31", name: "Finish", to: "Done" } });
    expect([jira.last().method, jira.last().path, jira.last().body]).toEqual([
      "POST",
      `${API}/issue/ED-1/transitions`,
      { transition: { id: "31" } },
    ]);
  });

  it("JIRA_TRANSITION_ISSUE with an unknown name lists the transitions and sends nothing", async () => {
    const jira = await setup();
    const result = await jira.execute("JIRA_TRANSITION_ISSUE", { issue: "ED-1", transition: "Shipped" });
    expect(result).toMatchObject({ successful: false, code: "invalid_arguments" });
    expect(result.error).toBe('Issue ED-1 has no transition "Shipped" now. Available: To Do (id 11, to To Do), Finish (id 31, to Done).');
    expect(jira.received.filter((r) => r.method === "POST")).toEqual([]);
  });

  it("JIRA_LIST_PROJECTS pages with startAt until isLast", async () => {
    const jira = await setup();
    const first = await jira.ok("JIRA_LIST_PROJECTS", { limit: 1, query: "Edi" });
    expect(first).toEqual({ results: [{ id: "10000", key: "ED", name: "Edison Project", type: "software" }], nextCursor: "1" });
    expect(Object.fromEntries(jira.last().query)).toEqual({ startAt: "0", maxResults: "1", query: "Edi" });
    const second = await jira.ok("JIRA_LIST_PROJECTS", { limit: 1, cursor: first.nextCursor });
    expect(second.nextCursor).toBeNull();
    expect(jira.last().query.get("startAt")).toBe("1");
    expect(await jira.execute("JIRA_LIST_PROJECTS", { cursor: "abc" })).toMatchObject({ successful: false, code: "invalid_arguments" });
  });

  it("JIRA_FIND_USERS returns account ids", async () => {
    const jira = await setup();
    expect(await jira.ok("JIRA_FIND_USERS", { query: "ada" })).toEqual({
      results: [{ accountId: "a1", displayName: "Ada", emailAddress: "ada@example.com" }],
    });
    expect(jira.last().path).toBe(`${API}/user/search`);
  });

  it("adfToText reads lists and mentions", () => {
    const doc = {
      type: "doc",
      content: [
        { type: "bulletList", content: [{ type: "listItem", content: [{ type: "paragraph", content: [{ type: "text", text: "one" }] }] }] },
        {
          type: "paragraph",
          content: [
            { type: "mention", attrs: { id: "a1", text: "@Ada" } },
            { type: "text", text: " hi" },
          ],
        },
      ],
    };
    expect(adfToText(doc)).toBe("- one\n@Ada hi\n");
  });
});
