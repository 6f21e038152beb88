// Asana's curated tools. Facts from Asana's REST API reference and guides:
// https://developers.asana.com/reference/getworkspaces
// https://developers.asana.com/reference/getprojects (workspace, archived)
// https://developers.asana.com/reference/gettasks (project, or assignee with workspace; completed_since)
// https://developers.asana.com/reference/gettask, /createtask, /updatetask (the `data` envelope)
// https://developers.asana.com/reference/getstoriesfortask and /createstoryfortask (comments are stories of type "comment")
// https://developers.asana.com/reference/createattachmentforobject (POST /attachments, multipart: parent and file; 100 MB)
// https://developers.asana.com/docs/pagination (limit 1-100, offset, next_page { offset })
// https://developers.asana.com/docs/inputoutput-options (opt_fields)
// https://developers.asana.com/docs/errors (errors: [{ message, help, phrase }])
// https://developers.asana.com/docs/oauth-scopes (scopes by endpoint)
import { z } from "zod";
import { invalidArguments } from "../../core/tool-error.js";
import { defineTool, stagedFile, type Tool } from "../../toolkits/define.js";
import { type ProviderErrors, requestJson, segment, upstreamError } from "../../toolkits/provider-requests.js";
import { encodeBody } from "../../toolkits/request-body.js";
import { cursorArgument, pageSize } from "./arguments.js";
import { excerpt, field } from "./content.js";

/** The messages of Asana's `errors` list. */
function asanaReason(body: unknown): string | undefined {
  const errors = field(body, "errors");
  if (!Array.isArray(errors)) return undefined;
  const messages = errors.map((error) => field(error, "message")).filter((message) => typeof message === "string");
  return messages.length ? messages.join("; ") : undefined;
}

const ASANA: ProviderErrors = { name: "Asana", reason: asanaReason };

const gid = (what: string) =>
  z
    .string()
    .regex(/^\d{1,30}$/, "must be an Asana gid (digits)")
    .meta({ description: what });
const taskGid = gid("The task's gid (digits), from ASANA_LIST_TASKS or the task's URL.");
const date = z.iso.date();

interface Page<T> {
  data?: T[];
  next_page?: { offset?: string } | null;
}
const nextCursor = (page: Page<unknown>) => page.next_page?.offset ?? null;

const TASK_LIST_FIELDS = "name,completed,assignee.name,due_on,due_at,modified_at,permalink_url";
const TASK_FIELDS =
  "name,notes,completed,completed_at,assignee.name,due_on,due_at,start_on,projects.name,memberships.section.name,tags.name," +
  "parent.name,num_subtasks,permalink_url,created_at,modified_at,custom_fields.name,custom_fields.display_value";

interface Named {
  gid: string;
  name?: string;
}
interface Task extends Named {
  notes?: string;
  completed?: boolean;
  completed_at?: string | null;
  assignee?: Named | null;
  due_on?: string | null;
  due_at?: string | null;
  start_on?: string | null;
  projects?: Named[];
  memberships?: Array<{ section?: Named | null }>;
  tags?: Named[];
  parent?: Named | null;
  num_subtasks?: number;
  permalink_url?: string;
  created_at?: string;
  modified_at?: string;
  custom_fields?: Array<{ name?: string; display_value?: string | null }>;
}

const taskListItem = (task: Task) => ({
  gid: task.gid,
  name: task.name ?? null,
  completed: task.completed ?? false,
  assignee: task.assignee?.name ?? null,
  dueOn: task.due_on ?? null,
  dueAt: task.due_at ?? null,
  modifiedAt: task.modified_at ?? null,
  url: task.permalink_url ?? null,
});

const taskDetail = (task: Task) => ({
  ...taskListItem(task),
  notes: task.notes ?? "",
  completedAt: task.completed_at ?? null,
  assigneeGid: task.assignee?.gid ?? null,
  startOn: task.start_on ?? null,
  projects: (task.projects ?? []).map((p) => ({ gid: p.gid, name: p.name ?? null })),
  sections: (task.memberships ?? []).flatMap((m) => (m.section?.name ? [m.section.name] : [])),
  tags: (task.tags ?? []).map((tag) => tag.name ?? tag.gid),
  parent: task.parent ? { gid: task.parent.gid, name: task.parent.name ?? null } : null,
  subtasks: task.num_subtasks ?? 0,
  customFields: Object.fromEntries((task.custom_fields ?? []).map((f) => [f.name ?? "", f.display_value ?? null])),
  createdAt: task.created_at ?? null,
});

const listWorkspaces = defineTool({
  slug: "ASANA_LIST_WORKSPACES",
  name: "List workspaces",
  description:
    "Lists the workspaces and organizations the connected user belongs to: { workspaces: [{ gid, name }], nextCursor }. Tasks and " +
    "projects are created and listed in a workspace (its gid).",
  input: z.object({ limit: pageSize(100, 50), cursor: cursorArgument }),
  annotations: { readOnly: true, idempotent: true },
  scopes: ["workspaces:read"],
  async run(args, ctx) {
    const page = await requestJson<Page<Named>>(ctx, ASANA, "/workspaces", { query: { limit: args.limit, offset: args.cursor } });
    return { workspaces: (page.data ?? []).map((w) => ({ gid: w.gid, name: w.name ?? null })), nextCursor: nextCursor(page) };
  },
});

const listProjects = defineTool({
  slug: "ASANA_LIST_PROJECTS",
  name: "List projects",
  description:
    "Lists a workspace's projects, active ones unless `archived`: { projects: [{ gid, name, archived, owner, dueOn, url }], nextCursor }.",
  input: z.object({
    workspace: gid("The workspace's gid, from ASANA_LIST_WORKSPACES."),
    archived: z.boolean().default(false).meta({ description: "List archived projects instead of active ones (default false)." }),
    limit: pageSize(100, 50),
    cursor: cursorArgument,
  }),
  annotations: { readOnly: true, idempotent: true },
  scopes: ["projects:read"],
  async run(args, ctx) {
    const page = await requestJson<
      Page<Named & { archived?: boolean; owner?: Named | null; due_on?: string | null; permalink_url?: string }>
    >(ctx, ASANA, "/projects", {
      query: {
        workspace: args.workspace,
        archived: args.archived,
        limit: args.limit,
        offset: args.cursor,
        opt_fields: "name,archived,owner.name,due_on,permalink_url",
      },
    });
    return {
      projects: (page.data ?? []).map((p) => ({
        gid: p.gid,
        name: p.name ?? null,
        archived: p.archived ?? false,
        owner: p.owner?.name ?? null,
        dueOn: p.due_on ?? null,
        url: p.permalink_url ?? null,
      })),
      nextCursor: nextCursor(page),
    };
  },
});

const listTasks = defineTool({
  slug: "ASANA_LIST_TASKS",
  name: "List tasks",
  description:
    "Lists the tasks of a project, or those assigned to the connected user (`assignedToMe` with a workspace), incomplete ones unless " +
    "`includeCompleted`. Returns { tasks: [{ gid, name, completed, assignee, dueOn, dueAt, modifiedAt, url }], nextCursor }.",
  input: z.object({
    project: gid("List this project's tasks.").optional(),
    assignedToMe: z.boolean().default(false).meta({ description: "List the connected user's tasks instead; needs `workspace`." }),
    workspace: gid("The workspace of the connected user's tasks (with assignedToMe).").optional(),
    includeCompleted: z.boolean().default(false).meta({ description: "Also list completed tasks (default false)." }),
    limit: pageSize(100, 50),
    cursor: cursorArgument,
  }),
  annotations: { readOnly: true, idempotent: true },
  scopes: ["tasks:read"],
  async run(args, ctx) {
    if (!args.project && !(args.assignedToMe && args.workspace)) {
      throw invalidArguments("Give a project, or assignedToMe: true with a workspace (ASANA_LIST_WORKSPACES lists them).");
    }
    const scope = args.project ? { project: args.project } : { assignee: "me", workspace: args.workspace };
    const page = await requestJson<Page<Task>>(ctx, ASANA, "/tasks", {
      query: {
        ...scope,
        completed_since: args.includeCompleted ? undefined : "now",
        limit: args.limit,
        offset: args.cursor,
        opt_fields: TASK_LIST_FIELDS,
      },
    });
    return { tasks: (page.data ?? []).map(taskListItem), nextCursor: nextCursor(page) };
  },
});

const getTask = defineTool({
  slug: "ASANA_GET_TASK",
  name: "Get task",
  description:
    "Gets a task: name, notes, completion, assignee, dates, projects, sections, tags, parent, number of subtasks, custom fields " +
    "(name to displayed value) and url.",
  input: z.object({ task: taskGid }),
  annotations: { readOnly: true, idempotent: true },
  scopes: ["tasks:read"],
  async run(args, ctx) {
    const answer = await requestJson<{ data: Task }>(ctx, ASANA, `/tasks/${segment(args.task)}`, { query: { opt_fields: TASK_FIELDS } });
    return taskDetail(answer.data);
  },
});

const taskFields = {
  notes: z.string().max(65_536).optional().meta({ description: "The description, plain text." }),
  assignee: z
    .string()
    .regex(/^(me|\d{1,30}|[^@\s]+@[^@\s]+)$/, "must be `me`, a user gid or an email")
    .optional()
    .meta({ description: "Who does it: `me`, a user's gid or email." }),
  dueOn: date.optional().meta({ description: "Due date, YYYY-MM-DD." }),
  startOn: date.optional().meta({ description: "Start date, YYYY-MM-DD (needs a due date)." }),
};

const createTask = defineTool({
  slug: "ASANA_CREATE_TASK",
  name: "Create task",
  description:
    "Adds a task to one or more projects, or as a subtask of `parent`, or in a workspace's My Tasks, with notes, an assignee " +
    "and dates. Returns the new task.",
  input: z.object({
    name: z.string().min(1).max(1024).meta({ description: "The task's name." }),
    projects: z.array(gid("A project gid.")).max(20).optional().meta({ description: "Projects to add it to (their gids)." }),
    parent: gid("Make it a subtask of this task.").optional(),
    workspace: gid("The workspace, needed when neither projects nor parent is given.").optional(),
    ...taskFields,
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  scopes: ["tasks:write"],
  async run(args, ctx) {
    if (!args.projects?.length && !args.parent && !args.workspace) {
      throw invalidArguments("Give projects, a parent task or a workspace, so Asana knows where to create the task.");
    }
    const answer = await requestJson<{ data: Task }>(ctx, ASANA, "/tasks", {
      method: "POST",
      query: { opt_fields: TASK_FIELDS },
      json: {
        data: {
          name: args.name,
          notes: args.notes,
          projects: args.projects,
          parent: args.parent,
          workspace: args.workspace,
          assignee: args.assignee,
          due_on: args.dueOn,
          start_on: args.startOn,
        },
      },
    });
    return taskDetail(answer.data);
  },
});

const updateTask = defineTool({
  slug: "ASANA_UPDATE_TASK",
  name: "Update task",
  description:
    "Changes a task: name, notes, assignee (null to unassign), dates, or marks it complete or incomplete. Only the fields given " +
    "change. Returns the task as it is after.",
  input: z.object({
    task: taskGid,
    name: z.string().min(1).max(1024).optional().meta({ description: "A new name." }),
    completed: z.boolean().optional().meta({ description: "Mark it complete (true) or incomplete (false)." }),
    ...taskFields,
    assignee: taskFields.assignee.nullable().meta({ description: "Who does it: `me`, a user's gid or email; null unassigns." }),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: true },
  scopes: ["tasks:write"],
  async run(args, ctx) {
    const answer = await requestJson<{ data: Task }>(ctx, ASANA, `/tasks/${segment(args.task)}`, {
      method: "PUT",
      query: { opt_fields: TASK_FIELDS },
      json: {
        data: {
          name: args.name,
          notes: args.notes,
          completed: args.completed,
          assignee: args.assignee,
          due_on: args.dueOn,
          start_on: args.startOn,
        },
      },
    });
    return taskDetail(answer.data);
  },
});

interface Story {
  gid: string;
  type?: string;
  resource_subtype?: string;
  text?: string;
  created_at?: string;
  created_by?: Named | null;
}
const commentSummary = (story: Story) => ({
  gid: story.gid,
  author: story.created_by?.name ?? null,
  createdAt: story.created_at ?? null,
  text: story.text ?? "",
});

const listComments = defineTool({
  slug: "ASANA_LIST_TASK_COMMENTS",
  name: "List task comments",
  description:
    "Lists the comments on a task, oldest first: { comments: [{ gid, author, createdAt, text }], nextCursor }. Asana's system " +
    "activity (assignments, moves) is left out, so a page can hold fewer than `limit` comments.",
  input: z.object({ task: taskGid, limit: pageSize(100, 50), cursor: cursorArgument }),
  annotations: { readOnly: true, idempotent: true },
  scopes: ["stories:read"],
  async run(args, ctx) {
    const page = await requestJson<Page<Story>>(ctx, ASANA, `/tasks/${segment(args.task)}/stories`, {
      query: { limit: args.limit, offset: args.cursor, opt_fields: "type,resource_subtype,text,created_at,created_by.name" },
    });
    return {
      comments: (page.data ?? []).filter((story) => story.type === "comment").map(commentSummary),
      nextCursor: nextCursor(page),
    };
  },
});

const addComment = defineTool({
  slug: "ASANA_CREATE_TASK_COMMENT",
  name: "Comment on task",
  description: "Adds a comment to a task as the connected user; its followers are notified. Returns the comment.",
  input: z.object({ task: taskGid, text: z.string().min(1).max(65_536).meta({ description: "The comment, plain text." }) }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  scopes: ["stories:write"],
  async run(args, ctx) {
    const answer = await requestJson<{ data: Story }>(ctx, ASANA, `/tasks/${segment(args.task)}/stories`, {
      method: "POST",
      query: { opt_fields: "type,text,created_at,created_by.name" },
      json: { data: { text: args.text } },
    });
    return commentSummary(answer.data);
  },
});

const uploadAttachment = defineTool({
  slug: "ASANA_ATTACH_FILE",
  name: "Attach file to task",
  description:
    "Attaches a staged file (POST /upload first, at most 100 MB) to a task. Returns the attachment's gid, name and url in Asana.",
  input: z.object({ task: taskGid, file: stagedFile("Staging key of the file to attach, from POST /upload.") }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  scopes: ["attachments:write"],
  async run(args, ctx) {
    const file = await ctx.files.get(args.file);
    // Streamed as multipart/form-data, not read into memory.
    const form = encodeBody("multipart/form-data", { parent: args.task, file }, "the attachment");
    const response = await ctx.fetch("/attachments?opt_fields=name,resource_subtype,permanent_url,download_url,created_at", {
      method: "POST",
      headers: { accept: "application/json", "content-type": form.contentType },
      body: form.body,
      contentLength: form.contentLength,
      signal: ctx.signal,
    });
    if (!response.ok) throw await upstreamError(response, ASANA, ctx.rateLimit);
    const { data } = (await response.json()) as {
      data: Named & { permanent_url?: string; download_url?: string | null; created_at?: string; resource_subtype?: string };
    };
    return {
      gid: data.gid,
      name: data.name ?? file.name,
      type: data.resource_subtype ?? null,
      url: data.permanent_url ?? null,
      downloadUrl: excerpt(data.download_url ?? null, 2000),
      createdAt: data.created_at ?? null,
    };
  },
});

/** Asana's curated tools: workspaces, projects, tasks listed, read, created and updated, comments, and files attached. */
export const asanaTools: Tool[] = [
  listWorkspaces,
  listProjects,
  listTasks,
  getTask,
  createTask,
  updateTask,
  listComments,
  addComment,
  uploadAttachment,
];
