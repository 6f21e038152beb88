/**
 * The curated Outlook tools through POST /execute, against an emulation of https://graph.microsoft.com/v1.0
 * answering with the shapes of the Microsoft Graph v1.0 reference:
 * - message list ({ value, @odata.nextLink }): https://learn.microsoft.com/en-us/graph/api/user-list-messages,
 *   paging: https://learn.microsoft.com/en-us/graph/paging
 * - message: https://learn.microsoft.com/en-us/graph/api/message-get; attachments:
 *   https://learn.microsoft.com/en-us/graph/api/message-list-attachments, https://learn.microsoft.com/en-us/graph/api/attachment-get
 * - sendMail and reply (202, no body): https://learn.microsoft.com/en-us/graph/api/user-sendmail,
 *   https://learn.microsoft.com/en-us/graph/api/message-reply
 * - calendarView and events: https://learn.microsoft.com/en-us/graph/api/user-list-calendarview,
 *   https://learn.microsoft.com/en-us/graph/api/user-post-events
 * - errors ({ error: { code, message, innerError } }): https://learn.microsoft.com/en-us/graph/errors
 */
import { describe, expect, it } from "vitest";
import { outlookTools } from "../../../src/catalog/tools/outlook.js";
import { toBase64, toBase64Url } from "../../../src/util/encoding.js";
import { json, type Route, setupToolkit } from "./support-b.js";

const GRAPH = "https://graph.microsoft.com/v1.0";
const who = (name: string, address: string) => ({ emailAddress: { name, address } });
const message = {
  "@odata.etag": 'W/"abc"',
  id: "AAMkAGI2=",
  subject: "Quarterly report",
  from: who("Ada Lovelace", "ada@contoso.com"),
  toRecipients: [who("Me", "me@contoso.com")],
  receivedDateTime: "2024-05-01T09:00:00Z",
  isRead: false,
  hasAttachments: true,
  bodyPreview: "Please find…",
  webLink: "https://outlook.office365.com/owa/?ItemID=AAMkAGI2",
  conversationId: "conv-1",
};
const summary = {
  id: "AAMkAGI2=",
  subject: "Quarterly report",
  from: { name: "Ada Lovelace", address: "ada@contoso.com" },
  to: [{ name: "Me", address: "me@contoso.com" }],
  receivedDateTime: "2024-05-01T09:00:00Z",
  isRead: false,
  hasAttachments: true,
  preview: "Please find…",
  webLink: "https://outlook.office365.com/owa/?ItemID=AAMkAGI2",
  conversationId: "conv-1",
};
const PDF = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x00, 0xff, 0x10]);
const event = {
  id: "AAMkEvent=",
  subject: "Standup",
  start: { dateTime: "2024-05-02T09:00:00.0000000", timeZone: "Europe/Paris" },
  end: { dateTime: "2024-05-02T09:15:00.0000000", timeZone: "Europe/Paris" },
  isAllDay: false,
  location: { displayName: "Room 1" },
  organizer: who("Ada Lovelace", "ada@contoso.com"),
  attendees: [{ ...who("Me", "me@contoso.com"), type: "required", status: { response: "accepted", time: "x" } }],
  isOnlineMeeting: true,
  onlineMeeting: { joinUrl: "https://teams.microsoft.com/l/meetup-join/1" },
  webLink: "https://outlook.office365.com/owa/?itemid=AAMkEvent",
  bodyPreview: "",
};
const eventOut = {
  id: "AAMkEvent=",
  subject: "Standup",
  start: event.start,
  end: event.end,
  isAllDay: false,
  location: "Room 1",
  organizer: { name: "Ada Lovelace", address: "ada@contoso.com" },
  attendees: [{ name: "Me", address: "me@contoso.com", response: "accepted" }],
  joinUrl: "https://teams.microsoft.com/l/meetup-join/1",
  webLink: "https://outlook.office365.com/owa/?itemid=AAMkEvent",
  preview: "",
};
const graphError = (status: number, code: string, text: string) =>
  json(
    { error: { code, message: text, innerError: { date: "2024-05-01T00:00:00", "request-id": "r1", "client-request-id": "c1" } } },
    status,
  );

const routes: Route[] = [
  {
    method: "GET",
    path: /^\/v1\.0\/me(\/mailFolders\/[^/]+)?\/messages$/,
    answer: (request) =>
      request.query.has("$skiptoken")
        ? json({ value: [message] })
        : json({ "@odata.context": "…", value: [message], "@odata.nextLink": `${GRAPH}/me/messages?%24top=2&%24skiptoken=MSZZVlJ%2bQ` }),
  },
  {
    method: "GET",
    path: /^\/v1\.0\/me\/messages\/(?<id>[^/]+)$/,
    answer: (_, { id }) =>
      id === "gone"
        ? graphError(404, "ErrorItemNotFound", "The specified object was not found in the store.")
        : json({ ...message, ccRecipients: [], body: { contentType: "text", content: "Hello" } }),
  },
  {
    method: "GET",
    path: /^\/v1\.0\/me\/messages\/[^/]+\/attachments$/,
    answer: () =>
      json({
        value: [
          {
            "@odata.type": "#microsoft.graph.fileAttachment",
            id: "att-1",
            name: "report.pdf",
            contentType: "application/pdf",
            size: 8,
            isInline: false,
          },
        ],
      }),
  },
  {
    method: "GET",
    path: /^\/v1\.0\/me\/messages\/[^/]+\/attachments\/(?<id>[^/]+)$/,
    answer: (_, { id }) =>
      json(
        id === "att-1"
          ? {
              "@odata.type": "#microsoft.graph.fileAttachment",
              id,
              name: "report.pdf",
              contentType: "application/pdf",
              size: 8,
              contentBytes: toBase64(PDF),
            }
          : { "@odata.type": "#microsoft.graph.itemAttachment", id, name: "Fwd", contentType: null, size: 100 },
      ),
  },
  { method: "POST", path: /^\/v1\.0\/me\/sendMail$/, answer: () => new Response(null, { status: 202 }) },
  { method: "POST", path: /^\/v1\.0\/me\/messages\/[^/]+\/(reply|replyAll)$/, answer: () => new Response(null, { status: 202 }) },
  {
    method: "GET",
    path: /^\/v1\.0\/me\/calendarView$/,
    answer: (request) =>
      request.query.has("$skip")
        ? json({ value: [] })
        : json({
            value: [event],
            "@odata.nextLink": `${GRAPH}/me/calendarView?startDateTime=2024-05-01T00%3a00%3a00Z&endDateTime=2024-05-08T00%3a00%3a00Z&%24top=1&%24skip=1`,
          }),
  },
  { method: "POST", path: /^\/v1\.0\/me\/events$/, answer: (request) => json({ ...event, subject: (request.body as any).subject }, 201) },
];

const setup = () => setupToolkit({ slug: "outlook", baseUrl: GRAPH, tools: outlookTools, routes });

describe("Outlook tools", () => {
  it("OUTLOOK_LIST_MESSAGES asks for a page newest first and turns @odata.nextLink into a cursor that continues it", async () => {
    const outlook = await setup();
    const first = await outlook.ok("OUTLOOK_LIST_MESSAGES", { folder: "inbox", unreadOnly: true, limit: 2 });
    expect(first.results).toEqual([summary]);
    expect(typeof first.nextCursor).toBe("string");
    const request = outlook.last();
    expect(request.path).toBe("/v1.0/me/mailFolders/inbox/messages");
    expect(Object.fromEntries(request.query)).toEqual({
      $top: "2",
      $select: "id,subject,from,toRecipients,receivedDateTime,isRead,hasAttachments,bodyPreview,webLink,conversationId",
      $filter: "isRead eq false",
      $orderby: "receivedDateTime desc",
    });
    const second = await outlook.ok("OUTLOOK_LIST_MESSAGES", { folder: "inbox", cursor: first.nextCursor });
    expect(second.nextCursor).toBeNull();
    expect(outlook.last().path).toBe("/v1.0/me/mailFolders/inbox/messages");
    expect(Object.fromEntries(outlook.last().query)).toEqual({ $top: "2", $skiptoken: "MSZZVlJ+Q" });
  });

  it("a cursor only ever continues the listing under the base URL, and a broken one says what to do", async () => {
    const outlook = await setup();
    const forged = toBase64Url("$top=1&x=https://evil.example/steal");
    await outlook.ok("OUTLOOK_LIST_MESSAGES", { cursor: forged });
    expect(outlook.received.every((r) => r.path.startsWith("/v1.0/me/messages"))).toBe(true);
    expect(outlook.last().query.get("x")).toBe("https://evil.example/steal");
    const broken = await outlook.execute("OUTLOOK_LIST_MESSAGES", { cursor: "%%%" });
    expect(broken).toMatchObject({ successful: false, code: "invalid_arguments" });
    expect(broken.error).toContain("pass it back unchanged");
  });

  it("OUTLOOK_LIST_MESSAGES with search quotes the terms and leaves out $orderby", async () => {
    const outlook = await setup();
    await outlook.ok("OUTLOOK_LIST_MESSAGES", { search: "from:ada subject:report" });
    expect(outlook.last().path).toBe("/v1.0/me/messages");
    expect(outlook.last().query.get("$search")).toBe('"from:ada subject:report"');
    expect(outlook.last().query.has("$orderby")).toBe(false);
    expect(await outlook.execute("OUTLOOK_LIST_MESSAGES", { search: "x", unreadOnly: true })).toMatchObject({ code: "invalid_arguments" });
  });

  it("OUTLOOK_GET_MESSAGE asks for a text body and lists the attachments", async () => {
    const outlook = await setup();
    const data = await outlook.ok("OUTLOOK_GET_MESSAGE", { messageId: "AAMkAGI2=" });
    expect(data).toEqual({
      ...summary,
      cc: [],
      body: "Hello",
      bodyFormat: "text",
      attachments: [{ id: "att-1", name: "report.pdf", contentType: "application/pdf", size: 8, isInline: false }],
    });
    const [get, attachments] = outlook.received.slice(-2);
    expect(get!.path).toBe("/v1.0/me/messages/AAMkAGI2%3D");
    expect(get!.headers.get("prefer")).toBe('outlook.body-content-type="text"');
    expect(attachments!.path).toBe("/v1.0/me/messages/AAMkAGI2%3D/attachments");
  });

  it("a Graph error is a failed result naming error.code and its message", async () => {
    const outlook = await setup();
    const result = await outlook.execute("OUTLOOK_GET_MESSAGE", { messageId: "gone" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 404 });
    expect(result.error).toBe(
      "Microsoft Graph answered 404: ErrorItemNotFound: The specified object was not found in the store. " +
        "Check the id (list or search to find it), and that the connected account can see the object.",
    );
  });

  it("OUTLOOK_SEND_MAIL attaches staged files as base64 fileAttachments", async () => {
    const outlook = await setup();
    const stagingKey = await outlook.upload(PDF, "application/pdf", "q1.pdf");
    const data = await outlook.ok("OUTLOOK_SEND_MAIL", {
      to: ["ada@contoso.com"],
      cc: ["bob@contoso.com"],
      subject: "Report",
      body: "<p>Attached</p>",
      bodyFormat: "html",
      attachments: [stagingKey],
    });
    expect(data).toEqual({ sent: true });
    expect([outlook.last().method, outlook.last().path]).toEqual(["POST", "/v1.0/me/sendMail"]);
    expect(outlook.last().body).toEqual({
      message: {
        subject: "Report",
        body: { contentType: "HTML", content: "<p>Attached</p>" },
        toRecipients: [{ emailAddress: { address: "ada@contoso.com" } }],
        ccRecipients: [{ emailAddress: { address: "bob@contoso.com" } }],
        attachments: [
          { "@odata.type": "#microsoft.graph.fileAttachment", name: "q1.pdf", contentType: "application/pdf", contentBytes: toBase64(PDF) },
        ],
      },
      saveToSentItems: true,
    });
  });

  it("OUTLOOK_SEND_MAIL refuses attachments over 3 MB before sending", async () => {
    const outlook = await setup();
    const bytes = new Uint8Array(3 * 1024 * 1024 + 1);
    bytes.set(PDF);
    const big = await outlook.upload(bytes, "application/pdf", "big.pdf");
    const sent = outlook.received.length;
    const result = await outlook.execute("OUTLOOK_SEND_MAIL", { to: ["ada@contoso.com"], subject: "x", body: "x", attachments: [big] });
    expect(result).toMatchObject({ successful: false, code: "invalid_arguments" });
    expect(result.error).toContain("Send fewer or smaller files");
    expect(outlook.received.length).toBe(sent);
  });

  it("OUTLOOK_REPLY_TO_MESSAGE posts the comment to reply or replyAll", async () => {
    const outlook = await setup();
    expect(await outlook.ok("OUTLOOK_REPLY_TO_MESSAGE", { messageId: "m1", comment: "Thanks!" })).toEqual({ sent: true });
    expect([outlook.last().path, outlook.last().body]).toEqual(["/v1.0/me/messages/m1/reply", { comment: "Thanks!" }]);
    await outlook.ok("OUTLOOK_REPLY_TO_MESSAGE", { messageId: "m1", comment: "All", replyAll: true });
    expect(outlook.last().path).toBe("/v1.0/me/messages/m1/replyAll");
  });

  it("OUTLOOK_GET_ATTACHMENT stages the file, readable with GET /files/{key}", async () => {
    const outlook = await setup();
    const data = await outlook.ok("OUTLOOK_GET_ATTACHMENT", { messageId: "m1", attachmentId: "att-1" });
    expect(data).toMatchObject({ contentType: "application/pdf", filename: "report.pdf", size: PDF.length });
    const file = await outlook.download(data.stagingKey);
    expect(file.contentType).toBe("application/pdf");
    expect([...file.bytes]).toEqual([...PDF]);
    const item = await outlook.execute("OUTLOOK_GET_ATTACHMENT", { messageId: "m1", attachmentId: "att-2" });
    expect(item).toMatchObject({ successful: false, code: "invalid_arguments" });
    expect(item.error).toContain("read it in Outlook instead");
  });

  it("OUTLOOK_LIST_EVENTS asks calendarView for the window in the time zone and pages with the nextLink", async () => {
    const outlook = await setup();
    const data = await outlook.ok("OUTLOOK_LIST_EVENTS", {
      start: "2024-05-01T00:00:00Z",
      end: "2024-05-08T00:00:00Z",
      timeZone: "Europe/Paris",
      limit: 1,
    });
    expect(data.results).toEqual([eventOut]);
    const request = outlook.last();
    expect(request.path).toBe("/v1.0/me/calendarView");
    expect(request.headers.get("prefer")).toBe('outlook.timezone="Europe/Paris"');
    expect(Object.fromEntries(request.query)).toMatchObject({
      startDateTime: "2024-05-01T00:00:00Z",
      endDateTime: "2024-05-08T00:00:00Z",
      $top: "1",
      $orderby: "start/dateTime",
    });
    const next = await outlook.ok("OUTLOOK_LIST_EVENTS", {
      start: "2024-05-01T00:00:00Z",
      end: "2024-05-08T00:00:00Z",
      cursor: data.nextCursor,
    });
    expect(next).toEqual({ results: [], nextCursor: null });
    expect(Object.fromEntries(outlook.last().query)).toEqual({
      startDateTime: "2024-05-01T00:00:00Z",
      endDateTime: "2024-05-08T00:00:00Z",
      $top: "1",
      $skip: "1",
    });
  });

  it("OUTLOOK_CREATE_EVENT posts local times with their time zone and required attendees", async () => {
    const outlook = await setup();
    const data = await outlook.ok("OUTLOOK_CREATE_EVENT", {
      subject: "Review",
      start: "2024-05-03T14:00:00",
      end: "2024-05-03T15:00:00",
      timeZone: "Europe/Paris",
      location: "Room 2",
      attendees: ["ada@contoso.com"],
      isOnlineMeeting: true,
    });
    expect(data.subject).toBe("Review");
    expect(outlook.last().body).toEqual({
      subject: "Review",
      start: { dateTime: "2024-05-03T14:00:00", timeZone: "Europe/Paris" },
      end: { dateTime: "2024-05-03T15:00:00", timeZone: "Europe/Paris" },
      location: { displayName: "Room 2" },
      attendees: [{ emailAddress: { address: "ada@contoso.com" }, type: "required" }],
      isOnlineMeeting: true,
    });
  });
});
