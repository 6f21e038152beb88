/**
 * Gmail's curated tools over an emulation of the Gmail API. Answer shapes follow Google's reference:
 * https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages/list
 * https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages (Message, MessagePart)
 * https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages/send
 * https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.drafts/create
 * https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages.attachments/get
 * https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.messages/modify
 * https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.labels/list
 * https://cloud.google.com/apis/design/errors (the error object: code, message, status)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gmailTools } from "../../../src/catalog/tools/gmail.js";
import { expectError } from "../../support/harness.js";
import { expectAuthorized, reply, toolkitHarness } from "./support.js";

const API = "https://gmail.googleapis.com";
const USER = `${API}/gmail/v1/users/me`;
let t: Awaited<ReturnType<typeof toolkitHarness>>;

beforeAll(async () => {
  t = await toolkitHarness({ slug: "gmail", name: "Gmail", baseUrl: API, tools: gmailTools });
});
afterAll(() => t.close());

const b64url = (value: string | Uint8Array) => Buffer.from(value).toString("base64url");
const fromB64 = (value: string) => Buffer.from(value, "base64").toString("utf8");

/** The RFC 5322 text of the `raw` a tool sent. */
const rawOf = (raw: string) => Buffer.from(raw, "base64url").toString("latin1");

describe("GMAIL_SEARCH_MESSAGES", () => {
  it("lists with the query and page token, fetches each message's headers, and returns the next token", async () => {
    t.api.answer((request) => {
      if (request.url.pathname.endsWith("/messages"))
        return reply({
          messages: [
            { id: "m1", threadId: "t1" },
            { id: "m2", threadId: "t2" },
          ],
          nextPageToken: "page-2-token",
          resultSizeEstimate: 57,
        });
      const id = request.url.pathname.split("/").at(-1)!;
      return reply({
        id,
        threadId: `t${id.slice(1)}`,
        labelIds: ["INBOX", "UNREAD"],
        snippet: `Snippet of ${id}`,
        payload: {
          mimeType: "multipart/alternative",
          headers: [
            { name: "From", value: "Alice <alice@example.com>" },
            { name: "To", value: "me@example.com" },
            { name: "Subject", value: `Hello ${id}` },
            { name: "Date", value: "Mon, 1 Jan 2024 10:00:00 +0000" },
          ],
        },
      });
    });
    const result = await t.execute("GMAIL_SEARCH_MESSAGES", {
      query: "from:alice is:unread",
      labelIds: ["INBOX", "UNREAD"],
      maxResults: 2,
      pageToken: "page-1-token",
    });
    expect(result.successful, result.error ?? "").toBe(true);
    const [list, ...gets] = t.api.sent;
    expect(list!.url.origin + list!.url.pathname).toBe(`${USER}/messages`);
    expect([...list!.url.searchParams]).toEqual([
      ["q", "from:alice is:unread"],
      ["labelIds", "INBOX"],
      ["labelIds", "UNREAD"],
      ["maxResults", "2"],
      ["pageToken", "page-1-token"],
    ]);
    expect(gets.map((g) => g.url.pathname)).toEqual(["/gmail/v1/users/me/messages/m1", "/gmail/v1/users/me/messages/m2"]);
    expect(gets[0]!.url.searchParams.get("format")).toBe("metadata");
    expect(gets[0]!.url.searchParams.getAll("metadataHeaders")).toEqual(["From", "To", "Subject", "Date"]);
    expectAuthorized(t.api.sent);
    expect(result.data.nextPageToken).toBe("page-2-token");
    expect(result.data.resultSizeEstimate).toBe(57);
    expect(result.data.messages[1]).toEqual({
      id: "m2",
      threadId: "t2",
      labelIds: ["INBOX", "UNREAD"],
      from: "Alice <alice@example.com>",
      to: "me@example.com",
      subject: "Hello m2",
      date: "Mon, 1 Jan 2024 10:00:00 +0000",
      snippet: "Snippet of m2",
    });
  });

  it("makes one request without details, and reports no next page on the last", async () => {
    t.api.answer(() => reply({ messages: [{ id: "m9", threadId: "t9" }], resultSizeEstimate: 1 }));
    const result = await t.execute("GMAIL_SEARCH_MESSAGES", { includeDetails: false });
    expect(t.api.sent).toHaveLength(1);
    expect(result.data).toEqual({ messages: [{ id: "m9", threadId: "t9" }], resultSizeEstimate: 1, nextPageToken: null });
  });

  it("returns an empty list when nothing matches (Gmail leaves `messages` out)", async () => {
    t.api.answer(() => reply({ resultSizeEstimate: 0 }));
    const result = await t.execute("GMAIL_SEARCH_MESSAGES", { query: "nothing" });
    expect(result.data).toEqual({ messages: [], resultSizeEstimate: 0, nextPageToken: null });
  });

  it("reports Google's 403 error object and what to do", async () => {
    t.api.answer(() =>
      reply(
        {
          error: {
            code: 403,
            message: "Request had insufficient authentication scopes.",
            errors: [{ message: "Insufficient Permission", domain: "global", reason: "insufficientPermissions" }],
            status: "PERMISSION_DENIED",
          },
        },
        403,
      ),
    );
    const result = await t.execute("GMAIL_SEARCH_MESSAGES", { query: "x" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 403, retryable: false });
    expect(result.error).toMatch(
      /^Gmail answered 403: Request had insufficient authentication scopes\. The Gmail connection lacks a permission or scope/,
    );
  });
});

describe("GMAIL_GET_MESSAGE", () => {
  it("decodes headers, the text body in its charset and lists attachments", async () => {
    const latin1 = Uint8Array.from([...Buffer.from("Caf"), 0xe9, ...Buffer.from(" ouvert\r\n")]);
    t.api.answer(() =>
      reply({
        id: "m1",
        threadId: "t1",
        labelIds: ["INBOX"],
        snippet: "Café ouvert",
        payload: {
          partId: "",
          mimeType: "multipart/mixed",
          filename: "",
          headers: [
            { name: "From", value: "=?UTF-8?B?Sm9zw6k=?= <jose@example.com>" },
            { name: "To", value: "me@example.com" },
            { name: "Subject", value: "=?ISO-8859-1?Q?Caf=E9_ouvert?=" },
            { name: "Date", value: "Tue, 2 Jan 2024 08:00:00 +0100" },
            { name: "Message-ID", value: "<CAB123@mail.gmail.com>" },
          ],
          body: { size: 0 },
          parts: [
            {
              partId: "0",
              mimeType: "multipart/alternative",
              filename: "",
              headers: [],
              body: { size: 0 },
              parts: [
                {
                  partId: "0.0",
                  mimeType: "text/plain",
                  filename: "",
                  headers: [{ name: "Content-Type", value: "text/plain; charset=ISO-8859-1" }],
                  body: { size: 13, data: b64url(latin1) },
                },
                {
                  partId: "0.1",
                  mimeType: "text/html",
                  filename: "",
                  headers: [{ name: "Content-Type", value: "text/html; charset=UTF-8" }],
                  body: { size: 20, data: b64url("<p>Café ouvert</p>") },
                },
              ],
            },
            {
              partId: "1",
              mimeType: "application/pdf",
              filename: "menu.pdf",
              headers: [],
              body: { attachmentId: "ANGjdJ8abc", size: 52341 },
            },
          ],
        },
      }),
    );
    const result = await t.execute("GMAIL_GET_MESSAGE", { messageId: "m1" });
    expect(t.api.sent[0]!.url.href).toBe(`${USER}/messages/m1?format=full`);
    expect(result.data).toEqual({
      id: "m1",
      threadId: "t1",
      labelIds: ["INBOX"],
      from: "José <jose@example.com>",
      to: "me@example.com",
      cc: null,
      subject: "Café ouvert",
      date: "Tue, 2 Jan 2024 08:00:00 +0100",
      messageIdHeader: "<CAB123@mail.gmail.com>",
      snippet: "Café ouvert",
      bodyFormat: "text",
      body: "Café ouvert\r\n",
      bodyTruncated: false,
      attachments: [{ partId: "1", filename: "menu.pdf", mimeType: "application/pdf", size: 52341, attachmentId: "ANGjdJ8abc" }],
    });
  });

  it("turns an HTML-only body into text, and cuts a long one", async () => {
    const html = `<html><head><style>p{}</style></head><body><p>Hello &amp; welcome</p><br>${"x".repeat(300)}</body></html>`;
    t.api.answer(() =>
      reply({ id: "m2", threadId: "t2", payload: { mimeType: "text/html", headers: [], body: { size: html.length, data: b64url(html) } } }),
    );
    const result = await t.execute("GMAIL_GET_MESSAGE", { messageId: "m2", maxBodyChars: 100 });
    expect(result.data.bodyFormat).toBe("html-as-text");
    expect(result.data.body).toBe(`Hello & welcome\n\n${"x".repeat(83)}`);
    expect(result.data.bodyTruncated).toBe(true);
  });

  it("refuses an id that is not a Gmail id before sending anything", async () => {
    t.api.answer(() => reply({}));
    const res = await t.executeRaw("GMAIL_GET_MESSAGE", { messageId: "../labels" });
    expectError(res, 400, "invalid_request", /arguments\.messageId/);
    expect(t.api.sent).toHaveLength(0);
  });
});

describe("sending", () => {
  it("GMAIL_SEND_EMAIL builds an RFC 5322 message with encoded headers and sends it as base64url raw", async () => {
    t.api.answer(() => reply({ id: "s1", threadId: "t1", labelIds: ["SENT"] }));
    const result = await t.execute("GMAIL_SEND_EMAIL", {
      to: ["Bob <bob@example.com>", "carol@example.com"],
      cc: ["Zoë Δ <zoe@example.com>"],
      subject: "Re: Café plans ✓",
      body: "See you at 5.",
      threadId: "t1",
      inReplyTo: "<CAB123@mail.gmail.com>",
    });
    expect(result.data).toEqual({ id: "s1", threadId: "t1", labelIds: ["SENT"] });
    const [request] = t.api.sent;
    expect(request!.method).toBe("POST");
    expect(request!.url.href).toBe(`${USER}/messages/send`);
    expectAuthorized(t.api.sent);
    const { raw, threadId } = request!.json();
    expect(threadId).toBe("t1");
    expect(raw).toMatch(/^[A-Za-z0-9_-]+$/); // base64url, no padding
    const text = rawOf(raw);
    const [head, body] = text.split("\r\n\r\n");
    expect(head).toContain('To: "Bob" <bob@example.com>, carol@example.com');
    expect(head).toContain("In-Reply-To: <CAB123@mail.gmail.com>\r\nReferences: <CAB123@mail.gmail.com>");
    expect(head).toContain('Content-Type: text/plain; charset="UTF-8"');
    const subject = /Subject: ((?:.|\r\n )+)/.exec(head!)![1]!;
    const words = [...subject.matchAll(/=\?UTF-8\?B\?([^?]+)\?=/g)].map((m) => Buffer.from(m[1]!, "base64"));
    expect(Buffer.concat(words).toString("utf8")).toBe("Re: Café plans ✓");
    const cc = /Cc: =\?UTF-8\?B\?([^?]+)\?= <zoe@example.com>/.exec(head!);
    expect(fromB64(cc![1]!)).toBe("Zoë Δ");
    expect(fromB64(body!)).toBe("See you at 5.");
  });

  it("GMAIL_SEND_EMAIL attaches staged files in a multipart/mixed message, with text and HTML as alternatives", async () => {
    t.api.answer(() => reply({ id: "s2", threadId: "t2", labelIds: ["SENT"] }));
    const pdf = Uint8Array.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0x00, 0xff, 0x10]);
    const key = await t.upload(pdf, "application/pdf", "Relevé.pdf");
    const result = await t.execute("GMAIL_SEND_EMAIL", {
      to: ["bob@example.com"],
      subject: "Statement",
      body: "Attached.",
      htmlBody: "<b>Attached.</b>",
      attachments: [key],
    });
    expect(result.successful, result.error ?? "").toBe(true);
    const text = rawOf(t.api.sent[0]!.json().raw);
    const mixed = /Content-Type: multipart\/mixed; boundary="([^"]+)"/.exec(text)![1]!;
    const parts = text.split(`--${mixed}`).slice(1, -1);
    expect(text.trimEnd().endsWith(`--${mixed}--`)).toBe(true);
    expect(parts).toHaveLength(2);
    expect(parts[0]).toMatch(/Content-Type: multipart\/alternative; boundary="[^"]+"/);
    expect(parts[0]).toContain('Content-Type: text/plain; charset="UTF-8"');
    expect(parts[0]).toContain('Content-Type: text/html; charset="UTF-8"');
    expect(parts[1]).toContain("Content-Type: application/pdf\r\n");
    expect(parts[1]).toContain("Content-Disposition: attachment; filename*=UTF-8''Relev%C3%A9.pdf");
    const attached = parts[1]!.split("\r\n\r\n")[1]!.replace(/\r\n/g, "");
    expect(Uint8Array.from(Buffer.from(attached, "base64"))).toEqual(pdf);
  });

  it("refuses a header with a line break, and sends nothing", async () => {
    t.api.answer(() => reply({}));
    const result = await t.execute("GMAIL_SEND_EMAIL", { to: ["bob@example.com"], subject: "Hi\r\nBcc: everyone@example.com", body: "x" });
    expect(result).toMatchObject({ successful: false, code: "invalid_arguments" });
    expect(result.error).toMatch(/subject must not contain line breaks/);
    const bad = await t.execute("GMAIL_SEND_EMAIL", { to: ["not an address"], subject: "Hi", body: "x" });
    expect(bad.error).toMatch(/not an email address/);
    const none = await t.execute("GMAIL_SEND_EMAIL", { subject: "Hi", body: "x" });
    expect(none.error).toMatch(/at least one recipient/);
    expect(t.api.sent).toHaveLength(0);
  });

  it("GMAIL_CREATE_DRAFT saves the message as a draft", async () => {
    t.api.answer(() => reply({ id: "r-123", message: { id: "m5", threadId: "t5", labelIds: ["DRAFT"] } }));
    const result = await t.execute("GMAIL_CREATE_DRAFT", { to: ["bob@example.com"], subject: "Later", body: "Draft text" });
    const [request] = t.api.sent;
    expect(request!.method).toBe("POST");
    expect(request!.url.href).toBe(`${USER}/drafts`);
    const { message } = request!.json();
    expect(rawOf(message.raw)).toContain("Subject: Later");
    expect(result.data).toEqual({ draftId: "r-123", messageId: "m5", threadId: "t5" });
  });
});

describe("attachments and labels", () => {
  it("GMAIL_GET_ATTACHMENT stages the decoded bytes", async () => {
    const bytes = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0xfb, 0xff, 0x00, 0x3e]);
    t.api.answer(() => reply({ size: bytes.length, data: b64url(bytes) }));
    const result = await t.execute("GMAIL_GET_ATTACHMENT", {
      messageId: "m1",
      attachmentId: "ANGjdJ8abc",
      filename: "chart.png",
      mimeType: "image/png",
    });
    expect(t.api.sent[0]!.url.href).toBe(`${USER}/messages/m1/attachments/ANGjdJ8abc`);
    expect(result.data.file).toMatchObject({ contentType: "image/png", filename: "chart.png", size: bytes.length });
    const file = await t.download(result.data.file.stagingKey);
    expect(file.bytes).toEqual(bytes);
  });

  it("GMAIL_MODIFY_LABELS adds and removes labels", async () => {
    t.api.answer(() => reply({ id: "m1", threadId: "t1", labelIds: ["STARRED", "Label_12"] }));
    const result = await t.execute("GMAIL_MODIFY_LABELS", {
      messageId: "m1",
      addLabelIds: ["STARRED", "Label_12"],
      removeLabelIds: ["INBOX", "UNREAD"],
    });
    const [request] = t.api.sent;
    expect(request!.method).toBe("POST");
    expect(request!.url.href).toBe(`${USER}/messages/m1/modify`);
    expect(request!.json()).toEqual({ addLabelIds: ["STARRED", "Label_12"], removeLabelIds: ["INBOX", "UNREAD"] });
    expect(result.data.labelIds).toEqual(["STARRED", "Label_12"]);
  });

  it("GMAIL_LIST_LABELS lists ids and names", async () => {
    t.api.answer(() =>
      reply({
        labels: [
          { id: "INBOX", name: "INBOX", type: "system" },
          { id: "Label_12", name: "Receipts", type: "user" },
        ],
      }),
    );
    const result = await t.execute("GMAIL_LIST_LABELS", {});
    expect(t.api.sent[0]!.url.href).toBe(`${USER}/labels`);
    expect(result.data.labels[1]).toEqual({ id: "Label_12", name: "Receipts", type: "user" });
  });
});
