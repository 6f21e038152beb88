// Zendesk Support's curated tools, over https://{subdomain}.zendesk.com/api/v2. Facts from Zendesk's API reference:
// https://developer.zendesk.com/api-reference/ticketing/tickets/tickets/ (list, show, create, update: { ticket }, { ticket, audit })
// https://developer.zendesk.com/api-reference/ticketing/tickets/ticket_comments/ (list comments, attachments on a comment)
// https://developer.zendesk.com/api-reference/ticketing/ticket-management/search/ (GET /search?query=, page and per_page up to 100, next_page, count)
// https://developer.zendesk.com/api-reference/ticketing/tickets/ticket-attachments/ (POST /uploads?filename=, binary body, { upload: { token } })
// https://developer.zendesk.com/api-reference/introduction/pagination/ (cursor pagination: page[size], page[after], meta.has_more, meta.after_cursor)
// https://developer.zendesk.com/documentation/api-basics/pagination/comparing-cursor-pagination-and-offset-pagination/ (cursor pages sort with `sort`)
// https://developer.zendesk.com/api-reference/ticketing/introduction/ (errors: { error, description, details })
import { z } from "zod";
import { invalidArguments } from "../../core/tool-error.js";
import { defineTool, type StagedFile, stagedFile, type Tool, type ToolContext } from "../../toolkits/define.js";
import { type ProviderErrors, requestJson, segment } from "../../toolkits/provider-requests.js";
import { cursorArgument, pageSize } from "./arguments.js";
import { excerpt, field } from "./content.js";

type Json = Record<string, unknown>;

/** Zendesk's error body: `{ error, description, details: { field: [{ description }] } }`, or `{ error: { title, message } }`. */
function zendeskReason(body: unknown): string | undefined {
  const error = field(body, "error");
  if (error && typeof error === "object") return [field(error, "title"), field(error, "message")].filter(Boolean).join(": ") || undefined;
  const description = field(body, "description");
  const details = field(body, "details");
  const problems =
    details && typeof details === "object"
      ? Object.entries(details as Record<string, unknown>).flatMap(([name, list]) =>
          (Array.isArray(list) ? list : []).map((item) => `${name}: ${String(field(item, "description") ?? "invalid")}`),
        )
      : [];
  const head = [error, description].filter((part) => typeof part === "string").join(": ");
  if (!head && problems.length === 0) return undefined;
  return problems.length ? `${head} (${problems.join("; ")})` : head;
}

const ZENDESK: ProviderErrors = { name: "Zendesk", reason: zendeskReason };

interface Ticket {
  id: number;
  subject?: string | null;
  description?: string | null;
  status?: string;
  priority?: string | null;
  type?: string | null;
  requester_id?: number;
  assignee_id?: number | null;
  group_id?: number | null;
  organization_id?: number | null;
  tags?: string[];
  created_at?: string;
  updated_at?: string;
}

function ticketSummary(ticket: Ticket) {
  return {
    id: ticket.id,
    subject: ticket.subject ?? null,
    status: ticket.status ?? null,
    priority: ticket.priority ?? null,
    type: ticket.type ?? null,
    requesterId: ticket.requester_id ?? null,
    assigneeId: ticket.assignee_id ?? null,
    groupId: ticket.group_id ?? null,
    tags: ticket.tags ?? [],
    createdAt: ticket.created_at ?? null,
    updatedAt: ticket.updated_at ?? null,
  };
}

/** A cursor-paginated answer's next cursor: `meta.after_cursor` while `meta.has_more`. */
const nextCursor = (answer: unknown) =>
  field(field(answer, "meta"), "has_more") ? (field(field(answer, "meta"), "after_cursor") ?? null) : null;

const ticketId = z.number().int().positive().describe("The ticket's number (id), e.g. 35436.");
const STATUSES = ["new", "open", "pending", "hold", "solved", "closed"] as const;
const PRIORITIES = ["low", "normal", "high", "urgent"] as const;

const listTickets = defineTool({
  slug: "ZENDESK_LIST_TICKETS",
  name: "List Zendesk tickets",
  description:
    "Lists the help desk's tickets, newest updates first: { results: [{ id, subject, status, priority, requesterId, assigneeId, tags, " +
    "updatedAt, ... }], nextCursor }. Use ZENDESK_SEARCH_TICKETS to filter by status, requester or words.",
  input: z.object({ cursor: cursorArgument, limit: pageSize(100, 25) }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const answer = await requestJson<{ tickets?: Ticket[] }>(ctx, ZENDESK, "/tickets.json", {
      query: { "page[size]": args.limit, "page[after]": args.cursor, sort: "-updated_at" },
    });
    return { results: (answer.tickets ?? []).map(ticketSummary), nextCursor: nextCursor(answer) };
  },
});

const searchTickets = defineTool({
  slug: "ZENDESK_SEARCH_TICKETS",
  name: "Search Zendesk tickets",
  description:
    "Finds tickets with Zendesk's search syntax, e.g. `status:open assignee:me`, `requester:ada@example.com`, `tags:refund " +
    "created>2024-01-01`, or plain words. Returns { results, count, nextCursor }; pass nextCursor back as cursor for more.",
  input: z.object({
    query: z.string().min(1).max(1000).describe("Search terms; type:ticket is added."),
    cursor: z
      .string()
      .regex(/^\d{1,4}$/, "must be the nextCursor of a previous result")
      .optional()
      .describe("The nextCursor of a previous result."),
    limit: pageSize(100, 25),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const page = Number(args.cursor ?? 1);
    const answer = await requestJson<{ results?: Ticket[]; count?: number; next_page?: string | null }>(ctx, ZENDESK, "/search.json", {
      query: { query: `type:ticket ${args.query}`, page, per_page: args.limit, sort_by: "updated_at", sort_order: "desc" },
    });
    return {
      results: (answer.results ?? []).map(ticketSummary),
      count: answer.count ?? null,
      nextCursor: answer.next_page ? String(page + 1) : null,
    };
  },
});

const getTicket = defineTool({
  slug: "ZENDESK_GET_TICKET",
  name: "Get a Zendesk ticket",
  description: "Reads one ticket: subject, description (its first comment), status, priority, requester, assignee, group and tags.",
  input: z.object({ ticketId }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const answer = await requestJson<{ ticket: Ticket }>(ctx, ZENDESK, `/tickets/${segment(args.ticketId)}.json`);
    return { ...ticketSummary(answer.ticket), description: answer.ticket.description ?? null };
  },
});

const listComments = defineTool({
  slug: "ZENDESK_LIST_TICKET_COMMENTS",
  name: "List a Zendesk ticket's comments",
  description:
    "Lists a ticket's conversation, oldest first: { results: [{ id, authorId, body, public, createdAt, attachments: [{ id, fileName, " +
    "contentType, size }] }], nextCursor }. Private comments are internal notes.",
  input: z.object({ ticketId, cursor: cursorArgument, limit: pageSize(100, 50) }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const answer = await requestJson<{ comments?: Json[] }>(ctx, ZENDESK, `/tickets/${segment(args.ticketId)}/comments.json`, {
      query: { "page[size]": args.limit, "page[after]": args.cursor },
    });
    const results = (answer.comments ?? []).map((comment) => ({
      id: comment.id,
      authorId: comment.author_id ?? null,
      body: excerpt((comment.plain_body ?? comment.body) as string | undefined, 20_000),
      public: comment.public ?? true,
      createdAt: comment.created_at ?? null,
      attachments: ((comment.attachments ?? []) as Json[]).map((a) => ({
        id: a.id,
        fileName: a.file_name,
        contentType: a.content_type,
        size: a.size,
      })),
    }));
    return { results, nextCursor: nextCursor(answer) };
  },
});

/** Uploads staged files to Zendesk and returns their tokens, for a comment's `uploads`. */
async function uploadTokens(ctx: ToolContext, files: StagedFile[] | undefined): Promise<string[] | undefined> {
  if (!files?.length) return undefined;
  const tokens: string[] = [];
  for (const staged of files) {
    const file = await ctx.files.get(staged);
    const answer = await requestJson<{ upload?: { token?: string } }>(ctx, ZENDESK, "/uploads.json", {
      method: "POST",
      query: { filename: file.name },
      headers: { "content-type": file.contentType },
      body: (await file.bytes()) as BodyInit,
    });
    const token = answer.upload?.token;
    if (!token) throw invalidArguments(`Zendesk did not accept the file ${file.name} as an attachment; try again.`);
    tokens.push(token);
  }
  return tokens;
}

const attachments = z
  .array(stagedFile("Staging key of a file to attach, from POST /upload."))
  .max(10)
  .optional()
  .describe("Files to attach to the comment (staging keys from POST /upload).");

const createTicket = defineTool({
  slug: "ZENDESK_CREATE_TICKET",
  name: "Create a Zendesk ticket",
  description:
    "Opens a ticket with a subject and a first comment, optionally for a requester (name and email), with priority, type, tags and " +
    "attached files (staged with POST /upload). Returns the new ticket.",
  input: z.object({
    subject: z.string().min(1).max(500).describe("The ticket's subject line."),
    body: z.string().min(1).max(65_000).describe("The first comment: the problem as described."),
    requesterEmail: z.email().optional().describe("The requester's email; the connected user when left out."),
    requesterName: z.string().max(200).optional().describe("The requester's name, for a new requester."),
    priority: z.enum(PRIORITIES).optional().describe("low, normal, high or urgent."),
    type: z.enum(["problem", "incident", "question", "task"]).optional().describe("The ticket's type."),
    tags: z.array(z.string().min(1).max(100)).max(50).optional().describe("Tags to set."),
    files: attachments,
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  async run(args, ctx) {
    const uploads = await uploadTokens(ctx, args.files);
    const answer = await requestJson<{ ticket: Ticket }>(ctx, ZENDESK, "/tickets.json", {
      method: "POST",
      json: {
        ticket: {
          subject: args.subject,
          comment: { body: args.body, uploads },
          requester: args.requesterEmail ? { email: args.requesterEmail, name: args.requesterName } : undefined,
          priority: args.priority,
          type: args.type,
          tags: args.tags,
        },
      },
    });
    return ticketSummary(answer.ticket);
  },
});

const updateTicket = defineTool({
  slug: "ZENDESK_UPDATE_TICKET",
  name: "Update or reply to a Zendesk ticket",
  description:
    "Changes a ticket's status (solve or close it), priority, assignee or tags, and/or adds a comment: a public reply to the requester, or an internal " +
    "note (public false), with attached files. Only the fields given change. Returns the ticket as it now is.",
  input: z.object({
    ticketId,
    comment: z.string().min(1).max(65_000).optional().describe("A comment to add."),
    public: z.boolean().default(true).describe("Whether the comment is a reply the requester sees (true) or an internal note (false)."),
    files: attachments,
    status: z.enum(STATUSES).optional().describe("new, open, pending, hold, solved or closed."),
    priority: z.enum(PRIORITIES).optional().describe("low, normal, high or urgent."),
    assigneeId: z.number().int().positive().optional().describe("The agent's user id to assign."),
    tags: z.array(z.string().min(1).max(100)).max(50).optional().describe("Tags; replaces the ticket's tags."),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  async run(args, ctx) {
    if (args.files?.length && !args.comment) throw invalidArguments("Files are attached to a comment: give `comment` with `files`.");
    const ticket: Json = { status: args.status, priority: args.priority, assignee_id: args.assigneeId, tags: args.tags };
    if (args.comment) ticket.comment = { body: args.comment, public: args.public, uploads: await uploadTokens(ctx, args.files) };
    if (Object.values(ticket).every((value) => value === undefined))
      throw invalidArguments("Nothing to change: give a comment or a field.");
    const answer = await requestJson<{ ticket: Ticket }>(ctx, ZENDESK, `/tickets/${segment(args.ticketId)}.json`, {
      method: "PUT",
      json: { ticket },
    });
    return ticketSummary(answer.ticket);
  },
});

/** Zendesk's curated tools: tickets listed, searched, read, created and updated, comments with attachments. */
export const zendeskTools: Tool[] = [listTickets, searchTickets, getTicket, listComments, createTicket, updateTicket];
