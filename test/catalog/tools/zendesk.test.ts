/**
 * The curated Zendesk tools through POST /execute, against an emulation of https://acme.zendesk.com/api/v2
 * answering as Zendesk's ticketing API does (https://developer.zendesk.com/api-reference/ticketing/tickets/tickets/):
 * `{ tickets, meta: { has_more, after_cursor } }` for cursor pages, `{ results, count, next_page }` for search,
 * `{ upload: { token } }` for an attachment, and `{ error, description, details }` for failures.
 */
import { describe, expect, it } from "vitest";
import { zendeskTools } from "../../../src/catalog/tools/zendesk.js";
import { json, type Received, type Route, setupToolkit } from "./support-b.js";

const TICKET = {
  id: 35436,
  url: "https://acme.zendesk.com/api/v2/tickets/35436.json",
  subject: "Help, my printer is on fire!",
  description: "The fire is very colorful.",
  status: "open",
  priority: "high",
  type: "incident",
  requester_id: 20978392,
  assignee_id: 235323,
  group_id: 98738,
  organization_id: 509974,
  tags: ["enterprise", "other_tag"],
  created_at: "2009-07-20T22:55:29Z",
  updated_at: "2011-05-05T10:38:52Z",
  via: { channel: "web" },
};
const SUMMARY = {
  id: 35436,
  subject: "Help, my printer is on fire!",
  status: "open",
  priority: "high",
  type: "incident",
  requesterId: 20978392,
  assigneeId: 235323,
  groupId: 98738,
  tags: ["enterprise", "other_tag"],
  createdAt: "2009-07-20T22:55:29Z",
  updatedAt: "2011-05-05T10:38:52Z",
};

const routes: Route[] = [
  {
    method: "GET",
    path: /^\/api\/v2\/tickets\.json$/,
    answer: () =>
      json({
        tickets: [TICKET],
        meta: { has_more: true, after_cursor: "xxx", before_cursor: "yyy" },
        links: { next: "https://acme.zendesk.com/api/v2/tickets.json?page[size]=1&page[after]=xxx" },
      }),
  },
  {
    method: "GET",
    path: /^\/api\/v2\/search\.json$/,
    answer: (request) =>
      request.query.get("query")?.endsWith("forbidden")
        ? json({ error: { title: "Forbidden", message: "You do not have access to this page. Please contact the account owner." } }, 403)
        : json({
            results: [{ ...TICKET, result_type: "ticket" }],
            count: 1234,
            next_page: request.query.get("page") === "1" ? "https://acme.zendesk.com/api/v2/search.json?page=2" : null,
            previous_page: null,
          }),
  },
  {
    method: "GET",
    path: /^\/api\/v2\/tickets\/(?<id>\d+)\.json$/,
    answer: (_request, { id }) =>
      id === "404" ? json({ error: "RecordNotFound", description: "Not found" }, 404) : json({ ticket: TICKET }),
  },
  {
    method: "GET",
    path: /^\/api\/v2\/tickets\/35436\/comments\.json$/,
    answer: () =>
      json({
        comments: [
          {
            id: 1274,
            type: "Comment",
            author_id: 123123,
            body: "Thanks for your help!",
            html_body: "<p>Thanks for your help!</p>",
            plain_body: "Thanks for your help!",
            public: true,
            attachments: [
              {
                id: 498483,
                file_name: "crash.log",
                content_url: "https://acme.zendesk.com/attachments/crash.log",
                content_type: "text/plain",
                size: 2532,
              },
            ],
            created_at: "2009-07-20T22:55:29Z",
          },
        ],
        meta: { has_more: false, after_cursor: null, before_cursor: null },
      }),
  },
  {
    method: "POST",
    path: /^\/api\/v2\/uploads\.json$/,
    answer: (request) => json({ upload: { token: `token-${request.query.get("filename")}`, attachment: { id: 1 } } }, 201),
  },
  {
    method: "POST",
    path: /^\/api\/v2\/tickets\.json$/,
    answer: (request: Received) => {
      const ticket = (request.body as any).ticket;
      if (!ticket.subject.trim()) return json({}, 422);
      if (ticket.priority === "urgent")
        return json(
          {
            error: "RecordInvalid",
            description: "Record validation errors",
            details: { priority: [{ description: "Priority: urgent is not allowed for this requester", error: "InvalidValue" }] },
          },
          422,
        );
      return json({ ticket: { ...TICKET, subject: ticket.subject }, audit: { events: [] } }, 201);
    },
  },
  {
    method: "PUT",
    path: /^\/api\/v2\/tickets\/35436\.json$/,
    answer: (request) => json({ ticket: { ...TICKET, status: (request.body as any).ticket.status ?? "open" }, audit: { events: [] } }),
  },
];

const setup = () =>
  setupToolkit({
    slug: "zendesk",
    baseUrl: "https://{subdomain}.zendesk.com/api/v2",
    tools: zendeskTools,
    params: { subdomain: "acme" },
    routes,
  });

describe("Zendesk tools", () => {
  it("ZENDESK_LIST_TICKETS asks for a cursor page and returns after_cursor while has_more", async () => {
    const zendesk = await setup();
    expect(await zendesk.ok("ZENDESK_LIST_TICKETS", { limit: 1, cursor: "abc" })).toEqual({ results: [SUMMARY], nextCursor: "xxx" });
    const request = zendesk.last();
    expect([request.method, request.path]).toEqual(["GET", "/api/v2/tickets.json"]);
    expect(Object.fromEntries(request.query)).toEqual({ "page[size]": "1", "page[after]": "abc", sort: "-updated_at" });
  });

  it("ZENDESK_SEARCH_TICKETS adds type:ticket and pages by page number", async () => {
    const zendesk = await setup();
    expect(await zendesk.ok("ZENDESK_SEARCH_TICKETS", { query: "status:open assignee:me" })).toEqual({
      results: [SUMMARY],
      count: 1234,
      nextCursor: "2",
    });
    expect(Object.fromEntries(zendesk.last().query)).toEqual({
      query: "type:ticket status:open assignee:me",
      page: "1",
      per_page: "25",
      sort_by: "updated_at",
      sort_order: "desc",
    });
    expect(await zendesk.ok("ZENDESK_SEARCH_TICKETS", { query: "refund", cursor: "2" })).toMatchObject({ nextCursor: null });
    expect(zendesk.last().query.get("page")).toBe("2");
  });

  it("ZENDESK_GET_TICKET reads one ticket with its description", async () => {
    const zendesk = await setup();
    expect(await zendesk.ok("ZENDESK_GET_TICKET", { ticketId: 35436 })).toEqual({ ...SUMMARY, description: "The fire is very colorful." });
    expect(zendesk.last().path).toBe("/api/v2/tickets/35436.json");
  });

  it("a 404 is a failed result quoting Zendesk's error and description", async () => {
    const zendesk = await setup();
    const result = await zendesk.execute("ZENDESK_GET_TICKET", { ticketId: 404 });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 404 });
    expect(result.error).toMatch(/^Zendesk answered 404: RecordNotFound: Not found\. Check the id/);
  });

  it("ZENDESK_LIST_TICKET_COMMENTS trims comments and has no cursor on the last page", async () => {
    const zendesk = await setup();
    expect(await zendesk.ok("ZENDESK_LIST_TICKET_COMMENTS", { ticketId: 35436 })).toEqual({
      results: [
        {
          id: 1274,
          authorId: 123123,
          body: "Thanks for your help!",
          public: true,
          createdAt: "2009-07-20T22:55:29Z",
          attachments: [{ id: 498483, fileName: "crash.log", contentType: "text/plain", size: 2532 }],
        },
      ],
      nextCursor: null,
    });
    expect(zendesk.last().query.get("page[size]")).toBe("50");
  });

  it("ZENDESK_CREATE_TICKET uploads a staged file and sends its token in the first comment", async () => {
    const zendesk = await setup();
    const key = await zendesk.upload("stack trace", "text/plain", "crash.log");
    const data = await zendesk.ok("ZENDESK_CREATE_TICKET", {
      subject: "Printer fire",
      body: "It burns",
      requesterEmail: "ada@example.com",
      priority: "high",
      tags: ["fire"],
      files: [key],
    });
    expect(data).toEqual({ ...SUMMARY, subject: "Printer fire" });
    const [upload, create] = zendesk.received;
    expect([upload!.method, upload!.path, upload!.query.get("filename")]).toEqual(["POST", "/api/v2/uploads.json", "crash.log"]);
    expect(upload!.headers.get("content-type")).toBe("text/plain");
    expect(upload!.body).toBe("stack trace");
    expect(create!.body).toEqual({
      ticket: {
        subject: "Printer fire",
        comment: { body: "It burns", uploads: ["token-crash.log"] },
        requester: { email: "ada@example.com" },
        priority: "high",
        tags: ["fire"],
      },
    });
  });

  it("a 422 names the invalid field from details", async () => {
    const zendesk = await setup();
    const result = await zendesk.execute("ZENDESK_CREATE_TICKET", { subject: "x", body: "y", priority: "urgent" });
    expect(result).toMatchObject({ successful: false, upstreamStatus: 422 });
    expect(result.error).toContain(
      "Zendesk answered 422: RecordInvalid: Record validation errors (priority: Priority: urgent is not allowed for this requester).",
    );
  });

  it("ZENDESK_UPDATE_TICKET sends only the fields given, an internal note, and refuses an empty change", async () => {
    const zendesk = await setup();
    expect(await zendesk.ok("ZENDESK_UPDATE_TICKET", { ticketId: 35436, status: "solved", comment: "Fixed", public: false })).toEqual({
      ...SUMMARY,
      status: "solved",
    });
    expect(zendesk.last().method).toBe("PUT");
    expect(zendesk.last().body).toEqual({ ticket: { status: "solved", comment: { body: "Fixed", public: false } } });
    const sent = zendesk.received.length;
    expect(await zendesk.execute("ZENDESK_UPDATE_TICKET", { ticketId: 35436 })).toMatchObject({
      successful: false,
      code: "invalid_arguments",
    });
    expect(zendesk.received.length).toBe(sent);
  });

  it("a 403 in Zendesk's { error: { title, message } } form is quoted", async () => {
    const zendesk = await setup();
    const result = await zendesk.execute("ZENDESK_SEARCH_TICKETS", { query: "forbidden" });
    expect(result).toMatchObject({ successful: false, upstreamStatus: 403 });
    expect(result.error).toMatch(
      /^Zendesk answered 403: Forbidden: You do not have access to this page\. Please contact the account owner\. The Zendesk connection lacks/,
    );
  });
});
