/**
 * Google Calendar's curated tools over an emulation of the Calendar API v3. Answer shapes follow
 * Google's reference:
 * https://developers.google.com/workspace/calendar/api/v3/reference/calendarList/list
 * https://developers.google.com/workspace/calendar/api/v3/reference/events/list
 * https://developers.google.com/workspace/calendar/api/v3/reference/events (the Event resource)
 * https://developers.google.com/workspace/calendar/api/v3/reference/events/insert
 * https://developers.google.com/workspace/calendar/api/v3/reference/events/patch
 * https://developers.google.com/workspace/calendar/api/v3/reference/events/delete
 * https://developers.google.com/workspace/calendar/api/guides/errors (403, 410 error objects)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { googleCalendarTools } from "../../../src/catalog/tools/google-calendar.js";
import { expectError } from "../../support/harness.js";
import { expectAuthorized, reply, toolkitHarness } from "./support.js";

const API = "https://www.googleapis.com/calendar/v3";
let t: Awaited<ReturnType<typeof toolkitHarness>>;

beforeAll(async () => {
  t = await toolkitHarness({ slug: "google-calendar", name: "Google Calendar", baseUrl: API, tools: googleCalendarTools });
});
afterAll(() => t.close());

const event = (id: string, extra: Record<string, unknown> = {}) => ({
  kind: "calendar#event",
  etag: '"3181161784712000"',
  id,
  status: "confirmed",
  htmlLink: `https://www.google.com/calendar/event?eid=${id}`,
  created: "2024-05-01T10:00:00.000Z",
  updated: "2024-05-01T10:00:00.000Z",
  summary: "Planning",
  organizer: { email: "me@example.com", self: true },
  start: { dateTime: "2024-06-03T09:00:00+02:00", timeZone: "Europe/Paris" },
  end: { dateTime: "2024-06-03T10:00:00+02:00", timeZone: "Europe/Paris" },
  attendees: [
    { email: "me@example.com", organizer: true, self: true, responseStatus: "accepted" },
    { email: "bob@example.com", responseStatus: "needsAction" },
  ],
  ...extra,
});

describe("reading", () => {
  it("GOOGLECALENDAR_LIST_CALENDARS lists with the page token", async () => {
    t.api.answer(() =>
      reply({
        kind: "calendar#calendarList",
        nextPageToken: "cal-page-2",
        items: [
          {
            kind: "calendar#calendarListEntry",
            id: "me@example.com",
            summary: "Me",
            timeZone: "Europe/Paris",
            accessRole: "owner",
            primary: true,
          },
          { kind: "calendar#calendarListEntry", id: "team@group.calendar.google.com", summary: "Team", accessRole: "writer" },
        ],
      }),
    );
    const result = await t.execute("GOOGLECALENDAR_LIST_CALENDARS", { minAccessRole: "writer", pageToken: "cal-page-1" });
    const url = t.api.sent[0]!.url;
    expect(url.origin + url.pathname).toBe(`${API}/users/me/calendarList`);
    expect(Object.fromEntries(url.searchParams)).toEqual({ minAccessRole: "writer", maxResults: "100", pageToken: "cal-page-1" });
    expectAuthorized(t.api.sent);
    expect(result.data).toEqual({
      calendars: [
        { id: "me@example.com", name: "Me", description: null, timeZone: "Europe/Paris", accessRole: "owner", primary: true },
        { id: "team@group.calendar.google.com", name: "Team", description: null, timeZone: null, accessRole: "writer", primary: false },
      ],
      nextPageToken: "cal-page-2",
    });
  });

  it("GOOGLECALENDAR_LIST_EVENTS expands recurring events in a time range and returns the next page token", async () => {
    t.api.answer(() =>
      reply({
        kind: "calendar#events",
        timeZone: "Europe/Paris",
        nextPageToken: "ev-page-2",
        items: [event("e1"), event("e2", { start: { date: "2024-06-04" }, end: { date: "2024-06-05" }, attendees: undefined })],
      }),
    );
    const result = await t.execute("GOOGLECALENDAR_LIST_EVENTS", {
      calendarId: "team@group.calendar.google.com",
      timeMin: "2024-06-03T00:00:00Z",
      timeMax: "2024-06-10T00:00:00Z",
      maxResults: 2,
    });
    const url = t.api.sent[0]!.url;
    expect(url.pathname).toBe("/calendar/v3/calendars/team%40group.calendar.google.com/events");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      timeMin: "2024-06-03T00:00:00Z",
      timeMax: "2024-06-10T00:00:00Z",
      singleEvents: "true",
      orderBy: "startTime",
      maxResults: "2",
    });
    expect(result.data.nextPageToken).toBe("ev-page-2");
    expect(result.data.timeZone).toBe("Europe/Paris");
    expect(result.data.events[0]).toMatchObject({
      id: "e1",
      summary: "Planning",
      allDay: false,
      organizer: "me@example.com",
      attendees: [
        { email: "me@example.com", name: null, responseStatus: "accepted", optional: false, organizer: true },
        { email: "bob@example.com", name: null, responseStatus: "needsAction", optional: false, organizer: false },
      ],
    });
    expect(result.data.events[1]).toMatchObject({ id: "e2", allDay: true, start: { date: "2024-06-04" }, attendees: [] });

    t.api.answer(() => reply({ kind: "calendar#events", items: [] }));
    const last = await t.execute("GOOGLECALENDAR_LIST_EVENTS", { pageToken: "ev-page-2" });
    expect(t.api.sent[0]!.url.pathname).toBe("/calendar/v3/calendars/primary/events");
    expect(t.api.sent[0]!.url.searchParams.get("pageToken")).toBe("ev-page-2");
    expect(last.data).toEqual({ events: [], timeZone: null, nextPageToken: null });
  });

  it("GOOGLECALENDAR_GET_EVENT gets one event with its Meet link", async () => {
    t.api.answer(() =>
      reply(event("e1", { hangoutLink: "https://meet.google.com/abc-defg-hij", recurrence: ["RRULE:FREQ=WEEKLY;BYDAY=MO"] })),
    );
    const result = await t.execute("GOOGLECALENDAR_GET_EVENT", { eventId: "e1" });
    expect(t.api.sent[0]!.url.href).toBe(`${API}/calendars/primary/events/e1`);
    expect(result.data).toMatchObject({
      id: "e1",
      meetLink: "https://meet.google.com/abc-defg-hij",
      recurrence: ["RRULE:FREQ=WEEKLY;BYDAY=MO"],
    });
  });

  it("refuses a malformed time before sending anything", async () => {
    t.api.answer(() => reply({}));
    expectError(
      await t.executeRaw("GOOGLECALENDAR_LIST_EVENTS", { timeMin: "next tuesday" }),
      400,
      "invalid_request",
      /arguments\.timeMin/,
    );
    expect(t.api.sent).toHaveLength(0);
  });
});

describe("writing", () => {
  it("GOOGLECALENDAR_CREATE_EVENT sends the event with guests and a Meet request", async () => {
    t.api.answer(() =>
      reply(event("new1", { conferenceData: { entryPoints: [{ entryPointType: "video", uri: "https://meet.google.com/xyz" }] } })),
    );
    const result = await t.execute("GOOGLECALENDAR_CREATE_EVENT", {
      summary: "Planning",
      start: "2024-06-03T09:00:00",
      end: "2024-06-03T10:00:00",
      timeZone: "Europe/Paris",
      attendees: ["bob@example.com"],
      recurrence: ["RRULE:FREQ=WEEKLY;COUNT=4"],
      addMeet: true,
    });
    const [request] = t.api.sent;
    expect(request!.method).toBe("POST");
    expect(request!.url.pathname).toBe("/calendar/v3/calendars/primary/events");
    expect(Object.fromEntries(request!.url.searchParams)).toEqual({ sendUpdates: "all", conferenceDataVersion: "1" });
    const body = request!.json();
    expect(body).toEqual({
      summary: "Planning",
      start: { dateTime: "2024-06-03T09:00:00", timeZone: "Europe/Paris" },
      end: { dateTime: "2024-06-03T10:00:00", timeZone: "Europe/Paris" },
      attendees: [{ email: "bob@example.com" }],
      recurrence: ["RRULE:FREQ=WEEKLY;COUNT=4"],
      conferenceData: { createRequest: { requestId: expect.any(String), conferenceSolutionKey: { type: "hangoutsMeet" } } },
    });
    expectAuthorized(t.api.sent);
    expect(result.data).toMatchObject({ id: "new1", meetLink: "https://meet.google.com/xyz" });
  });

  it("GOOGLECALENDAR_CREATE_EVENT makes an all-day event from dates", async () => {
    t.api.answer(() => reply(event("new2", { start: { date: "2024-06-01" }, end: { date: "2024-06-02" } })));
    const result = await t.execute("GOOGLECALENDAR_CREATE_EVENT", {
      summary: "Offsite",
      start: "2024-06-01",
      end: "2024-06-02",
      sendUpdates: "none",
    });
    expect(t.api.sent[0]!.url.search).toBe("?sendUpdates=none");
    expect(t.api.sent[0]!.json()).toEqual({ summary: "Offsite", start: { date: "2024-06-01" }, end: { date: "2024-06-02" } });
    expect(result.data.allDay).toBe(true);
  });

  it("GOOGLECALENDAR_CREATE_EVENT reports Google's 403 error object", async () => {
    t.api.answer(() =>
      reply(
        {
          error: {
            errors: [{ domain: "calendar", reason: "requiredAccessLevel", message: "You need to have writer access to this calendar." }],
            code: 403,
            message: "You need to have writer access to this calendar.",
          },
        },
        403,
      ),
    );
    const result = await t.execute("GOOGLECALENDAR_CREATE_EVENT", {
      calendarId: "other@example.com",
      summary: "x",
      start: "2024-06-01",
      end: "2024-06-02",
    });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 403 });
    expect(result.error).toMatch(
      /^Google Calendar answered 403: You need to have writer access to this calendar\. The Google Calendar connection lacks/,
    );
  });

  it("GOOGLECALENDAR_UPDATE_EVENT patches only the given fields", async () => {
    t.api.answer(() => reply(event("e1", { summary: "Planning (moved)" })));
    const result = await t.execute("GOOGLECALENDAR_UPDATE_EVENT", {
      eventId: "e1",
      summary: "Planning (moved)",
      start: "2024-06-04T09:00:00+02:00",
      end: "2024-06-04T10:00:00+02:00",
    });
    const [request] = t.api.sent;
    expect(request!.method).toBe("PATCH");
    expect(request!.url.href).toBe(`${API}/calendars/primary/events/e1?sendUpdates=all`);
    expect(request!.json()).toEqual({
      summary: "Planning (moved)",
      start: { dateTime: "2024-06-04T09:00:00+02:00" },
      end: { dateTime: "2024-06-04T10:00:00+02:00" },
    });
    expect(result.data.summary).toBe("Planning (moved)");
  });

  it("GOOGLECALENDAR_DELETE_EVENT deletes, and reports an event already deleted", async () => {
    t.api.answer(() => new Response(null, { status: 204 }));
    const result = await t.execute("GOOGLECALENDAR_DELETE_EVENT", { eventId: "e1", sendUpdates: "none" });
    expect(t.api.sent[0]!.method).toBe("DELETE");
    expect(t.api.sent[0]!.url.href).toBe(`${API}/calendars/primary/events/e1?sendUpdates=none`);
    expect(result).toEqual({ data: { deleted: true, eventId: "e1" }, error: null, successful: true });

    t.api.answer(() =>
      reply(
        {
          error: {
            errors: [{ domain: "global", reason: "deleted", message: "Resource has been deleted" }],
            code: 410,
            message: "Resource has been deleted",
          },
        },
        410,
      ),
    );
    const gone = await t.execute("GOOGLECALENDAR_DELETE_EVENT", { eventId: "e1" });
    expect(gone).toMatchObject({ successful: false, upstreamStatus: 410 });
    expect(gone.error).toMatch(/Resource has been deleted/);
  });

  it("declares delete as destructive and the reads as read-only", () => {
    const byslug = Object.fromEntries(googleCalendarTools.map((tool) => [tool.slug, tool.annotations]));
    expect(byslug.GOOGLECALENDAR_DELETE_EVENT).toMatchObject({ destructive: true });
    expect(byslug.GOOGLECALENDAR_LIST_EVENTS).toMatchObject({ readOnly: true });
    expect(byslug.GOOGLECALENDAR_CREATE_EVENT).toMatchObject({ readOnly: false, destructive: false });
  });
});
