/**
 * Asana's curated tools over an emulation of the REST API. Answer shapes follow Asana's reference:
 * https://developers.asana.com/reference/getworkspaces
 * https://developers.asana.com/reference/getprojects
 * https://developers.asana.com/reference/gettasks, /gettask, /createtask, /updatetask
 * https://developers.asana.com/reference/getstoriesfortask, /createstoryfortask
 * https://developers.asana.com/reference/createattachmentforobject
 * https://developers.asana.com/docs/pagination (next_page)
 * https://developers.asana.com/docs/errors (errors: [{ message, help, phrase }])
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asanaTools } from "../../../src/catalog/tools/asana.js";
import { expectAuthorized, reply, toolkitHarness } from "./support.js";

const API = "https://app.asana.com/api/1.0";
let t: Awaited<ReturnType<typeof toolkitHarness>>;

beforeAll(async () => {
  t = await toolkitHarness({ slug: "asana", name: "Asana", baseUrl: API, tools: asanaTools });
});
afterAll(() => t.close());

const task = (gid: string, extra: Record<string, unknown> = {}) => ({
  gid,
  resource_type: "task",
  name: `Task ${gid}`,
  completed: false,
  assignee: { gid: "111", name: "Ada", resource_type: "user" },
  due_on: "2024-05-01",
  due_at: null,
  modified_at: "2024-04-01T10:00:00.000Z",
  permalink_url: `https://app.asana.com/0/0/${gid}`,
  ...extra,
});
const nextPage = (offset: string) => ({ offset, path: `/tasks?limit=1&offset=${offset}`, uri: `${API}/tasks?limit=1&offset=${offset}` });

describe("listing", () => {
  it("ASANA_LIST_WORKSPACES pages with next_page.offset", async () => {
    t.api.answer(() => reply({ data: [{ gid: "1001", name: "Acme", resource_type: "workspace" }], next_page: nextPage("eyJ0eXAi") }));
    const result = await t.execute("ASANA_LIST_WORKSPACES", { limit: 1 });
    expect(result.successful, result.error ?? "").toBe(true);
    expect(t.api.sent[0]!.url.href).toBe(`${API}/workspaces?limit=1`);
    expectAuthorized(t.api.sent);
    expect(result.data).toEqual({ workspaces: [{ gid: "1001", name: "Acme" }], nextCursor: "eyJ0eXAi" });
    t.api.answer(() => reply({ data: [], next_page: null }));
    const last = await t.execute("ASANA_LIST_WORKSPACES", { cursor: "eyJ0eXAi" });
    expect(t.api.sent[0]!.url.searchParams.get("offset")).toBe("eyJ0eXAi");
    expect(last.data.nextCursor).toBeNull();
  });

  it("ASANA_LIST_PROJECTS asks for a workspace's active projects with their fields", async () => {
    t.api.answer(() =>
      reply({
        data: [
          {
            gid: "2001",
            name: "Launch",
            archived: false,
            owner: { gid: "111", name: "Ada" },
            due_on: null,
            permalink_url: "https://app.asana.com/0/2001",
          },
        ],
        next_page: null,
      }),
    );
    const result = await t.execute("ASANA_LIST_PROJECTS", { workspace: "1001" });
    expect(Object.fromEntries(t.api.sent[0]!.url.searchParams)).toEqual({
      workspace: "1001",
      archived: "false",
      limit: "50",
      opt_fields: "name,archived,owner.name,due_on,permalink_url",
    });
    expect(result.data.projects).toEqual([
      { gid: "2001", name: "Launch", archived: false, owner: "Ada", dueOn: null, url: "https://app.asana.com/0/2001" },
    ]);
  });

  it("ASANA_LIST_TASKS lists a project's incomplete tasks, or mine in a workspace", async () => {
    t.api.answer(() => reply({ data: [task("3001")], next_page: nextPage("abc") }));
    const result = await t.execute("ASANA_LIST_TASKS", { project: "2001", limit: 1 });
    expect(t.api.sent[0]!.url.pathname).toBe("/api/1.0/tasks");
    expect(Object.fromEntries(t.api.sent[0]!.url.searchParams)).toMatchObject({ project: "2001", completed_since: "now", limit: "1" });
    expect(result.data).toEqual({
      tasks: [
        {
          gid: "3001",
          name: "Task 3001",
          completed: false,
          assignee: "Ada",
          dueOn: "2024-05-01",
          dueAt: null,
          modifiedAt: "2024-04-01T10:00:00.000Z",
          url: "https://app.asana.com/0/0/3001",
        },
      ],
      nextCursor: "abc",
    });
    await t.execute("ASANA_LIST_TASKS", { assignedToMe: true, workspace: "1001", includeCompleted: true });
    const mine = Object.fromEntries(t.api.sent[1]!.url.searchParams);
    expect(mine).toMatchObject({ assignee: "me", workspace: "1001" });
    expect(mine.completed_since).toBeUndefined();
  });

  it("ASANA_LIST_TASKS refuses a call without a project or workspace before sending anything", async () => {
    t.api.answer(() => reply({ data: [] }));
    const result = await t.execute("ASANA_LIST_TASKS", { assignedToMe: true });
    expect(result).toMatchObject({ successful: false, code: "invalid_arguments" });
    expect(t.api.sent).toHaveLength(0);
  });
});

describe("tasks", () => {
  it("ASANA_GET_TASK returns the task's details", async () => {
    t.api.answer(() =>
      reply({
        data: task("3001", {
          notes: "Details",
          projects: [{ gid: "2001", name: "Launch" }],
          memberships: [{ project: { gid: "2001" }, section: { gid: "9", name: "Doing" } }],
          tags: [{ gid: "7", name: "urgent" }],
          num_subtasks: 2,
          custom_fields: [{ gid: "5", name: "Priority", display_value: "High" }],
          created_at: "2024-03-01T00:00:00.000Z",
        }),
      }),
    );
    const result = await t.execute("ASANA_GET_TASK", { task: "3001" });
    expect(t.api.sent[0]!.url.pathname).toBe("/api/1.0/tasks/3001");
    expect(t.api.sent[0]!.url.searchParams.get("opt_fields")).toContain("custom_fields.display_value");
    expect(result.data).toMatchObject({
      gid: "3001",
      notes: "Details",
      projects: [{ gid: "2001", name: "Launch" }],
      sections: ["Doing"],
      tags: ["urgent"],
      subtasks: 2,
      customFields: { Priority: "High" },
    });
  });

  it("ASANA_CREATE_TASK posts the fields inside `data`", async () => {
    t.api.answer(() => reply({ data: task("3002", { name: "Write docs" }) }, 201));
    const result = await t.execute("ASANA_CREATE_TASK", { name: "Write docs", projects: ["2001"], assignee: "me", dueOn: "2024-06-01" });
    expect(t.api.sent[0]!.method).toBe("POST");
    expect(t.api.sent[0]!.url.pathname).toBe("/api/1.0/tasks");
    expect(t.api.sent[0]!.json()).toEqual({ data: { name: "Write docs", projects: ["2001"], assignee: "me", due_on: "2024-06-01" } });
    expect(result.data).toMatchObject({ gid: "3002", name: "Write docs" });
  });

  it("ASANA_UPDATE_TASK completes a task and unassigns it", async () => {
    t.api.answer(() => reply({ data: task("3001", { completed: true, assignee: null }) }));
    const result = await t.execute("ASANA_UPDATE_TASK", { task: "3001", completed: true, assignee: null });
    expect(t.api.sent[0]!.method).toBe("PUT");
    expect(t.api.sent[0]!.json()).toEqual({ data: { completed: true, assignee: null } });
    expect(result.data).toMatchObject({ completed: true, assignee: null });
  });

  it("reports Asana's errors list with what to do", async () => {
    t.api.answer(() =>
      reply(
        {
          errors: [
            {
              message: "project: Not a recognized ID: 2999",
              help: "For more information on API status codes and how to handle them, read the docs on errors: https://developers.asana.com/docs/errors",
            },
          ],
        },
        400,
      ),
    );
    const result = await t.execute("ASANA_CREATE_TASK", { name: "x", projects: ["2999"] });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 400 });
    expect(result.error).toMatch(/^Asana answered 400: project: Not a recognized ID: 2999\. Correct the arguments/);
  });
});

describe("comments and attachments", () => {
  it("ASANA_LIST_TASK_COMMENTS keeps the comments, not the system stories", async () => {
    t.api.answer(() =>
      reply({
        data: [
          {
            gid: "41",
            type: "system",
            resource_subtype: "assigned",
            text: "Ada assigned to you",
            created_at: "2024-04-01T00:00:00.000Z",
            created_by: { gid: "111", name: "Ada" },
          },
          {
            gid: "42",
            type: "comment",
            resource_subtype: "comment_added",
            text: "Looks good",
            created_at: "2024-04-02T00:00:00.000Z",
            created_by: { gid: "111", name: "Ada" },
          },
        ],
        next_page: nextPage("next1"),
      }),
    );
    const result = await t.execute("ASANA_LIST_TASK_COMMENTS", { task: "3001" });
    expect(t.api.sent[0]!.url.pathname).toBe("/api/1.0/tasks/3001/stories");
    expect(result.data).toEqual({
      comments: [{ gid: "42", author: "Ada", createdAt: "2024-04-02T00:00:00.000Z", text: "Looks good" }],
      nextCursor: "next1",
    });
  });

  it("ASANA_CREATE_TASK_COMMENT posts a story", async () => {
    t.api.answer(() =>
      reply(
        {
          data: {
            gid: "43",
            type: "comment",
            text: "Done",
            created_at: "2024-04-03T00:00:00.000Z",
            created_by: { gid: "111", name: "Ada" },
          },
        },
        201,
      ),
    );
    const result = await t.execute("ASANA_CREATE_TASK_COMMENT", { task: "3001", text: "Done" });
    expect(t.api.sent[0]!.method).toBe("POST");
    expect(t.api.sent[0]!.url.pathname).toBe("/api/1.0/tasks/3001/stories");
    expect(t.api.sent[0]!.json()).toEqual({ data: { text: "Done" } });
    expect(result.data).toEqual({ gid: "43", author: "Ada", createdAt: "2024-04-03T00:00:00.000Z", text: "Done" });
  });

  it("ASANA_ATTACH_FILE streams the staged file as multipart with its parent", async () => {
    const key = await t.upload(new Blob(["meeting notes\n"]), "text/plain", "notes.txt");
    t.api.answer(() =>
      reply({
        data: {
          gid: "51",
          resource_type: "attachment",
          name: "notes.txt",
          resource_subtype: "asana",
          permanent_url: "https://app.asana.com/app/asana/-/get_asset?asset_id=51",
          download_url: "https://asana-user-private.s3.amazonaws.com/x",
          created_at: "2024-04-04T00:00:00.000Z",
        },
      }),
    );
    const result = await t.execute("ASANA_ATTACH_FILE", { task: "3001", file: key });
    expect(result.successful, result.error ?? "").toBe(true);
    const [request] = t.api.sent;
    expect(request!.method).toBe("POST");
    expect(request!.url.pathname).toBe("/api/1.0/attachments");
    const form = await new Request("http://x", {
      method: "POST",
      headers: { "content-type": request!.headers.get("content-type")! },
      body: request!.bytes as BodyInit,
    }).formData();
    expect(form.get("parent")).toBe("3001");
    const file = form.get("file") as File;
    expect(file.name).toBe("notes.txt");
    expect(file.type).toBe("text/plain");
    expect(await file.text()).toBe("meeting notes\n");
    expectAuthorized(t.api.sent);
    expect(result.data).toMatchObject({
      gid: "51",
      name: "notes.txt",
      type: "asana",
      url: "https://app.asana.com/app/asana/-/get_asset?asset_id=51",
    });
  });
});
