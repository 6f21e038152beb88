/**
 * The curated Discord tools through POST /execute, against an emulation of https://discord.com/api/v10 answering
 * as Discord's documentation shows: arrays of guilds, channels and messages (newest first), message objects,
 * 204 for deletes and reactions, multipart uploads (payload_json and files[n]), and errors as
 * `{ code, message, errors: { field: { _errors: [...] } } }`.
 */
import { describe, expect, it } from "vitest";
import { discordTools } from "../../../src/catalog/tools/discord.js";
import { json, type Received, type Route, setupToolkit } from "./support-b.js";

const CHANNEL = "1200000000000000001";
const MESSAGE = {
  id: "1300000000000000001",
  channel_id: CHANNEL,
  type: 0,
  content: "Deploy done",
  author: { id: "1100000000000000001", username: "ada", global_name: "Ada", avatar: null },
  timestamp: "2024-05-01T10:00:00.000000+00:00",
  edited_timestamp: null,
  attachments: [],
  embeds: [],
  mentions: [],
  pinned: false,
};
const OUT = {
  id: "1300000000000000001",
  channelId: CHANNEL,
  content: "Deploy done",
  author: { id: "1100000000000000001", username: "ada", bot: false },
  timestamp: "2024-05-01T10:00:00.000000+00:00",
  editedTimestamp: null,
  replyTo: null,
  attachments: [],
};
const base = "/api/v10";

const routes: Route[] = [
  {
    method: "GET",
    path: /^\/api\/v10\/users\/@me\/guilds$/,
    answer: (request) =>
      json(
        request.query.get("after")
          ? [{ id: "1000000000000000003", name: "Third", icon: null, owner: true, permissions: "0", features: [] }]
          : [
              { id: "1000000000000000001", name: "First", icon: null, owner: false, permissions: "0", features: [] },
              { id: "1000000000000000002", name: "Second", icon: null, owner: false, permissions: "0", features: [] },
            ],
      ),
  },
  {
    method: "GET",
    path: /^\/api\/v10\/guilds\/1000000000000000001\/channels$/,
    answer: () =>
      json([
        { id: "1200000000000000000", type: 4, name: "Text Channels", parent_id: null, position: 0 },
        { id: CHANNEL, type: 0, name: "general", parent_id: "1200000000000000000", topic: "Chat", position: 1 },
      ]),
  },
  {
    method: "GET",
    path: /^\/api\/v10\/channels\/(?<id>\d+)\/messages$/,
    answer: (_request, { id }) =>
      id === CHANNEL ? json([MESSAGE, { ...MESSAGE, id: "1299999999999999999" }]) : json({ message: "Missing Access", code: 50001 }, 403),
  },
  {
    method: "POST",
    path: /^\/api\/v10\/channels\/\d+\/messages$/,
    answer: async (request: Received) => {
      if ((request.headers.get("content-type") ?? "").startsWith("multipart/form-data")) {
        return json({
          ...MESSAGE,
          attachments: [{ id: "1400000000000000001", filename: "log.txt", size: 5, url: "https://cdn.discordapp.com/a/log.txt" }],
        });
      }
      const body = request.body as { content?: string };
      if ((body.content ?? "").includes("@bad"))
        return json(
          {
            code: 50035,
            message: "Invalid Form Body",
            errors: { content: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 2000 or fewer in length." }] } },
          },
          400,
        );
      return json({ ...MESSAGE, content: body.content, message_reference: { message_id: "1299999999999999999" } });
    },
  },
  {
    method: "PATCH",
    path: /^\/api\/v10\/channels\/\d+\/messages\/\d+$/,
    answer: (request) => json({ ...MESSAGE, content: (request.body as any).content, edited_timestamp: "x" }),
  },
  { method: "DELETE", path: /^\/api\/v10\/channels\/\d+\/messages\/\d+$/, answer: () => new Response(null, { status: 204 }) },
  {
    method: "PUT",
    path: /^\/api\/v10\/channels\/\d+\/messages\/\d+\/reactions\/[^/]+\/@me$/,
    answer: () => new Response(null, { status: 204 }),
  },
  {
    method: "POST",
    path: /^\/api\/v10\/channels\/\d+\/messages\/\d+\/threads$/,
    answer: (request) => json({ id: "1500000000000000001", type: 11, name: (request.body as any).name, parent_id: CHANNEL }, 201),
  },
];

const setup = () => setupToolkit({ slug: "discord", baseUrl: "https://discord.com/api/v10", tools: discordTools, routes });

describe("Discord tools", () => {
  it("DISCORD_LIST_GUILDS pages with after= the last id while a page is full", async () => {
    const discord = await setup();
    expect(await discord.ok("DISCORD_LIST_GUILDS", { limit: 2 })).toEqual({
      results: [
        { id: "1000000000000000001", name: "First", owner: false },
        { id: "1000000000000000002", name: "Second", owner: false },
      ],
      nextCursor: "1000000000000000002",
    });
    expect([discord.last().path, Object.fromEntries(discord.last().query)]).toEqual([`${base}/users/@me/guilds`, { limit: "2" }]);
    expect(await discord.ok("DISCORD_LIST_GUILDS", { limit: 2, cursor: "1000000000000000002" })).toEqual({
      results: [{ id: "1000000000000000003", name: "Third", owner: true }],
      nextCursor: null,
    });
    expect(discord.last().query.get("after")).toBe("1000000000000000002");
  });

  it("DISCORD_LIST_CHANNELS names channel types", async () => {
    const discord = await setup();
    expect(await discord.ok("DISCORD_LIST_CHANNELS", { guildId: "1000000000000000001" })).toEqual({
      results: [
        { id: "1200000000000000000", name: "Text Channels", type: "category", parentId: null, topic: null },
        { id: CHANNEL, name: "general", type: "text", parentId: "1200000000000000000", topic: "Chat" },
      ],
    });
  });

  it("DISCORD_LIST_MESSAGES pages backwards with before=", async () => {
    const discord = await setup();
    const data = await discord.ok("DISCORD_LIST_MESSAGES", { channelId: CHANNEL, limit: 2, cursor: "1300000000000000009" });
    expect(data.results[0]).toEqual(OUT);
    expect(data.nextCursor).toBe("1299999999999999999");
    expect(Object.fromEntries(discord.last().query)).toEqual({ limit: "2", before: "1300000000000000009" });
  });

  it("a 403 is a failed result with Discord's message, code and the permission advice", async () => {
    const discord = await setup();
    const result = await discord.execute("DISCORD_LIST_MESSAGES", { channelId: "1299000000000000000" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 403 });
    expect(result.error).toBe(
      "Discord answered 403: Missing Access (code 50001). The bot lacks a permission in that server or channel (View Channel, Send Messages, Read Message History...): grant it, or use a channel it can reach.",
    );
  });

  it("DISCORD_SEND_MESSAGE posts JSON with a reply reference; a 400 names the field", async () => {
    const discord = await setup();
    const data = await discord.ok("DISCORD_SEND_MESSAGE", { channelId: CHANNEL, content: "Hi", replyTo: "1299999999999999999" });
    expect(data).toEqual({ ...OUT, content: "Hi", replyTo: "1299999999999999999" });
    expect(discord.last().body).toEqual({
      content: "Hi",
      message_reference: { message_id: "1299999999999999999" },
      allowed_mentions: { parse: ["users"] },
    });
    const bad = await discord.execute("DISCORD_SEND_MESSAGE", { channelId: CHANNEL, content: "@bad" });
    expect(bad.error).toContain("Discord answered 400: Invalid Form Body (code 50035): content: Must be 2000 or fewer in length.");
  });

  it("DISCORD_SEND_MESSAGE sends staged files as multipart with payload_json", async () => {
    const discord = await setup();
    const key = await discord.upload("hello", "text/plain", "log.txt");
    const data = await discord.ok("DISCORD_SEND_MESSAGE", { channelId: CHANNEL, content: "Log attached", files: [key] });
    expect(data.attachments).toEqual([
      { id: "1400000000000000001", filename: "log.txt", url: "https://cdn.discordapp.com/a/log.txt", size: 5 },
    ]);
    const sent = discord.last();
    const form = await new Response(sent.body as string, { headers: { "content-type": sent.headers.get("content-type")! } }).formData();
    expect(JSON.parse(await (form.get("payload_json") as Blob).text())).toEqual({
      content: "Log attached",
      allowed_mentions: { parse: ["users"] },
      attachments: [{ id: 0, filename: "log.txt" }],
    });
    const file = form.get("files[0]") as File;
    expect([file.name, await file.text()]).toEqual(["log.txt", "hello"]);
  });

  it("DISCORD_EDIT_MESSAGE, DISCORD_DELETE_MESSAGE, DISCORD_ADD_REACTION and DISCORD_CREATE_THREAD", async () => {
    const discord = await setup();
    const path = `${base}/channels/${CHANNEL}/messages/1300000000000000001`;
    expect(
      await discord.ok("DISCORD_EDIT_MESSAGE", { channelId: CHANNEL, messageId: "1300000000000000001", content: "Fixed" }),
    ).toMatchObject({
      content: "Fixed",
      editedTimestamp: "x",
    });
    expect([discord.last().method, discord.last().path, discord.last().body]).toEqual(["PATCH", path, { content: "Fixed" }]);
    expect(await discord.ok("DISCORD_DELETE_MESSAGE", { channelId: CHANNEL, messageId: "1300000000000000001" })).toEqual({
      messageId: "1300000000000000001",
      deleted: true,
    });
    expect([discord.last().method, discord.last().path]).toEqual(["DELETE", path]);
    await discord.ok("DISCORD_ADD_REACTION", { channelId: CHANNEL, messageId: "1300000000000000001", emoji: "👍" });
    expect([discord.last().method, discord.last().path]).toEqual(["PUT", `${path}/reactions/%F0%9F%91%8D/@me`]);
    expect(await discord.ok("DISCORD_CREATE_THREAD", { channelId: CHANNEL, messageId: "1300000000000000001", name: "Deploy" })).toEqual({
      id: "1500000000000000001",
      name: "Deploy",
      parentId: CHANNEL,
    });
    expect(discord.last().body).toEqual({ name: "Deploy" });
  });
});
