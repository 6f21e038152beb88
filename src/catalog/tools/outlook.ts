/**
 * Outlook mail and calendar tools, over Microsoft Graph v1.0 at https://graph.microsoft.com/v1.0.
 * Written from the Microsoft Graph REST API v1.0 reference:
 * - messages: https://learn.microsoft.com/en-us/graph/api/user-list-messages, https://learn.microsoft.com/en-us/graph/api/message-get,
 *   https://learn.microsoft.com/en-us/graph/search-query-parameter ($search on messages)
 * - sending (202 Accepted; fileAttachment with contentBytes, under 3 MB): https://learn.microsoft.com/en-us/graph/api/user-sendmail,
 *   https://learn.microsoft.com/en-us/graph/api/resources/fileattachment
 * - replies: https://learn.microsoft.com/en-us/graph/api/message-reply, https://learn.microsoft.com/en-us/graph/api/message-replyall
 * - attachments: https://learn.microsoft.com/en-us/graph/api/message-list-attachments, https://learn.microsoft.com/en-us/graph/api/attachment-get
 * - calendar: https://learn.microsoft.com/en-us/graph/api/user-list-calendarview (Prefer: outlook.timezone),
 *   https://learn.microsoft.com/en-us/graph/api/user-post-events
 * - paging (@odata.nextLink): https://learn.microsoft.com/en-us/graph/paging
 * - errors ({ error: { code, message } }): https://learn.microsoft.com/en-us/graph/errors
 */
import { z } from "zod";
import { ToolRunError } from "../../core/tool-error.js";
import { defineTool, type StagedFile, stagedFile, type Tool, type ToolContext } from "../../toolkits/define.js";
import { type ProviderErrors, type ProviderRequest, requestJson, segment, withQuery } from "../../toolkits/provider-requests.js";
import { fromBase64Url, toBase64, toBase64Url } from "../../util/encoding.js";
import { cursorArgument, pageSize } from "./arguments.js";
import { field } from "./content.js";

const GRAPH: ProviderErrors = {
  name: "Microsoft Graph",
  reason(body) {
    const error = field(body, "error");
    const message = field(error, "message");
    const code = field(error, "code");
    if (typeof message !== "string" && typeof code !== "string") return undefined;
    return [code, message].filter((part) => typeof part === "string" && part).join(": ");
  },
};

type Json = Record<string, unknown>;
const call = (ctx: ToolContext, path: string, request?: ProviderRequest) => requestJson(ctx, GRAPH, path, request) as Promise<Json>;

/**
 * The cursor of a Graph listing: the query string of its `@odata.nextLink` (which carries the
 * skip token and the listing's own parameters), encoded. Only the query is kept, so a cursor can
 * only ever continue the same listing under the toolkit's base URL.
 */
function cursorOf(answer: Json): string | null {
  const next = answer["@odata.nextLink"];
  if (typeof next !== "string" || !URL.canParse(next)) return null;
  const query = new URL(next).search.replace(/^\?/, "");
  return query ? toBase64Url(query) : null;
}

/** The listing's path with the query a cursor holds, rebuilt parameter by parameter. */
function continued(path: string, cursor: string): string {
  let query: URLSearchParams;
  try {
    query = new URLSearchParams(new TextDecoder("utf-8", { fatal: true }).decode(fromBase64Url(cursor)));
  } catch {
    throw new ToolRunError("cursor is not a nextCursor this tool returned; pass it back unchanged, or leave it out to start over.", {
      code: "invalid_arguments",
    });
  }
  return withQuery(path, Object.fromEntries(query));
}

const address = (recipient: unknown) => {
  const email = field(recipient, "emailAddress");
  return { name: field(email, "name") ?? null, address: field(email, "address") ?? null };
};
const addresses = (list: unknown) => (Array.isArray(list) ? list.map(address) : []);
const recipients = (emails: string[] | undefined) => (emails ?? []).map((email) => ({ emailAddress: { address: email } }));

const MESSAGE_FIELDS = "id,subject,from,toRecipients,receivedDateTime,isRead,hasAttachments,bodyPreview,webLink,conversationId";

const messageSummary = (m: unknown) => ({
  id: field(m, "id"),
  subject: field(m, "subject") ?? "",
  from: field(m, "from") ? address(field(m, "from")) : null,
  to: addresses(field(m, "toRecipients")),
  receivedDateTime: field(m, "receivedDateTime") ?? null,
  isRead: field(m, "isRead") ?? null,
  hasAttachments: field(m, "hasAttachments") ?? false,
  preview: field(m, "bodyPreview") ?? "",
  webLink: field(m, "webLink") ?? null,
  conversationId: field(m, "conversationId") ?? null,
});

const email = z.email().max(320);
const messageId = z.string().min(1).max(1000).describe("The message's id, from OUTLOOK_LIST_MESSAGES.");

const listMessages = defineTool({
  slug: "OUTLOOK_LIST_MESSAGES",
  name: "List or search Outlook messages",
  description:
    "Lists messages, newest first, from the whole mailbox or one folder (inbox, sentitems, drafts, archive, deleteditems, or a " +
    "folder id), optionally searched (e.g. 'from:ada@example.com', 'subject:invoice', or plain words) or unread only. Returns " +
    "{ results: [{ id, subject, from, to, receivedDateTime, isRead, hasAttachments, preview, webLink }], nextCursor }; pass " +
    "nextCursor back as cursor (with nothing else changed) for the next page.",
  input: z.object({
    folder: z.string().min(1).max(500).optional().describe("A folder's well-known name or id; leave out for every folder."),
    search: z.string().min(1).max(500).optional().describe("Search terms (KQL); results are then by relevance and date."),
    unreadOnly: z.boolean().default(false).describe("Only unread messages (not with search)."),
    cursor: cursorArgument,
    limit: pageSize(100, 25),
  }),
  annotations: { readOnly: true },
  async run(args, ctx) {
    if (args.search && args.unreadOnly) {
      throw new ToolRunError("Graph cannot combine search with unreadOnly: add 'isread:false' to the search terms instead.", {
        code: "invalid_arguments",
      });
    }
    const path = args.folder ? `/me/mailFolders/${segment(args.folder)}/messages` : "/me/messages";
    const url = args.cursor
      ? continued(path, args.cursor)
      : withQuery(path, {
          $top: args.limit,
          $select: MESSAGE_FIELDS,
          $search: args.search ? `"${args.search.replace(/"/g, "'")}"` : undefined,
          $filter: args.unreadOnly ? "isRead eq false" : undefined,
          $orderby: args.search ? undefined : "receivedDateTime desc",
        });
    const answer = await call(ctx, url);
    return { results: ((answer.value as unknown[]) ?? []).map(messageSummary), nextCursor: cursorOf(answer) };
  },
});

const getMessage = defineTool({
  slug: "OUTLOOK_GET_MESSAGE",
  name: "Get an Outlook message",
  description:
    "Reads a message: subject, from, to, cc, date, body (plain text unless bodyFormat is html), and its attachments " +
    "({ id, name, contentType, size, isInline }); fetch one with OUTLOOK_GET_ATTACHMENT.",
  input: z.object({
    messageId,
    bodyFormat: z.enum(["text", "html"]).default("text").describe("The body as plain text (default) or as the message's HTML."),
  }),
  annotations: { readOnly: true },
  async run(args, ctx) {
    const path = `/me/messages/${segment(args.messageId)}`;
    const message = await call(ctx, path, {
      query: { $select: `${MESSAGE_FIELDS},ccRecipients,body` },
      headers: { Prefer: `outlook.body-content-type="${args.bodyFormat}"` },
    });
    let attachments: unknown[] = [];
    if (message.hasAttachments === true) {
      const list = await call(ctx, `${path}/attachments`, { query: { $select: "id,name,contentType,size,isInline" } });
      attachments = ((list.value as unknown[]) ?? []).map((a) => ({
        id: field(a, "id"),
        name: field(a, "name"),
        contentType: field(a, "contentType") ?? null,
        size: field(a, "size") ?? null,
        isInline: field(a, "isInline") ?? false,
      }));
    }
    return {
      ...messageSummary(message),
      cc: addresses(message.ccRecipients),
      body: field(message.body, "content") ?? "",
      bodyFormat: field(message.body, "contentType") ?? args.bodyFormat,
      attachments,
    };
  },
});

/** Graph's limit for attachments sent inline with sendMail (larger ones need an upload session). */
const INLINE_ATTACHMENT_BYTES = 3 * 1024 * 1024;

async function fileAttachments(files: StagedFile[]): Promise<Json[]> {
  const total = files.reduce((sum, file) => sum + file.size, 0);
  if (total > INLINE_ATTACHMENT_BYTES) {
    throw new ToolRunError(
      `The attachments add up to ${total} bytes; Outlook takes at most ${INLINE_ATTACHMENT_BYTES} bytes of attachments in one ` +
        "message sent this way. Send fewer or smaller files (or a link to them).",
      { code: "invalid_arguments" },
    );
  }
  return Promise.all(
    files.map(async (file) => ({
      "@odata.type": "#microsoft.graph.fileAttachment",
      name: file.name,
      contentType: file.contentType,
      contentBytes: toBase64(await file.bytes()),
    })),
  );
}

const sendMail = defineTool({
  slug: "OUTLOOK_SEND_MAIL",
  name: "Send an Outlook email",
  description:
    "Sends an email from the connected mailbox, with optional attachments (staging keys of files uploaded with POST /upload; " +
    "3 MB in all at most). It is saved in Sent Items unless saveToSentItems is false. Returns { sent: true } once Outlook " +
    "accepted it.",
  input: z.object({
    to: z.array(email).min(1).max(100).describe("Recipients' email addresses."),
    cc: z.array(email).max(100).optional().describe("Addresses to copy."),
    bcc: z.array(email).max(100).optional().describe("Addresses to copy without the others seeing them."),
    subject: z.string().max(1000).describe("The subject line."),
    body: z.string().max(1_000_000).describe("The message, as plain text or HTML (see bodyFormat)."),
    bodyFormat: z.enum(["text", "html"]).default("text").describe("Whether body is plain text (default) or HTML."),
    attachments: z
      .array(stagedFile("Staging key of a file to attach."))
      .max(20)
      .default([])
      .describe("Files to attach, each a staging key from POST /upload; 3 MB in all at most."),
    saveToSentItems: z.boolean().default(true).describe("Keep a copy in Sent Items (default true)."),
  }),
  annotations: { readOnly: false, destructive: false, openWorld: true },
  async run(args, ctx) {
    const attachments = await fileAttachments(args.attachments);
    const message = {
      subject: args.subject,
      body: { contentType: args.bodyFormat === "html" ? "HTML" : "Text", content: args.body },
      toRecipients: recipients(args.to),
      ...(args.cc ? { ccRecipients: recipients(args.cc) } : {}),
      ...(args.bcc ? { bccRecipients: recipients(args.bcc) } : {}),
      ...(attachments.length ? { attachments } : {}),
    };
    await call(ctx, "/me/sendMail", { method: "POST", json: { message, saveToSentItems: args.saveToSentItems } });
    return { sent: true };
  },
});

const reply = defineTool({
  slug: "OUTLOOK_REPLY_TO_MESSAGE",
  name: "Reply to an Outlook message",
  description:
    "Replies to a message, to its sender or (replyAll) to everyone on it, in the same conversation; the reply quotes the " +
    "original below `comment`. Returns { sent: true }.",
  input: z.object({
    messageId,
    comment: z.string().min(1).max(1_000_000).describe("The reply's text."),
    replyAll: z.boolean().default(false).describe("Reply to every recipient, not only the sender (default false)."),
  }),
  annotations: { readOnly: false, destructive: false, openWorld: true },
  async run(args, ctx) {
    await call(ctx, `/me/messages/${segment(args.messageId)}/${args.replyAll ? "replyAll" : "reply"}`, {
      method: "POST",
      json: { comment: args.comment },
    });
    return { sent: true };
  },
});

const getAttachment = defineTool({
  slug: "OUTLOOK_GET_ATTACHMENT",
  name: "Download an Outlook attachment",
  description:
    "Fetches a file attached to a message (ids from OUTLOOK_GET_MESSAGE) and stages it: returns { stagingKey, filename, " +
    "contentType, size, expiresAt }; read the bytes with GET /files/{stagingKey}, or pass the key to a tool that takes a file.",
  input: z.object({ messageId, attachmentId: z.string().min(1).max(1000).describe("The attachment's id.") }),
  annotations: { readOnly: true },
  async run(args, ctx) {
    const attachment = await call(ctx, `/me/messages/${segment(args.messageId)}/attachments/${segment(args.attachmentId)}`);
    const content = attachment.contentBytes;
    if (attachment["@odata.type"] !== "#microsoft.graph.fileAttachment" || typeof content !== "string") {
      throw new ToolRunError(
        `Attachment "${String(attachment.name ?? args.attachmentId)}" is not a file (it is ${String(attachment["@odata.type"])}): ` +
          "an attached message or a link cannot be downloaded; read it in Outlook instead.",
        { code: "invalid_arguments" },
      );
    }
    const name = typeof attachment.name === "string" && attachment.name ? attachment.name : "attachment";
    const contentType =
      typeof attachment.contentType === "string" && attachment.contentType ? attachment.contentType : "application/octet-stream";
    return ctx.files.stage(fromBase64Url(content), { contentType, filename: name });
  },
});

const EVENT_FIELDS = "id,subject,start,end,location,organizer,attendees,isAllDay,isOnlineMeeting,onlineMeeting,webLink,bodyPreview";

const eventSummary = (e: unknown) => ({
  id: field(e, "id"),
  subject: field(e, "subject") ?? "",
  start: field(e, "start") ?? null,
  end: field(e, "end") ?? null,
  isAllDay: field(e, "isAllDay") ?? false,
  location: field(field(e, "location"), "displayName") ?? "",
  organizer: field(e, "organizer") ? address(field(e, "organizer")) : null,
  attendees: (Array.isArray(field(e, "attendees")) ? (field(e, "attendees") as unknown[]) : []).map((a) => ({
    ...address(a),
    response: field(field(a, "status"), "response") ?? null,
  })),
  joinUrl: field(field(e, "onlineMeeting"), "joinUrl") ?? null,
  webLink: field(e, "webLink") ?? null,
  preview: field(e, "bodyPreview") ?? "",
});

const timeZone = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_+\-/ ]+$/, "must be a time zone name such as UTC or Europe/Paris")
  .describe("A time zone name (IANA such as Europe/Paris, or Windows such as Pacific Standard Time).");

const listEvents = defineTool({
  slug: "OUTLOOK_LIST_EVENTS",
  name: "List Outlook calendar events",
  description:
    "Lists the events of the connected user's calendar between start and end (recurring events expanded into their " +
    "occurrences), earliest first, with times in timeZone (UTC by default). Returns { results: [{ id, subject, start, end, " +
    "location, organizer, attendees, joinUrl, webLink }], nextCursor }; pass nextCursor back as cursor for more.",
  input: z.object({
    start: z.iso.datetime({ offset: true }).describe("Start of the window, ISO 8601, e.g. 2024-05-01T00:00:00Z."),
    end: z.iso.datetime({ offset: true }).describe("End of the window, ISO 8601."),
    timeZone: timeZone.default("UTC"),
    cursor: cursorArgument,
    limit: pageSize(100, 50),
  }),
  annotations: { readOnly: true },
  async run(args, ctx) {
    const url = args.cursor
      ? continued("/me/calendarView", args.cursor)
      : withQuery("/me/calendarView", {
          startDateTime: args.start,
          endDateTime: args.end,
          $top: args.limit,
          $select: EVENT_FIELDS,
          $orderby: "start/dateTime",
        });
    const answer = await call(ctx, url, { headers: { Prefer: `outlook.timezone="${args.timeZone}"` } });
    return { results: ((answer.value as unknown[]) ?? []).map(eventSummary), nextCursor: cursorOf(answer) };
  },
});

const localTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/, "must be a local date and time such as 2024-05-01T14:30:00, without offset")
  .describe("Local date and time in timeZone, e.g. 2024-05-01T14:30:00.");

const createEvent = defineTool({
  slug: "OUTLOOK_CREATE_EVENT",
  name: "Create an Outlook calendar event",
  description:
    "Creates an event in the connected user's calendar (schedules a meeting); attendees get an invitation. Times are local to timeZone. With " +
    "isOnlineMeeting, Outlook adds a Teams meeting (work accounts). Returns the event ({ id, subject, start, end, joinUrl, webLink, ... }).",
  input: z.object({
    subject: z.string().min(1).max(255).describe("The event's title."),
    start: localTime,
    end: localTime,
    timeZone: timeZone.default("UTC"),
    body: z.string().max(100_000).optional().describe("The event's description, plain text."),
    location: z.string().max(255).optional().describe("Where it takes place, as shown to attendees."),
    attendees: z.array(email).max(100).default([]).describe("Email addresses to invite as required attendees."),
    isOnlineMeeting: z.boolean().default(false).describe("Add a Teams meeting link (default false)."),
  }),
  annotations: { readOnly: false, destructive: false, openWorld: true },
  async run(args, ctx) {
    const body = {
      subject: args.subject,
      start: { dateTime: args.start, timeZone: args.timeZone },
      end: { dateTime: args.end, timeZone: args.timeZone },
      ...(args.body ? { body: { contentType: "Text", content: args.body } } : {}),
      ...(args.location ? { location: { displayName: args.location } } : {}),
      attendees: args.attendees.map((address) => ({ emailAddress: { address }, type: "required" })),
      ...(args.isOnlineMeeting ? { isOnlineMeeting: true } : {}),
    };
    return eventSummary(await call(ctx, "/me/events", { method: "POST", json: body }));
  },
});

/** Outlook's curated tools. */
export const outlookTools: Tool[] = [listMessages, getMessage, sendMail, reply, getAttachment, listEvents, createEvent];
