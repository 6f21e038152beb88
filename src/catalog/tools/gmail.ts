// Gmail's curated tools. Facts from the Gmail API reference:
// https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages/list (q, labelIds, maxResults, pageToken; nextPageToken)
// https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages/get (format, metadataHeaders)
// https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages#Message and #MessagePart (payload tree, body.data base64url)
// https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages/send and
// https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.drafts/create (`raw`, RFC 2822 base64url)
// https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages.attachments/get
// https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages/modify
// https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.labels/list
// https://developers.google.com/workspace/gmail/api/guides/threads (replies: threadId, References, In-Reply-To, same Subject)
import { z } from "zod";
import { defineTool, stagedFile, type Tool, type ToolContext } from "../../toolkits/define.js";
import { type ProviderErrors, requestJson, segment } from "../../toolkits/provider-requests.js";
import { toBase64Url } from "../../util/encoding.js";
import { decodeBase64 } from "./content.js";
import { buildMessage, charsetOf, decodeHeader, decodeText, htmlToText, type OutgoingMessage } from "./mime.js";

const GMAIL: ProviderErrors = { name: "Gmail" };
const USER = "/gmail/v1/users/me";

interface Header {
  name: string;
  value: string;
}
interface MessagePart {
  partId?: string;
  mimeType: string;
  filename?: string;
  headers?: Header[];
  body?: { size: number; data?: string; attachmentId?: string };
  parts?: MessagePart[];
}
interface GmailMessage {
  id: string;
  threadId: string;
  labelIds?: string[];
  snippet?: string;
  internalDate?: string;
  sizeEstimate?: number;
  payload?: MessagePart;
}

const SUMMARY_HEADERS = ["From", "To", "Cc", "Subject", "Date", "Message-ID"];

/** The named headers of a part, decoded, keyed by their usual spelling. */
function headersOf(part: MessagePart | undefined, names = SUMMARY_HEADERS): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const header = part?.headers?.find((h) => h.name.toLowerCase() === name.toLowerCase());
    if (header) out[name] = decodeHeader(header.value);
  }
  return out;
}

function summary(message: GmailMessage) {
  const headers = headersOf(message.payload);
  return {
    id: message.id,
    threadId: message.threadId,
    labelIds: message.labelIds ?? [],
    from: headers.From ?? null,
    to: headers.To ?? null,
    subject: headers.Subject ?? null,
    date: headers.Date ?? null,
    snippet: message.snippet ?? "",
  };
}

const messageId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,100}$/, "must be a Gmail message id")
  .meta({ description: "The message's id, from GMAIL_SEARCH_MESSAGES." });

const search = defineTool({
  slug: "GMAIL_SEARCH_MESSAGES",
  name: "Search messages",
  description:
    "Finds messages with Gmail's search syntax (`from:alice is:unread`, `subject:invoice after:2024/01/01`, `has:attachment`), newest " +
    "first. Returns `messages` (id, threadId, labelIds, and with `includeDetails` from, to, subject, date and snippet), " +
    "`resultSizeEstimate` and `nextPageToken`: pass it as `pageToken` for the next page; null on the last. Read one with GMAIL_GET_MESSAGE.",
  input: z.object({
    query: z.string().max(2000).optional().meta({ description: "Gmail search query; all mail when left out." }),
    labelIds: z.array(z.string()).optional().meta({ description: 'Only messages with all these label ids, e.g. ["INBOX", "UNREAD"].' }),
    maxResults: z.number().int().min(1).max(100).default(20).meta({ description: "Messages per page, at most 100 (default 20)." }),
    pageToken: z.string().max(500).optional().meta({ description: "`nextPageToken` of the previous result." }),
    includeSpamTrash: z.boolean().default(false).meta({ description: "Also search Spam and Trash (default false)." }),
    includeDetails: z
      .boolean()
      .default(true)
      .meta({ description: "Fetch from, to, subject, date and snippet of each message (one more request each; default true)." }),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const list = await requestJson<{
      messages?: Array<{ id: string; threadId: string }>;
      nextPageToken?: string;
      resultSizeEstimate?: number;
    }>(ctx, GMAIL, `${USER}/messages`, {
      query: {
        q: args.query,
        labelIds: args.labelIds,
        maxResults: args.maxResults,
        pageToken: args.pageToken,
        includeSpamTrash: args.includeSpamTrash || undefined,
      },
    });
    const found = list.messages ?? [];
    const messages = args.includeDetails ? await details(ctx, found) : found.map((m) => ({ id: m.id, threadId: m.threadId }));
    return { messages, resultSizeEstimate: list.resultSizeEstimate ?? 0, nextPageToken: list.nextPageToken ?? null };
  },
});

/** The summary of each message, ten requests at a time. */
async function details(ctx: ToolContext, found: Array<{ id: string }>) {
  const out: Array<ReturnType<typeof summary>> = [];
  for (let i = 0; i < found.length; i += 10) {
    const batch = found.slice(i, i + 10).map((m) =>
      requestJson<GmailMessage>(ctx, GMAIL, `${USER}/messages/${segment(m.id)}`, {
        query: { format: "metadata", metadataHeaders: ["From", "To", "Subject", "Date"] },
      }),
    );
    out.push(...(await Promise.all(batch)).map(summary));
  }
  return out;
}

/** Every part of the tree, depth first. */
function* partsOf(part: MessagePart | undefined): Generator<MessagePart> {
  if (!part) return;
  yield part;
  for (const child of part.parts ?? []) yield* partsOf(child);
}

function bodyText(part: MessagePart): string {
  const bytes = part.body?.data ? decodeBase64(part.body.data) : new Uint8Array();
  const type = part.headers?.find((h) => h.name.toLowerCase() === "content-type")?.value;
  return decodeText(bytes, charsetOf(type));
}

const getMessage = defineTool({
  slug: "GMAIL_GET_MESSAGE",
  name: "Get message",
  description:
    "Reads one message: decoded headers (from, to, cc, subject, date, Message-ID), labels, the text body (the text/plain part, or the " +
    "HTML part turned into text), and its attachments (partId, filename, mimeType, size, attachmentId; fetch one with " +
    "GMAIL_GET_ATTACHMENT). To reply, pass threadId and the Message-ID as inReplyTo to GMAIL_SEND_EMAIL, with the same subject.",
  input: z.object({
    messageId,
    maxBodyChars: z
      .number()
      .int()
      .min(100)
      .max(200_000)
      .default(20_000)
      .meta({ description: "Longest body returned; a longer one is cut and `bodyTruncated` is true (default 20000)." }),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const message = await requestJson<GmailMessage>(ctx, GMAIL, `${USER}/messages/${segment(args.messageId)}`, {
      query: { format: "full" },
    });
    const parts = [...partsOf(message.payload)];
    const isBody = (part: MessagePart, type: string) => part.mimeType === type && !part.filename && part.body?.data !== undefined;
    const plain = parts.find((part) => isBody(part, "text/plain"));
    const html = parts.find((part) => isBody(part, "text/html"));
    const body = plain ? bodyText(plain) : html ? htmlToText(bodyText(html)) : "";
    const headers = headersOf(message.payload);
    return {
      ...summary(message),
      cc: headers.Cc ?? null,
      messageIdHeader: headers["Message-ID"] ?? null,
      bodyFormat: plain ? "text" : html ? "html-as-text" : "none",
      body: body.length > args.maxBodyChars ? body.slice(0, args.maxBodyChars) : body,
      bodyTruncated: body.length > args.maxBodyChars,
      attachments: parts
        .filter((part) => part.filename)
        .map((part) => ({
          partId: part.partId ?? null,
          filename: part.filename!,
          mimeType: part.mimeType,
          size: part.body?.size ?? 0,
          attachmentId: part.body?.attachmentId ?? null,
        })),
    };
  },
});

const address = z.string().min(3).max(320);
const composeFields = {
  to: z.array(address).max(100).default([]).meta({ description: "Recipients, each `a@b.com` or `Name <a@b.com>`." }),
  cc: z.array(address).max(100).optional().meta({ description: "Cc recipients." }),
  bcc: z.array(address).max(100).optional().meta({ description: "Bcc recipients (hidden from the others)." }),
  subject: z.string().max(998).meta({ description: "Subject line. For a reply, the original subject (with `Re: `)." }),
  body: z.string().max(5_000_000).optional().meta({ description: "Plain-text body." }),
  htmlBody: z
    .string()
    .max(5_000_000)
    .optional()
    .meta({ description: "HTML body; sent with the plain-text body as alternatives when both are given." }),
  attachments: z
    .array(stagedFile("Staging key of a file to attach, from POST /upload."))
    .max(20)
    .optional()
    .meta({ description: "Files to attach, as staging keys from POST /upload. Gmail limits a message to 25 MB in all." }),
  threadId: z.string().max(100).optional().meta({ description: "Thread to add the message to, for a reply." }),
  inReplyTo: z.string().max(998).optional().meta({
    description: "Message-ID header of the message replied to (`messageIdHeader` of GMAIL_GET_MESSAGE), e.g. `<abc@mail.gmail.com>`.",
  }),
  from: z
    .string()
    .max(320)
    .optional()
    .meta({ description: "Sender, one of the account's send-as addresses; the account's own when left out." }),
};
const composeInput = z.object(composeFields);

/** The message of a send or draft as base64url `raw`, with the staged attachments read. */
async function rawMessage(ctx: ToolContext, args: z.output<typeof composeInput>): Promise<string> {
  const attachments = await Promise.all(
    (args.attachments ?? []).map(async (key) => {
      const file = await ctx.files.get(key);
      return { filename: file.name, contentType: file.contentType, bytes: await file.bytes() };
    }),
  );
  const message: OutgoingMessage = {
    from: args.from,
    to: args.to,
    cc: args.cc,
    bcc: args.bcc,
    subject: args.subject,
    text: args.body,
    html: args.htmlBody,
    inReplyTo: args.inReplyTo,
    attachments,
  };
  return toBase64Url(buildMessage(message));
}

const sendEmail = defineTool({
  slug: "GMAIL_SEND_EMAIL",
  name: "Send email",
  description:
    "Sends an email from the connected account, with optional HTML body and attachments (staged files). For a reply, give threadId, " +
    "inReplyTo and the original subject. Returns the sent message's id, threadId and labelIds.",
  input: composeInput,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  async run(args, ctx) {
    const raw = await rawMessage(ctx, args);
    const sent = await requestJson<GmailMessage>(ctx, GMAIL, `${USER}/messages/send`, {
      method: "POST",
      json: { raw, threadId: args.threadId },
    });
    return { id: sent.id, threadId: sent.threadId, labelIds: sent.labelIds ?? [] };
  },
});

const createDraft = defineTool({
  slug: "GMAIL_CREATE_DRAFT",
  name: "Create draft",
  description:
    "Saves an email as a draft in the connected account (nothing is sent), with the same fields as GMAIL_SEND_EMAIL. Returns the draft's " +
    "id and its message's id and threadId.",
  input: composeInput,
  annotations: { readOnly: false, destructive: false, idempotent: false },
  async run(args, ctx) {
    const raw = await rawMessage(ctx, args);
    const draft = await requestJson<{ id: string; message: GmailMessage }>(ctx, GMAIL, `${USER}/drafts`, {
      method: "POST",
      json: { message: { raw, threadId: args.threadId } },
    });
    return { draftId: draft.id, messageId: draft.message.id, threadId: draft.message.threadId };
  },
});

const getAttachment = defineTool({
  slug: "GMAIL_GET_ATTACHMENT",
  name: "Get attachment",
  description:
    "Downloads an attachment of a message as a staged file: returns `file`, whose `stagingKey` GET /files/{key} reads or another tool " +
    "takes as a file argument. Take messageId, attachmentId, filename and mimeType from GMAIL_GET_MESSAGE's `attachments`.",
  input: z.object({
    messageId,
    attachmentId: z.string().min(1).max(2000).meta({ description: "`attachmentId` from GMAIL_GET_MESSAGE." }),
    filename: z.string().min(1).max(255).default("attachment").meta({ description: "Name to give the staged file." }),
    mimeType: z
      .string()
      .regex(/^[\w.+-]+\/[\w.+-]+$/, "must be a MIME type such as application/pdf")
      .default("application/octet-stream")
      .meta({ description: "Content type of the staged file." }),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const attachment = await requestJson<{ size: number; data: string }>(
      ctx,
      GMAIL,
      `${USER}/messages/${segment(args.messageId)}/attachments/${segment(args.attachmentId)}`,
    );
    const file = await ctx.files.stage(decodeBase64(attachment.data), { contentType: args.mimeType, filename: args.filename });
    return { file };
  },
});

const modifyLabels = defineTool({
  slug: "GMAIL_MODIFY_LABELS",
  name: "Modify labels",
  description:
    "Adds and removes labels on a message. System labels: INBOX (remove to archive), UNREAD (remove to mark read), STARRED, IMPORTANT, " +
    "SPAM, TRASH; user labels by id (GMAIL_LIST_LABELS). Returns the message's id, threadId and labelIds after the change.",
  input: z.object({
    messageId,
    addLabelIds: z.array(z.string().min(1)).max(100).default([]).meta({ description: "Label ids to add." }),
    removeLabelIds: z.array(z.string().min(1)).max(100).default([]).meta({ description: "Label ids to remove." }),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: true },
  async run(args, ctx) {
    const message = await requestJson<GmailMessage>(ctx, GMAIL, `${USER}/messages/${segment(args.messageId)}/modify`, {
      method: "POST",
      json: { addLabelIds: args.addLabelIds, removeLabelIds: args.removeLabelIds },
    });
    return { id: message.id, threadId: message.threadId, labelIds: message.labelIds ?? [] };
  },
});

const listLabels = defineTool({
  slug: "GMAIL_LIST_LABELS",
  name: "List labels",
  description:
    "Lists the account's labels, system and user: id, name and type. Use the ids with GMAIL_MODIFY_LABELS and GMAIL_SEARCH_MESSAGES.",
  input: z.object({}),
  annotations: { readOnly: true, idempotent: true },
  async run(_args, ctx) {
    const answer = await requestJson<{ labels?: Array<{ id: string; name: string; type?: string }> }>(ctx, GMAIL, `${USER}/labels`);
    return { labels: (answer.labels ?? []).map((label) => ({ id: label.id, name: label.name, type: label.type ?? null })) };
  },
});

/** Gmail's curated tools: search, read, send, drafts, attachments and labels. */
export const gmailTools: Tool[] = [search, getMessage, sendEmail, createDraft, getAttachment, modifyLabels, listLabels];
