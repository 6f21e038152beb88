// Google Calendar's curated tools. Facts from the Calendar API v3 reference:
// https://developers.google.com/workspace/calendar/api/v3/reference/calendarList/list (maxResults up to 250, pageToken, nextPageToken)
// https://developers.google.com/workspace/calendar/api/v3/reference/events/list (timeMin/timeMax RFC 3339, singleEvents, orderBy=startTime)
// https://developers.google.com/workspace/calendar/api/v3/reference/events (the Event resource: start/end `date` or `dateTime`)
// https://developers.google.com/workspace/calendar/api/v3/reference/events/insert (sendUpdates, conferenceDataVersion)
// https://developers.google.com/workspace/calendar/api/v3/reference/events/patch
// https://developers.google.com/workspace/calendar/api/v3/reference/events/delete (204; 410 when already deleted)
// https://developers.google.com/workspace/calendar/api/guides/create-events#conferencing (Meet: conferenceData.createRequest)
import { z } from "zod";
import { defineTool, type Tool } from "../../toolkits/define.js";
import { type ProviderErrors, request, requestJson, segment } from "../../toolkits/provider-requests.js";

const CALENDAR: ProviderErrors = { name: "Google Calendar" };

const calendarId = z
  .string()
  .min(1)
  .max(300)
  .default("primary")
  .meta({ description: "Calendar id from GOOGLECALENDAR_LIST_CALENDARS, or `primary` (the default) for the user's own." });
const eventId = z.string().min(1).max(1024).meta({ description: "The event's id, from GOOGLECALENDAR_LIST_EVENTS." });
const when = (which: string) =>
  z
    .string()
    .regex(
      /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/,
      "must be a date (2024-06-01) or an RFC 3339 date-time (2024-06-01T09:00:00-07:00)",
    )
    .meta({
      description:
        `${which}: a date-time such as 2024-06-01T09:00:00-07:00 (or without offset, read in \`timeZone\`), or a date such as ` +
        "2024-06-01 for an all-day event (the end date is exclusive: a one-day event on June 1 ends on 2024-06-02).",
    });
const timeZone = z
  .string()
  .max(64)
  .optional()
  .meta({ description: "IANA time zone such as Europe/Paris, for times written without an offset." });
const sendUpdates = z
  .enum(["all", "externalOnly", "none"])
  .default("all")
  .meta({ description: "Who gets an email about the change: all guests (default), only those outside the organisation, or none." });

/** A start or end as the API takes it: `date` for an all-day event, else `dateTime` with an optional zone. */
function eventTime(value: string, zone: string | undefined) {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return { date: value };
  return zone ? { dateTime: value, timeZone: zone } : { dateTime: value };
}

interface EventTime {
  date?: string;
  dateTime?: string;
  timeZone?: string;
}
interface CalendarEvent {
  id: string;
  status?: string;
  summary?: string;
  description?: string;
  location?: string;
  htmlLink?: string;
  hangoutLink?: string;
  start?: EventTime;
  end?: EventTime;
  attendees?: Array<{
    email: string;
    displayName?: string;
    responseStatus?: string;
    optional?: boolean;
    organizer?: boolean;
    self?: boolean;
  }>;
  organizer?: { email?: string; displayName?: string };
  recurrence?: string[];
  recurringEventId?: string;
  conferenceData?: { entryPoints?: Array<{ entryPointType: string; uri: string }> };
  created?: string;
  updated?: string;
}

function eventSummary(event: CalendarEvent) {
  return {
    id: event.id,
    status: event.status ?? null,
    summary: event.summary ?? null,
    description: event.description ?? null,
    location: event.location ?? null,
    start: event.start ?? null,
    end: event.end ?? null,
    allDay: event.start?.date !== undefined,
    attendees: (event.attendees ?? []).map((a) => ({
      email: a.email,
      name: a.displayName ?? null,
      responseStatus: a.responseStatus ?? null,
      optional: a.optional ?? false,
      organizer: a.organizer ?? false,
    })),
    organizer: event.organizer?.email ?? null,
    meetLink: event.hangoutLink ?? event.conferenceData?.entryPoints?.find((e) => e.entryPointType === "video")?.uri ?? null,
    recurrence: event.recurrence ?? null,
    recurringEventId: event.recurringEventId ?? null,
    url: event.htmlLink ?? null,
    created: event.created ?? null,
    updated: event.updated ?? null,
  };
}

const eventsPath = (calendar: string) => `/calendars/${segment(calendar)}/events`;

const listCalendars = defineTool({
  slug: "GOOGLECALENDAR_LIST_CALENDARS",
  name: "List calendars",
  description:
    "Lists the calendars in the user's calendar list: id, name, time zone, the user's access role and whether it is the primary one. " +
    "Returns `calendars` and `nextPageToken` (pass it as `pageToken` for more; null on the last page).",
  input: z.object({
    minAccessRole: z
      .enum(["freeBusyReader", "reader", "writer", "owner"])
      .optional()
      .meta({ description: "Only calendars where the user has at least this role (`writer` for ones they can add events to)." }),
    maxResults: z.number().int().min(1).max(250).default(100).meta({ description: "Calendars per page, at most 250 (default 100)." }),
    pageToken: z.string().max(500).optional().meta({ description: "`nextPageToken` of the previous result." }),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    type Entry = { id: string; summary: string; description?: string; timeZone?: string; accessRole: string; primary?: boolean };
    const answer = await requestJson<{ items?: Entry[]; nextPageToken?: string }>(ctx, CALENDAR, "/users/me/calendarList", {
      query: { minAccessRole: args.minAccessRole, maxResults: args.maxResults, pageToken: args.pageToken },
    });
    return {
      calendars: (answer.items ?? []).map((c) => ({
        id: c.id,
        name: c.summary,
        description: c.description ?? null,
        timeZone: c.timeZone ?? null,
        accessRole: c.accessRole,
        primary: c.primary ?? false,
      })),
      nextPageToken: answer.nextPageToken ?? null,
    };
  },
});

const listEvents = defineTool({
  slug: "GOOGLECALENDAR_LIST_EVENTS",
  name: "List events",
  description:
    "Lists events of a calendar between `timeMin` and `timeMax`, recurring events expanded into single occurrences and sorted by start " +
    "time. Returns `events` (id, summary, start, end, allDay, location, attendees and their responses, organizer, Meet link, url), the " +
    "calendar's `timeZone` and `nextPageToken` (pass it as `pageToken` with the same other arguments for more; null on the last page).",
  input: z.object({
    calendarId,
    timeMin: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: "Only events ending after this RFC 3339 time, e.g. 2024-06-01T00:00:00Z." }),
    timeMax: z.iso.datetime({ offset: true }).optional().meta({ description: "Only events starting before this RFC 3339 time." }),
    query: z.string().max(500).optional().meta({ description: "Free text matched against summary, description, location and attendees." }),
    maxResults: z.number().int().min(1).max(2500).default(50).meta({ description: "Events per page, at most 2500 (default 50)." }),
    pageToken: z.string().max(500).optional().meta({ description: "`nextPageToken` of the previous result." }),
    timeZone: z
      .string()
      .max(64)
      .optional()
      .meta({ description: "IANA time zone the answer's times are written in (the calendar's by default)." }),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const answer = await requestJson<{ items?: CalendarEvent[]; nextPageToken?: string; timeZone?: string }>(
      ctx,
      CALENDAR,
      eventsPath(args.calendarId),
      {
        query: {
          timeMin: args.timeMin,
          timeMax: args.timeMax,
          q: args.query,
          singleEvents: true,
          orderBy: "startTime",
          maxResults: args.maxResults,
          pageToken: args.pageToken,
          timeZone: args.timeZone,
        },
      },
    );
    return {
      events: (answer.items ?? []).map(eventSummary),
      timeZone: answer.timeZone ?? null,
      nextPageToken: answer.nextPageToken ?? null,
    };
  },
});

const getEvent = defineTool({
  slug: "GOOGLECALENDAR_GET_EVENT",
  name: "Get event",
  description: "Gets one event with its description, attendees and their responses, recurrence rules, Meet link and url.",
  input: z.object({ calendarId, eventId }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    return eventSummary(await requestJson<CalendarEvent>(ctx, CALENDAR, `${eventsPath(args.calendarId)}/${segment(args.eventId)}`));
  },
});

const attendees = z
  .array(z.email())
  .max(100)
  .optional()
  .meta({ description: "Guests' email addresses. On update, the new list replaces the old one." });

const createEvent = defineTool({
  slug: "GOOGLECALENDAR_CREATE_EVENT",
  name: "Create event",
  description:
    "Creates an event (schedules a meeting), optionally with guests, a recurrence rule and a Google Meet link. Guests get an invitation email unless " +
    "`sendUpdates` says otherwise. Returns the event (id, url, Meet link, start, end, ...).",
  input: z.object({
    calendarId,
    summary: z.string().min(1).max(1024).meta({ description: "The event's title." }),
    start: when("Start"),
    end: when("End"),
    timeZone,
    description: z.string().max(8000).optional().meta({ description: "Description; may contain HTML." }),
    location: z.string().max(1024).optional().meta({ description: "Place, as free text." }),
    attendees,
    recurrence: z
      .array(z.string().regex(/^(RRULE|EXRULE|RDATE|EXDATE)[:;]/, "must be an RRULE, EXRULE, RDATE or EXDATE line"))
      .max(10)
      .optional()
      .meta({ description: 'RFC 5545 lines, e.g. ["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=10"]; needs `timeZone`.' }),
    addMeet: z.boolean().default(false).meta({ description: "Add a Google Meet video link (default false)." }),
    sendUpdates,
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  async run(args, ctx) {
    const body = {
      summary: args.summary,
      description: args.description,
      location: args.location,
      start: eventTime(args.start, args.timeZone),
      end: eventTime(args.end, args.timeZone),
      attendees: args.attendees?.map((email) => ({ email })),
      recurrence: args.recurrence,
      conferenceData: args.addMeet
        ? { createRequest: { requestId: crypto.randomUUID(), conferenceSolutionKey: { type: "hangoutsMeet" } } }
        : undefined,
    };
    const query = { sendUpdates: args.sendUpdates, conferenceDataVersion: args.addMeet ? 1 : undefined };
    return eventSummary(
      await requestJson<CalendarEvent>(ctx, CALENDAR, eventsPath(args.calendarId), { method: "POST", query, json: body }),
    );
  },
});

const updateEvent = defineTool({
  slug: "GOOGLECALENDAR_UPDATE_EVENT",
  name: "Update event",
  description:
    "Changes an event: only the fields given change (a patch). `attendees` replaces the whole guest list, so include the guests to " +
    "keep. Give both `start` and `end` to move an event. Returns the updated event.",
  input: z.object({
    calendarId,
    eventId,
    summary: z.string().min(1).max(1024).optional().meta({ description: "New title." }),
    start: when("New start").optional(),
    end: when("New end").optional(),
    timeZone,
    description: z.string().max(8000).optional().meta({ description: "New description." }),
    location: z.string().max(1024).optional().meta({ description: "New place." }),
    attendees,
    sendUpdates,
  }),
  annotations: { readOnly: false, destructive: false, idempotent: true },
  async run(args, ctx) {
    const body = {
      summary: args.summary,
      description: args.description,
      location: args.location,
      start: args.start ? eventTime(args.start, args.timeZone) : undefined,
      end: args.end ? eventTime(args.end, args.timeZone) : undefined,
      attendees: args.attendees?.map((email) => ({ email })),
    };
    const url = `${eventsPath(args.calendarId)}/${segment(args.eventId)}`;
    const query = { sendUpdates: args.sendUpdates };
    return eventSummary(await requestJson<CalendarEvent>(ctx, CALENDAR, url, { method: "PATCH", query, json: body }));
  },
});

const deleteEvent = defineTool({
  slug: "GOOGLECALENDAR_DELETE_EVENT",
  name: "Delete event",
  description:
    "Deletes an event (for a recurring event's id, every occurrence; for one occurrence's id, only that one). Guests are told unless " +
    "`sendUpdates` is `none`. This cannot be undone through the API. Returns `{ deleted: true, eventId }`.",
  input: z.object({ calendarId, eventId, sendUpdates }),
  annotations: { readOnly: false, destructive: true, idempotent: true },
  async run(args, ctx) {
    await request(ctx, CALENDAR, `${eventsPath(args.calendarId)}/${segment(args.eventId)}`, {
      method: "DELETE",
      query: { sendUpdates: args.sendUpdates },
    });
    return { deleted: true, eventId: args.eventId };
  },
});

/** Google Calendar's curated tools: calendars and events. */
export const googleCalendarTools: Tool[] = [listCalendars, listEvents, getEvent, createEvent, updateEvent, deleteEvent];
