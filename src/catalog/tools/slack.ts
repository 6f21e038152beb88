// Slack's curated tools, over the Web API (form-encoded POSTs to https://slack.com/api/<method>, which
// answer HTTP 200 with `ok: false` and an `error` code on failure). Facts from Slack's reference:
// https://docs.slack.dev/apis/web-api/ (errors, form-encoded arguments)
// https://docs.slack.dev/apis/web-api/pagination (cursor, limit, response_metadata.next_cursor)
// https://docs.slack.dev/reference/methods/chat.postMessage
// https://docs.slack.dev/reference/methods/conversations.list
// https://docs.slack.dev/reference/methods/conversations.history
// https://docs.slack.dev/reference/methods/conversations.replies
// https://docs.slack.dev/reference/methods/search.messages (user tokens only, `search:read`; messages.paging)
// https://docs.slack.dev/reference/methods/files.getUploadURLExternal and
// https://docs.slack.dev/reference/methods/files.completeUploadExternal
import { z } from "zod";
import { invalidArguments, ToolRunError } from "../../core/tool-error.js";
import { defineTool, stagedFile, type Tool, type ToolContext } from "../../toolkits/define.js";
import { type ProviderErrors, request } from "../../toolkits/provider-requests.js";

const SLACK: ProviderErrors = { name: "Slack" };

/** What to do about Slack's common error codes. */
const HINTS: Record<string, string> = {
  channel_not_found:
    "Check the channel ID (like C0123456789; SLACK_LIST_CHANNELS lists them). A private channel is found only if the app is in it.",
  not_in_channel: "The app is not a member of this channel: invite it (/invite @app) and try again.",
  is_archived: "The channel is archived; unarchive it or use another channel.",
  thread_not_found: "Check `threadTs`: it must be the ts of the thread's parent message in this channel.",
  message_not_found: "Check the message ts and channel.",
  msg_too_long: "The text is too long; split it into several messages.",
  no_text: "Give `text` (or blocks).",
  invalid_blocks: "The blocks are not valid Block Kit; check them against Slack's Block Kit reference.",
  invalid_cursor: "The cursor is stale or from another call; start again without a cursor.",
  not_allowed_token_type: "This method needs another kind of token (search.messages needs a user token); connect with one.",
  missing_scope: "The connection's token lacks a scope this method needs; reconnect with it.",
  invalid_auth: "The connection's token is not valid; reconnect it.",
  not_authed: "No token reached Slack; reconnect the connection.",
  token_revoked: "The token was revoked; reconnect the connection.",
  token_expired: "The token expired; reconnect the connection.",
  account_inactive: "The account or app behind the token is deactivated; reconnect with an active one.",
  ratelimited: "Slack rate limited the call; wait and try again.",
  channel_is_archived: "The channel is archived; unarchive it or use another channel.",
};

interface SlackAnswer {
  ok: boolean;
  error?: string;
  needed?: string;
  response_metadata?: { next_cursor?: string; messages?: string[]; warnings?: string[] };
  [field: string]: unknown;
}

/** Form fields from the values that are set; objects and arrays are sent as JSON text, as Slack takes them. */
function form(values: Record<string, unknown>): URLSearchParams {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || value === null) continue;
    body.set(name, typeof value === "object" ? JSON.stringify(value) : String(value));
  }
  return body;
}

/**
 * Calls a Web API method with form-encoded arguments. An HTTP failure (429 and 5xx) is an
 * `upstream_error`; an `ok: false` answer is a `slack_error` whose message names Slack's code.
 */
export async function slackCall<T extends SlackAnswer>(ctx: ToolContext, method: string, args: Record<string, unknown>): Promise<T> {
  const response = await request(ctx, SLACK, `/${method}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form(args),
  });
  const answer = (await response.json()) as T;
  if (answer.ok) return answer;
  const code = answer.error ?? "unknown_error";
  const details = [answer.needed ? `needed scope: ${answer.needed}` : "", ...(answer.response_metadata?.messages ?? [])].filter(Boolean);
  const hint = HINTS[code] ?? "See Slack's documentation of this method for what the code means.";
  throw new ToolRunError(`Slack answered error "${code}" to ${method}${details.length ? ` (${details.join("; ")})` : ""}. ${hint}`, {
    code: "slack_error",
    retryable: code === "ratelimited",
    upstreamStatus: response.status,
  });
}

/** Slack's cursor for the next page, or null when there is none (Slack sends an empty string). */
const nextCursor = (answer: SlackAnswer) => answer.response_metadata?.next_cursor || null;

const channel = z.string().min(1).max(64).meta({ description: "Channel ID, e.g. C0123456789 (a DM's D… ID works too)." });
const cursor = z
  .string()
  .max(500)
  .optional()
  .meta({ description: "`nextCursor` of the previous result, to get the next page; leave out for the first page." });
const blocks = z
  .array(z.record(z.string(), z.unknown()))
  .max(50)
  .optional()
  .meta({ description: "Block Kit blocks for a rich layout; `text` is then the notification fallback." });

interface SlackMessage {
  ts: string;
  type?: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  username?: string;
  text?: string;
  thread_ts?: string;
  reply_count?: number;
  latest_reply?: string;
  files?: Array<{ id: string; name?: string; title?: string; mimetype?: string }>;
  reactions?: Array<{ name: string; count: number }>;
}

function messageSummary(message: SlackMessage) {
  return {
    ts: message.ts,
    user: message.user ?? null,
    botId: message.bot_id ?? null,
    subtype: message.subtype ?? null,
    text: message.text ?? "",
    threadTs: message.thread_ts ?? null,
    replyCount: message.reply_count ?? 0,
    files: (message.files ?? []).map((file) => ({ id: file.id, name: file.name ?? file.title ?? null, mimetype: file.mimetype ?? null })),
    reactions: (message.reactions ?? []).map((reaction) => ({ name: reaction.name, count: reaction.count })),
  };
}

async function postMessage(
  ctx: ToolContext,
  args: { channel: string; text: string; blocks?: unknown; threadTs?: string; replyBroadcast?: boolean; unfurlLinks?: boolean },
) {
  const answer = await slackCall<SlackAnswer & { channel: string; ts: string; message: SlackMessage }>(ctx, "chat.postMessage", {
    channel: args.channel,
    text: args.text,
    blocks: args.blocks,
    thread_ts: args.threadTs,
    reply_broadcast: args.replyBroadcast,
    unfurl_links: args.unfurlLinks,
  });
  return { channel: answer.channel, ts: answer.ts, threadTs: answer.message?.thread_ts ?? null, text: answer.message?.text ?? args.text };
}

const text = z
  .string()
  .min(1)
  .max(40000)
  .meta({ description: "Message text in Slack mrkdwn (*bold*, _italic_, <https://x|links>, <@U123> mentions)." });

const postMessageTool = defineTool({
  slug: "SLACK_POST_MESSAGE",
  name: "Send a message to a channel",
  description:
    "Posts a message to a channel, private channel or DM as the connected app or user. Returns the channel ID and the message's `ts`, " +
    "its ID, which SLACK_REPLY_IN_THREAD takes as `threadTs`. The app must be a member of a private channel (`not_in_channel` otherwise).",
  input: z.object({
    channel,
    text,
    blocks,
    unfurlLinks: z.boolean().optional().meta({ description: "Whether to show previews of links (Slack's default when left out)." }),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  run: (args, ctx) => postMessage(ctx, args),
});

const replyInThread = defineTool({
  slug: "SLACK_REPLY_IN_THREAD",
  name: "Reply in thread",
  description:
    "Replies in the thread of a message. `threadTs` is the `ts` of the thread's parent message (never of a reply). Returns the reply's " +
    "channel, `ts` and `threadTs`.",
  input: z.object({
    channel,
    threadTs: z
      .string()
      .regex(/^\d+\.\d+$/, "must be a Slack ts such as 1712345678.123456")
      .meta({ description: "`ts` of the parent message." }),
    text,
    blocks,
    alsoSendToChannel: z.boolean().default(false).meta({ description: "Also show the reply in the channel (default false)." }),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  run: (args, ctx) => postMessage(ctx, { ...args, replyBroadcast: args.alsoSendToChannel }),
});

const listChannels = defineTool({
  slug: "SLACK_LIST_CHANNELS",
  name: "List channels",
  description:
    "Lists the workspace's channels the connection can see: id, name, whether private, archived and joined, topic, purpose and member count. " +
    "Returns `channels` and `nextCursor`: pass it as `cursor` to get the next page; null when there are no more. A page can hold fewer " +
    "than `limit` channels even when more follow.",
  input: z.object({
    types: z
      .array(z.enum(["public_channel", "private_channel", "mpim", "im"]))
      .min(1)
      .default(["public_channel", "private_channel"])
      .meta({ description: "Kinds of conversation to list (default public and private channels)." }),
    excludeArchived: z.boolean().default(true).meta({ description: "Leave archived channels out (default true)." }),
    limit: z.number().int().min(1).max(1000).default(200).meta({ description: "Channels per page, at most 1000 (default 200)." }),
    cursor,
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    type Channel = {
      id: string;
      name?: string;
      is_private?: boolean;
      is_archived?: boolean;
      is_member?: boolean;
      is_im?: boolean;
      user?: string;
      topic?: { value: string };
      purpose?: { value: string };
      num_members?: number;
      created?: number;
    };
    const answer = await slackCall<SlackAnswer & { channels: Channel[] }>(ctx, "conversations.list", {
      types: args.types.join(","),
      exclude_archived: args.excludeArchived,
      limit: args.limit,
      cursor: args.cursor,
    });
    return {
      channels: answer.channels.map((item) => ({
        id: item.id,
        name: item.name ?? null,
        isPrivate: item.is_private ?? false,
        isArchived: item.is_archived ?? false,
        isMember: item.is_member ?? false,
        user: item.is_im ? (item.user ?? null) : null,
        topic: item.topic?.value || null,
        purpose: item.purpose?.value || null,
        memberCount: item.num_members ?? null,
        created: item.created ?? null,
      })),
      nextCursor: nextCursor(answer),
    };
  },
});

const tsBound = (what: string) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/, "must be a Unix time in seconds, such as 1712345678.000000")
    .optional()
    .meta({ description: `${what}, a Slack ts or a Unix time in seconds.` });

const history = defineTool({
  slug: "SLACK_GET_CHANNEL_HISTORY",
  name: "Get channel history",
  description:
    "Reads a channel's messages, newest first: ts, user, text, thread ts and reply count, files and reactions. Thread replies are not " +
    "included (see SLACK_GET_THREAD_REPLIES). Returns `messages`, `hasMore` and `nextCursor` (pass it as `cursor` for older messages; " +
    "null at the end). `oldest`/`latest` bound the time range.",
  input: z.object({
    channel,
    limit: z.number().int().min(1).max(999).default(50).meta({ description: "Messages per page, at most 999 (default 50)." }),
    cursor,
    oldest: tsBound("Only messages after this time"),
    latest: tsBound("Only messages before this time"),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const answer = await slackCall<SlackAnswer & { messages: SlackMessage[]; has_more: boolean }>(ctx, "conversations.history", {
      channel: args.channel,
      limit: args.limit,
      cursor: args.cursor,
      oldest: args.oldest,
      latest: args.latest,
    });
    return { messages: answer.messages.map(messageSummary), hasMore: answer.has_more, nextCursor: nextCursor(answer) };
  },
});

const threadReplies = defineTool({
  slug: "SLACK_GET_THREAD_REPLIES",
  name: "Get thread replies",
  description:
    "Reads a thread: its parent message first, then the replies, oldest first. Returns `messages`, `hasMore` and `nextCursor` (pass it as " +
    "`cursor` for more; null at the end).",
  input: z.object({
    channel,
    threadTs: z
      .string()
      .regex(/^\d+\.\d+$/, "must be a Slack ts such as 1712345678.123456")
      .meta({ description: "`ts` of the parent message." }),
    limit: z.number().int().min(1).max(1000).default(100).meta({ description: "Messages per page (default 100)." }),
    cursor,
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const answer = await slackCall<SlackAnswer & { messages: SlackMessage[]; has_more?: boolean }>(ctx, "conversations.replies", {
      channel: args.channel,
      ts: args.threadTs,
      limit: args.limit,
      cursor: args.cursor,
    });
    return { messages: answer.messages.map(messageSummary), hasMore: answer.has_more ?? false, nextCursor: nextCursor(answer) };
  },
});

const search = defineTool({
  // search.messages takes a user token only: the one the OAuth connection keeps beside the bot token.
  credential: "user",
  slug: "SLACK_SEARCH_MESSAGES",
  name: "Search messages",
  description:
    'Searches messages with Slack\'s search syntax (`in:#general from:@alice has:link before:2024-06-01 "exact phrase"`). Needs a ' +
    "user token with `search:read` (a bot token gets `not_allowed_token_type`). Returns `total`, `matches` (ts, text, user, channel id and " +
    "name, permalink) and `nextPage` (pass it as `page`; null on the last page).",
  input: z.object({
    query: z.string().min(1).max(1000).meta({ description: "Search query." }),
    sort: z.enum(["score", "timestamp"]).default("score").meta({ description: "Best match (score) or newest (timestamp) first." }),
    sortDir: z.enum(["asc", "desc"]).default("desc").meta({ description: "Sort direction." }),
    count: z.number().int().min(1).max(100).default(20).meta({ description: "Matches per page, at most 100 (default 20)." }),
    page: z.number().int().min(1).max(100).default(1).meta({ description: "Page to fetch, from 1 (`nextPage` of the previous result)." }),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    type Match = SlackMessage & { channel?: { id: string; name?: string }; permalink?: string };
    const answer = await slackCall<
      SlackAnswer & { messages: { total: number; matches: Match[]; paging?: { page: number; pages: number } } }
    >(ctx, "search.messages", { query: args.query, sort: args.sort, sort_dir: args.sortDir, count: args.count, page: args.page });
    const paging = answer.messages.paging;
    return {
      total: answer.messages.total,
      matches: answer.messages.matches.map((match) => ({
        ts: match.ts,
        text: match.text ?? "",
        user: match.user ?? null,
        username: match.username ?? null,
        channel: match.channel ? { id: match.channel.id, name: match.channel.name ?? null } : null,
        permalink: match.permalink ?? null,
      })),
      nextPage: paging && paging.page < Math.min(paging.pages, 100) ? paging.page + 1 : null,
    };
  },
});

const upload = defineTool({
  slug: "SLACK_UPLOAD_FILE",
  name: "Upload file",
  description:
    "Uploads a staged file (POST /upload first) and shares it in a channel or thread with an optional message; without `channel` the file " +
    "stays private to the connection. Returns the file's id and title. Slack processes files asynchronously, so the shared message can " +
    "appear a moment later.",
  input: z.object({
    file: stagedFile("Staging key of the file to upload, from POST /upload."),
    channel: channel.optional(),
    threadTs: z
      .string()
      .regex(/^\d+\.\d+$/, "must be a Slack ts such as 1712345678.123456")
      .optional()
      .meta({ description: "Share the file as a reply in this thread (needs `channel`)." }),
    title: z.string().max(255).optional().meta({ description: "Title shown in Slack; the file name when left out." }),
    initialComment: z.string().max(4000).optional().meta({ description: "Message text posted with the file." }),
    filename: z.string().min(1).max(255).optional().meta({ description: "File name to use instead of the uploaded one." }),
    altText: z.string().max(1000).optional().meta({ description: "Description of an image, for screen readers." }),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  async run(args, ctx) {
    if (args.threadTs && !args.channel) throw invalidArguments("threadTs needs channel: give the channel the thread is in.");
    const file = await ctx.files.get(args.file);
    const filename = args.filename ?? file.name;
    const target = await slackCall<SlackAnswer & { upload_url: string; file_id: string }>(ctx, "files.getUploadURLExternal", {
      filename,
      length: file.size,
      alt_txt: args.altText,
    });
    // The upload URL is on files.slack.com, one of the toolkit's base URLs; Slack answers 200 when it has the bytes.
    await request(ctx, SLACK, target.upload_url, {
      method: "POST",
      headers: { "content-type": file.contentType },
      body: (await file.bytes()) as BodyInit,
    });
    const done = await slackCall<SlackAnswer & { files: Array<{ id: string; title?: string; name?: string; permalink?: string }> }>(
      ctx,
      "files.completeUploadExternal",
      {
        files: [{ id: target.file_id, title: args.title ?? filename }],
        channel_id: args.channel,
        thread_ts: args.threadTs,
        initial_comment: args.initialComment,
      },
    );
    const shared = done.files[0];
    return {
      fileId: shared?.id ?? target.file_id,
      title: shared?.title ?? args.title ?? filename,
      permalink: shared?.permalink ?? null,
      channel: args.channel ?? null,
    };
  },
});

/** Slack's curated tools: messages, threads, channels, search and file uploads. */
export const slackTools: Tool[] = [postMessageTool, replyInThread, listChannels, history, threadReplies, search, upload];
