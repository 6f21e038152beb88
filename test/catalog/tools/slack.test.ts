/**
 * Slack's curated tools over an emulation of the Web API. Answer shapes follow Slack's reference:
 * https://docs.slack.dev/reference/methods/chat.postMessage
 * https://docs.slack.dev/reference/methods/conversations.list (response_metadata.next_cursor)
 * https://docs.slack.dev/reference/methods/conversations.history
 * https://docs.slack.dev/reference/methods/conversations.replies
 * https://docs.slack.dev/reference/methods/search.messages (messages.matches, messages.paging)
 * https://docs.slack.dev/reference/methods/files.getUploadURLExternal
 * https://docs.slack.dev/reference/methods/files.completeUploadExternal
 * https://docs.slack.dev/apis/web-api/ (errors: HTTP 200 with `ok: false` and an `error` code)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { slackTools } from "../../../src/catalog/tools/slack.js";
import { expectAuthorized, reply, type Sent, toolkitHarness } from "./support.js";

const API = "https://slack.com/api";
const FILES = "https://files.slack.com";
let t: Awaited<ReturnType<typeof toolkitHarness>>;

beforeAll(async () => {
  t = await toolkitHarness({ slug: "slack", name: "Slack", baseUrl: [API, FILES], tools: slackTools });
});
afterAll(() => t.close());

/** Checks a Web API call: POST, form-encoded, to the method's URL. */
function expectMethod(request: Sent | undefined, method: string): URLSearchParams {
  expect(request!.method).toBe("POST");
  expect(request!.url.href).toBe(`${API}/${method}`);
  expect(request!.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
  return request!.form();
}

describe("messages", () => {
  it("SLACK_POST_MESSAGE posts text and blocks and returns the ts", async () => {
    t.api.answer(() =>
      reply({
        ok: true,
        channel: "C123ABC456",
        ts: "1503435956.000247",
        message: {
          text: "Deploy done",
          username: "ecto1",
          bot_id: "B123ABC456",
          type: "message",
          subtype: "bot_message",
          ts: "1503435956.000247",
        },
      }),
    );
    const blocks = [{ type: "section", text: { type: "mrkdwn", text: "*Deploy* done" } }];
    const result = await t.execute("SLACK_POST_MESSAGE", { channel: "C123ABC456", text: "Deploy done", blocks });
    const sent = expectMethod(t.api.sent[0], "chat.postMessage");
    expect(Object.fromEntries(sent)).toEqual({ channel: "C123ABC456", text: "Deploy done", blocks: JSON.stringify(blocks) });
    expectAuthorized(t.api.sent);
    expect(result).toEqual({
      data: { channel: "C123ABC456", ts: "1503435956.000247", threadTs: null, text: "Deploy done" },
      error: null,
      successful: true,
    });
  });

  it("fails with Slack's error code when Slack answers ok:false with HTTP 200", async () => {
    t.api.answer(() => reply({ ok: false, error: "channel_not_found" }));
    const result = await t.execute("SLACK_POST_MESSAGE", { channel: "C000000000", text: "hi" });
    expect(result).toMatchObject({ successful: false, code: "slack_error", upstreamStatus: 200, data: null });
    expect(result.error).toMatch(/^Slack answered error "channel_not_found" to chat\.postMessage\. Check the channel ID/);
  });

  it("names the missing scope", async () => {
    t.api.answer(() => reply({ ok: false, error: "missing_scope", needed: "chat:write", provided: "channels:read" }));
    const result = await t.execute("SLACK_POST_MESSAGE", { channel: "C1", text: "hi" });
    expect(result.error).toMatch(/"missing_scope" to chat\.postMessage \(needed scope: chat:write\)\. .*reconnect/);
  });

  it("reports an HTTP 429 as a retryable upstream error", async () => {
    t.api.answer(() => new Response("", { status: 429, headers: { "retry-after": "30" } }));
    const result = await t.execute("SLACK_POST_MESSAGE", { channel: "C1", text: "hi" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 429, retryable: true, retryAfterMs: 30_000 });
  });

  it("SLACK_REPLY_IN_THREAD posts into the thread", async () => {
    t.api.answer(() =>
      reply({ ok: true, channel: "C1", ts: "1700000001.000200", message: { text: "ack", thread_ts: "1700000000.000100" } }),
    );
    const result = await t.execute("SLACK_REPLY_IN_THREAD", {
      channel: "C1",
      threadTs: "1700000000.000100",
      text: "ack",
      alsoSendToChannel: true,
    });
    const sent = expectMethod(t.api.sent[0], "chat.postMessage");
    expect(Object.fromEntries(sent)).toEqual({ channel: "C1", text: "ack", thread_ts: "1700000000.000100", reply_broadcast: "true" });
    expect(result.data).toEqual({ channel: "C1", ts: "1700000001.000200", threadTs: "1700000000.000100", text: "ack" });
  });
});

describe("reading", () => {
  it("SLACK_LIST_CHANNELS pages with the cursor", async () => {
    t.api.answer((request) =>
      request.form().get("cursor")
        ? reply({
            ok: true,
            channels: [{ id: "C3", name: "random", is_private: false, is_member: false }],
            response_metadata: { next_cursor: "" },
          })
        : reply({
            ok: true,
            channels: [
              {
                id: "C1",
                name: "general",
                is_private: false,
                is_archived: false,
                is_member: true,
                topic: { value: "Company-wide" },
                purpose: { value: "" },
                num_members: 40,
                created: 1449252889,
              },
              { id: "G2", name: "secret", is_private: true, is_member: true },
            ],
            response_metadata: { next_cursor: "dGVhbTpDMDYxRkE1UEI=" },
          }),
    );
    const first = await t.execute("SLACK_LIST_CHANNELS", { limit: 2 });
    expect(Object.fromEntries(expectMethod(t.api.sent[0], "conversations.list"))).toEqual({
      types: "public_channel,private_channel",
      exclude_archived: "true",
      limit: "2",
    });
    expect(first.data.nextCursor).toBe("dGVhbTpDMDYxRkE1UEI=");
    expect(first.data.channels[0]).toEqual({
      id: "C1",
      name: "general",
      isPrivate: false,
      isArchived: false,
      isMember: true,
      user: null,
      topic: "Company-wide",
      purpose: null,
      memberCount: 40,
      created: 1449252889,
    });
    const second = await t.execute("SLACK_LIST_CHANNELS", { limit: 2, cursor: first.data.nextCursor });
    expect(t.api.sent[1]!.form().get("cursor")).toBe("dGVhbTpDMDYxRkE1UEI=");
    expect(second.data.channels.map((c: { id: string }) => c.id)).toEqual(["C3"]);
    expect(second.data.nextCursor).toBeNull();
  });

  it("SLACK_GET_CHANNEL_HISTORY returns messages, hasMore and the cursor", async () => {
    t.api.answer(() =>
      reply({
        ok: true,
        messages: [
          {
            type: "message",
            user: "U123ABC456",
            text: "I find you punny and would like to smell your nose letter",
            ts: "1512085950.000216",
            thread_ts: "1512085950.000216",
            reply_count: 2,
          },
          {
            type: "message",
            user: "U222BBB222",
            text: "What, you want to smell my shoes better?",
            ts: "1512104434.000490",
            files: [{ id: "F1", name: "shoe.png", mimetype: "image/png" }],
          },
        ],
        has_more: true,
        pin_count: 0,
        response_metadata: { next_cursor: "bmV4dF90czoxNTEyMDg1ODYxMDAwNTQz" },
      }),
    );
    const result = await t.execute("SLACK_GET_CHANNEL_HISTORY", { channel: "C1", limit: 2, oldest: "1512085000" });
    expect(Object.fromEntries(expectMethod(t.api.sent[0], "conversations.history"))).toEqual({
      channel: "C1",
      limit: "2",
      oldest: "1512085000",
    });
    expect(result.data.hasMore).toBe(true);
    expect(result.data.nextCursor).toBe("bmV4dF90czoxNTEyMDg1ODYxMDAwNTQz");
    expect(result.data.messages[0]).toMatchObject({
      ts: "1512085950.000216",
      user: "U123ABC456",
      replyCount: 2,
      threadTs: "1512085950.000216",
    });
    expect(result.data.messages[1].files).toEqual([{ id: "F1", name: "shoe.png", mimetype: "image/png" }]);
  });

  it("SLACK_GET_THREAD_REPLIES reads a thread", async () => {
    t.api.answer(() =>
      reply({
        ok: true,
        messages: [
          { type: "message", user: "U1", text: "parent", thread_ts: "1482960137.003543", reply_count: 1, ts: "1482960137.003543" },
          { type: "message", user: "U2", text: "reply", thread_ts: "1482960137.003543", parent_user_id: "U1", ts: "1483037603.017503" },
        ],
        has_more: false,
        response_metadata: { next_cursor: "" },
      }),
    );
    const result = await t.execute("SLACK_GET_THREAD_REPLIES", { channel: "C1", threadTs: "1482960137.003543" });
    expect(Object.fromEntries(expectMethod(t.api.sent[0], "conversations.replies"))).toEqual({
      channel: "C1",
      ts: "1482960137.003543",
      limit: "100",
    });
    expect(result.data.messages.map((m: { text: string }) => m.text)).toEqual(["parent", "reply"]);
    expect(result.data.nextCursor).toBeNull();
  });

  it("SLACK_SEARCH_MESSAGES returns matches and the next page", async () => {
    t.api.answer(() =>
      reply({
        ok: true,
        query: "deploy",
        messages: {
          total: 45,
          matches: [
            {
              channel: { id: "C1", name: "ops" },
              iid: "x",
              permalink: "https://acme.slack.com/archives/C1/p1508284197000015",
              text: "deploy failed",
              ts: "1508284197.000015",
              type: "message",
              user: "U1",
              username: "alice",
            },
          ],
          pagination: { first: 1, last: 20, page: 1, page_count: 3, per_page: 20, total_count: 45 },
          paging: { count: 20, page: 1, pages: 3, total: 45 },
        },
      }),
    );
    const result = await t.execute("SLACK_SEARCH_MESSAGES", { query: "deploy in:#ops", sort: "timestamp" });
    expect(Object.fromEntries(expectMethod(t.api.sent[0], "search.messages"))).toEqual({
      query: "deploy in:#ops",
      sort: "timestamp",
      sort_dir: "desc",
      count: "20",
      page: "1",
    });
    expect(result.data).toEqual({
      total: 45,
      matches: [
        {
          ts: "1508284197.000015",
          text: "deploy failed",
          user: "U1",
          username: "alice",
          channel: { id: "C1", name: "ops" },
          permalink: "https://acme.slack.com/archives/C1/p1508284197000015",
        },
      ],
      nextPage: 2,
    });
  });

  it("SLACK_SEARCH_MESSAGES reports a bot token's not_allowed_token_type", async () => {
    t.api.answer(() => reply({ ok: false, error: "not_allowed_token_type" }));
    const result = await t.execute("SLACK_SEARCH_MESSAGES", { query: "x" });
    expect(result.error).toMatch(/"not_allowed_token_type" to search\.messages\. .*user token/);
  });
});

describe("SLACK_UPLOAD_FILE", () => {
  it("gets an upload URL, sends the bytes to files.slack.com and completes the upload in a thread", async () => {
    const uploadUrl = `${FILES}/upload/v1/CwABAAAAXgsAAgAAAA`;
    t.api.answer((request) => {
      if (request.url.href === `${API}/files.getUploadURLExternal`)
        return reply({ ok: true, upload_url: uploadUrl, file_id: "F123ABC456" });
      if (request.url.href === uploadUrl)
        return new Response(`OK - ${request.bytes.length}`, { headers: { "content-type": "text/plain" } });
      return reply({ ok: true, files: [{ id: "F123ABC456", title: "Q3 report" }] });
    });
    const key = await t.upload("quarterly numbers", "text/csv", "report.csv");
    const result = await t.execute("SLACK_UPLOAD_FILE", {
      file: key,
      channel: "C1",
      threadTs: "1700000000.000100",
      title: "Q3 report",
      initialComment: "Here it is",
    });
    expect(result.successful, result.error ?? "").toBe(true);
    const [getUrl, bytes, complete] = t.api.sent;
    expect(Object.fromEntries(expectMethod(getUrl, "files.getUploadURLExternal"))).toEqual({ filename: "report.csv", length: "17" });
    expect(bytes!.method).toBe("POST");
    expect(bytes!.url.href).toBe(uploadUrl);
    expect(bytes!.text).toBe("quarterly numbers");
    expect(bytes!.headers.get("content-type")).toBe("text/csv");
    expect(Object.fromEntries(expectMethod(complete, "files.completeUploadExternal"))).toEqual({
      files: JSON.stringify([{ id: "F123ABC456", title: "Q3 report" }]),
      channel_id: "C1",
      thread_ts: "1700000000.000100",
      initial_comment: "Here it is",
    });
    expectAuthorized(t.api.sent);
    expect(result.data).toEqual({ fileId: "F123ABC456", title: "Q3 report", permalink: null, channel: "C1" });
  });

  it("stops when Slack refuses the upload URL, and sends no bytes", async () => {
    t.api.answer(() => reply({ ok: false, error: "invalid_auth" }));
    const key = await t.upload("x", "text/plain", "a.txt");
    const result = await t.execute("SLACK_UPLOAD_FILE", { file: key, channel: "C1" });
    expect(result.error).toMatch(/"invalid_auth" to files\.getUploadURLExternal\. .*reconnect/);
    expect(t.api.sent).toHaveLength(1);
  });

  it("refuses a thread without a channel before calling Slack", async () => {
    t.api.answer(() => reply({ ok: true }));
    const key = await t.upload("x", "text/plain", "a.txt");
    const result = await t.execute("SLACK_UPLOAD_FILE", { file: key, threadTs: "1700000000.000100" });
    expect(result).toMatchObject({ successful: false, code: "invalid_arguments" });
    expect(t.api.sent).toHaveLength(0);
  });
});
