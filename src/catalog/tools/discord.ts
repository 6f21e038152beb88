// Discord's curated tools, over https://discord.com/api/v10 (most need the bot token mode: a bot acts in a server). Facts
// from Discord's developer documentation:
// https://discord.com/developers/docs/resources/user#get-current-user-guilds (limit up to 200, after: a guild id)
// https://discord.com/developers/docs/resources/guild#get-guild-channels (every channel at once; type 0 text, 2 voice, 4 category, 5 announcement, 15 forum)
// https://discord.com/developers/docs/resources/message#get-channel-messages (limit 1 to 100, before: a message id, newest first)
// https://discord.com/developers/docs/resources/message#create-message (content up to 2000 characters, message_reference, files)
// https://discord.com/developers/docs/reference#uploading-files (multipart/form-data: payload_json, files[n], attachments [{ id, filename }])
// https://discord.com/developers/docs/resources/message#edit-message and #delete-message (204)
// https://discord.com/developers/docs/resources/message#create-reaction (PUT …/reactions/{emoji}/@me, emoji URL-encoded, 204)
// https://discord.com/developers/docs/resources/channel#start-thread-from-message (name, auto_archive_duration)
// https://discord.com/developers/docs/topics/opcodes-and-status-codes#json (errors: { code, message, errors: { field: { _errors: [{ code, message }] } } })
import { z } from "zod";
import { invalidArguments } from "../../core/tool-error.js";
import { defineTool, stagedFile, type Tool } from "../../toolkits/define.js";
import { type ProviderErrors, request, requestJson, segment } from "../../toolkits/provider-requests.js";
import { field } from "./content.js";

type Json = Record<string, unknown>;

/** The `_errors` messages nested under a JSON error's `errors`, with their field paths. */
function fieldErrors(value: unknown, path: string[] = []): string[] {
  if (!value || typeof value !== "object") return [];
  return Object.entries(value as Json).flatMap(([key, inner]) =>
    key === "_errors" && Array.isArray(inner)
      ? inner.map((error) => `${path.join(".") || "body"}: ${String(field(error, "message"))}`)
      : fieldErrors(inner, [...path, key]),
  );
}

/** Discord's error body: `{ code, message, errors }`. */
function discordReason(body: unknown): string | undefined {
  const message = field(body, "message");
  if (typeof message !== "string") return undefined;
  const code = field(body, "code");
  const details = fieldErrors(field(body, "errors"));
  return `${message}${typeof code === "number" && code !== 0 ? ` (code ${code})` : ""}${details.length ? `: ${details.join("; ")}` : ""}`;
}

const DISCORD: ProviderErrors = {
  name: "Discord",
  reason: discordReason,
  hints: {
    403: "The bot lacks a permission in that server or channel (View Channel, Send Messages, Read Message History...): grant it, or use a channel it can reach.",
  },
};

const snowflake = (what: string) =>
  z
    .string()
    .regex(/^\d{15,21}$/, "must be a Discord id (digits)")
    .describe(what);
const channelId = snowflake("The channel's id (DISCORD_LIST_CHANNELS).");
const messageId = snowflake("The message's id (DISCORD_LIST_MESSAGES).");

function message(value: Json) {
  const author = (value.author ?? {}) as Json;
  return {
    id: value.id,
    channelId: value.channel_id,
    content: value.content ?? "",
    author: { id: author.id ?? null, username: author.username ?? null, bot: author.bot ?? false },
    timestamp: value.timestamp ?? null,
    editedTimestamp: value.edited_timestamp ?? null,
    replyTo: field(value.message_reference, "message_id") ?? null,
    attachments: ((value.attachments ?? []) as Json[]).map((a) => ({ id: a.id, filename: a.filename, url: a.url, size: a.size })),
  };
}

const listGuilds = defineTool({
  slug: "DISCORD_LIST_GUILDS",
  name: "List Discord servers",
  description:
    "Lists the servers (guilds) the bot or user is in: { results: [{ id, name, owner }], nextCursor }. A server's id lists its " +
    "channels with DISCORD_LIST_CHANNELS.",
  input: z.object({
    cursor: z
      .string()
      .regex(/^\d{15,21}$/)
      .optional()
      .describe("The nextCursor of a previous result."),
    limit: z.number().int().min(1).max(200).default(100).describe("How many servers per page (1 to 200, default 100)."),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const guilds = await requestJson<Json[]>(ctx, DISCORD, "/users/@me/guilds", { query: { limit: args.limit, after: args.cursor } });
    const results = guilds.map((g) => ({ id: g.id, name: g.name, owner: g.owner ?? false }));
    return { results, nextCursor: guilds.length === args.limit ? (results.at(-1)?.id ?? null) : null };
  },
});

const CHANNEL_TYPES: Record<number, string> = {
  0: "text",
  2: "voice",
  4: "category",
  5: "announcement",
  13: "stage",
  15: "forum",
  16: "media",
};

const listChannels = defineTool({
  slug: "DISCORD_LIST_CHANNELS",
  name: "List a Discord server's channels",
  description:
    "Lists every channel of a server at once (Discord does not page them): { results: [{ id, name, type (text, voice, category, " +
    "announcement, forum...), parentId, topic }] }. Messages are sent to text and announcement channels.",
  input: z.object({ guildId: snowflake("The server's id (DISCORD_LIST_GUILDS).") }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const channels = await requestJson<Json[]>(ctx, DISCORD, `/guilds/${segment(args.guildId)}/channels`);
    return {
      results: channels.map((c) => ({
        id: c.id,
        name: c.name,
        type: CHANNEL_TYPES[c.type as number] ?? String(c.type),
        parentId: c.parent_id ?? null,
        topic: c.topic ?? null,
      })),
    };
  },
});

const listMessages = defineTool({
  slug: "DISCORD_LIST_MESSAGES",
  name: "List a Discord channel's messages",
  description:
    "Reads a channel's messages, newest first: { results: [{ id, content, author, timestamp, replyTo, attachments }], nextCursor }; " +
    "pass nextCursor back as cursor for older messages. Needs the bot's Read Message History permission.",
  input: z.object({
    channelId,
    cursor: z
      .string()
      .regex(/^\d{15,21}$/)
      .optional()
      .describe("The nextCursor of a previous result (older messages)."),
    limit: z.number().int().min(1).max(100).default(50).describe("How many messages per page (1 to 100, default 50)."),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const messages = await requestJson<Json[]>(ctx, DISCORD, `/channels/${segment(args.channelId)}/messages`, {
      query: { limit: args.limit, before: args.cursor },
    });
    const results = messages.map(message);
    return { results, nextCursor: messages.length === args.limit ? (results.at(-1)?.id ?? null) : null };
  },
});

const sendMessage = defineTool({
  slug: "DISCORD_SEND_MESSAGE",
  name: "Send a Discord message",
  description:
    "Posts a message in a channel as the bot, optionally as a reply to a message, with files attached (staged with POST /upload, up " +
    "to 10). Content is Discord markdown, up to 2000 characters. Returns the message.",
  input: z.object({
    channelId,
    content: z.string().max(2000).optional().describe("The text, in Discord markdown; optional when files are attached."),
    replyTo: messageId.optional().describe("Id of a message in the channel to reply to."),
    files: z
      .array(stagedFile("Staging key of a file to attach, from POST /upload."))
      .max(10)
      .optional()
      .describe("Files to attach (staging keys from POST /upload)."),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  async run(args, ctx) {
    if (!args.content && !args.files?.length) throw invalidArguments("Give the message's content, files, or both.");
    const payload: Json = {
      content: args.content,
      message_reference: args.replyTo ? { message_id: args.replyTo } : undefined,
      allowed_mentions: { parse: ["users"] },
    };
    const path = `/channels/${segment(args.channelId)}/messages`;
    if (!args.files?.length) return message(await requestJson<Json>(ctx, DISCORD, path, { method: "POST", json: payload }));
    const form = new FormData();
    const files = await Promise.all(args.files.map((file) => ctx.files.get(file)));
    payload.attachments = files.map((file, id) => ({ id, filename: file.name }));
    form.append("payload_json", new Blob([JSON.stringify(payload)], { type: "application/json" }));
    for (const [index, file] of files.entries()) {
      form.append(`files[${index}]`, new Blob([(await file.bytes()) as BlobPart], { type: file.contentType }), file.name);
    }
    return message(await requestJson<Json>(ctx, DISCORD, path, { method: "POST", body: form }));
  },
});

const editMessage = defineTool({
  slug: "DISCORD_EDIT_MESSAGE",
  name: "Edit a Discord message",
  description: "Replaces the text of a message the bot sent. Returns the message as it now is.",
  input: z.object({ channelId, messageId, content: z.string().min(1).max(2000).describe("The new text.") }),
  annotations: { readOnly: false, destructive: false, idempotent: true },
  async run(args, ctx) {
    const path = `/channels/${segment(args.channelId)}/messages/${segment(args.messageId)}`;
    return message(await requestJson<Json>(ctx, DISCORD, path, { method: "PATCH", json: { content: args.content } }));
  },
});

const deleteMessage = defineTool({
  slug: "DISCORD_DELETE_MESSAGE",
  name: "Delete a Discord message",
  description: "Deletes a message: the bot's own, or another's when the bot has Manage Messages. Returns { deleted: true }.",
  input: z.object({ channelId, messageId }),
  annotations: { readOnly: false, destructive: true, idempotent: true },
  async run(args, ctx) {
    await request(ctx, DISCORD, `/channels/${segment(args.channelId)}/messages/${segment(args.messageId)}`, { method: "DELETE" });
    return { messageId: args.messageId, deleted: true };
  },
});

const addReaction = defineTool({
  slug: "DISCORD_ADD_REACTION",
  name: "React to a Discord message",
  description: "Adds the bot's reaction to a message: a Unicode emoji (👍) or a server emoji written name:id. Returns { reacted: true }.",
  input: z.object({
    channelId,
    messageId,
    emoji: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[^\s/]+$/, "must be one emoji, or name:id")
      .describe("The emoji: 👍, or a custom one as name:id."),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: true },
  async run(args, ctx) {
    const path = `/channels/${segment(args.channelId)}/messages/${segment(args.messageId)}/reactions/${segment(args.emoji)}/@me`;
    await request(ctx, DISCORD, path, { method: "PUT" });
    return { messageId: args.messageId, emoji: args.emoji, reacted: true };
  },
});

const createThread = defineTool({
  slug: "DISCORD_CREATE_THREAD",
  name: "Start a Discord thread from a message",
  description:
    "Starts a thread on a message, to keep a conversation apart. Returns the thread { id, name }; send into it with its id as channelId.",
  input: z.object({ channelId, messageId, name: z.string().min(1).max(100).describe("The thread's name.") }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  async run(args, ctx) {
    const path = `/channels/${segment(args.channelId)}/messages/${segment(args.messageId)}/threads`;
    const thread = await requestJson<Json>(ctx, DISCORD, path, { method: "POST", json: { name: args.name } });
    return { id: thread.id, name: thread.name, parentId: thread.parent_id ?? args.channelId };
  },
});

/** Discord's curated tools: servers, channels, messages read, sent with files, edited, deleted, reactions and threads. */
export const discordTools: Tool[] = [
  listGuilds,
  listChannels,
  listMessages,
  sendMessage,
  editMessage,
  deleteMessage,
  addReaction,
  createThread,
];
