// Airtable's curated tools. Facts from Airtable's Web API reference:
// https://airtable.com/developers/web/api/list-bases (offset paging, permissionLevel)
// https://airtable.com/developers/web/api/get-base-schema (tables, fields, views)
// https://airtable.com/developers/web/api/list-records (pageSize up to 100, offset, view, filterByFormula, sort, fields[])
// https://airtable.com/developers/web/api/get-record
// https://airtable.com/developers/web/api/create-records (up to 10 records, typecast)
// https://airtable.com/developers/web/api/update-multiple-records (PATCH, up to 10)
// https://airtable.com/developers/web/api/delete-multiple-records (records[] query, up to 10)
// https://airtable.com/developers/web/api/upload-attachment (content.airtable.com, base64 file up to 5 MB)
// https://airtable.com/developers/web/api/errors (error.type and error.message; a bare `error` string for 404)
// https://airtable.com/developers/web/api/scopes (data.records:read/write, schema.bases:read)
import { z } from "zod";
import { invalidArguments } from "../../core/tool-error.js";
import { defineTool, stagedFile, type Tool } from "../../toolkits/define.js";
import { type ProviderErrors, requestJson, segment } from "../../toolkits/provider-requests.js";
import { toBase64 } from "../../util/encoding.js";
import { cursorArgument } from "./arguments.js";
import { field } from "./content.js";

/** Airtable's `error.type` and `error.message`, or its bare error string (`NOT_FOUND`). */
function airtableReason(body: unknown): string | undefined {
  const error = field(body, "error");
  if (typeof error === "string") return error;
  const type = field(error, "type");
  const message = field(error, "message");
  if (typeof message === "string") return typeof type === "string" ? `${type}: ${message}` : message;
  return typeof type === "string" ? type : undefined;
}

const AIRTABLE: ProviderErrors = {
  name: "Airtable",
  reason: airtableReason,
  hints: {
    403: "The token cannot reach this base or lacks a scope (data.records:read/write, schema.bases:read): share the base with the integration or reconnect with the scope.",
    404: "Check the base, table and record ids (AIRTABLE_LIST_BASES, AIRTABLE_GET_BASE_SCHEMA), and that the token was given access to the base.",
  },
};
const CONTENT = "https://content.airtable.com/v0";
/** Largest attachment the upload endpoint takes. */
const ATTACHMENT_MAX = 5 * 1024 * 1024;
const READ = ["data.records:read"];
const WRITE = ["data.records:write"];
const SCHEMA = ["schema.bases:read"];

const baseId = z
  .string()
  .regex(/^app[A-Za-z0-9]{14}$/, "must be a base id such as appXXXXXXXXXXXXXX")
  .meta({ description: "The base's id (app...), from AIRTABLE_LIST_BASES or the base's URL." });
const table = z.string().min(1).max(255).meta({ description: "The table's id (tbl..., preferred) or its name." });
const recordId = z
  .string()
  .regex(/^rec[A-Za-z0-9]{14}$/, "must be a record id such as recXXXXXXXXXXXXXX")
  .meta({ description: "The record's id (rec...)." });
const fields = z
  .record(z.string(), z.unknown())
  .meta({ description: 'Cell values by field name or id, e.g. {"Name": "Ada", "Status": "Done", "Tags": ["a"]}.' });
const typecast = z
  .boolean()
  .default(false)
  .meta({ description: "Let Airtable convert values (e.g. create a missing select option) instead of refusing them (default false)." });

interface AirtableRecord {
  id: string;
  createdTime?: string;
  fields?: Record<string, unknown>;
}
const recordSummary = (r: AirtableRecord) => ({ id: r.id, createdTime: r.createdTime ?? null, fields: r.fields ?? {} });
const tablePath = (args: { baseId: string; table: string }) => `/${segment(args.baseId)}/${segment(args.table)}`;

const listBases = defineTool({
  slug: "AIRTABLE_LIST_BASES",
  name: "List bases",
  description:
    "Lists the bases the connection can reach: id, name and permission level. Returns `bases` and `nextCursor` (null on the last page).",
  input: z.object({ cursor: cursorArgument }),
  annotations: { readOnly: true, idempotent: true },
  scopes: SCHEMA,
  async run(args, ctx) {
    const answer = await requestJson<{ bases?: Array<{ id: string; name: string; permissionLevel?: string }>; offset?: string }>(
      ctx,
      AIRTABLE,
      "/meta/bases",
      { query: { offset: args.cursor } },
    );
    return {
      bases: (answer.bases ?? []).map((b) => ({ id: b.id, name: b.name, permissionLevel: b.permissionLevel ?? null })),
      nextCursor: answer.offset ?? null,
    };
  },
});

interface SchemaField {
  id: string;
  name: string;
  type: string;
  description?: string;
  options?: { choices?: Array<{ name: string }>; linkedTableId?: string };
}

const getBaseSchema = defineTool({
  slug: "AIRTABLE_GET_BASE_SCHEMA",
  name: "Get base schema",
  description:
    "Gets a base's tables with their fields (id, name, type, description, select choices, linked table) and views. Read it before " +
    "writing records, to use the right field names and values.",
  input: z.object({ baseId }),
  annotations: { readOnly: true, idempotent: true },
  scopes: SCHEMA,
  async run(args, ctx) {
    const answer = await requestJson<{
      tables?: Array<{
        id: string;
        name: string;
        description?: string;
        primaryFieldId?: string;
        fields?: SchemaField[];
        views?: Array<{ id: string; name: string; type: string }>;
      }>;
    }>(ctx, AIRTABLE, `/meta/bases/${segment(args.baseId)}/tables`);
    return {
      tables: (answer.tables ?? []).map((t) => ({
        id: t.id,
        name: t.name,
        description: t.description ?? null,
        primaryFieldId: t.primaryFieldId ?? null,
        fields: (t.fields ?? []).map((f) => ({
          id: f.id,
          name: f.name,
          type: f.type,
          description: f.description ?? null,
          ...(f.options?.choices ? { choices: f.options.choices.map((c) => c.name) } : {}),
          ...(f.options?.linkedTableId ? { linkedTableId: f.options.linkedTableId } : {}),
        })),
        views: (t.views ?? []).map((v) => ({ id: v.id, name: v.name, type: v.type })),
      })),
    };
  },
});

const listRecords = defineTool({
  slug: "AIRTABLE_LIST_RECORDS",
  name: "List records",
  description:
    "Lists a table's records, optionally in a view's order and filter, filtered by a formula (e.g. `{Status} = 'Done'`, " +
    "`SEARCH('ada', LOWER({Name}))`), sorted, and with only some fields. Returns `records` (id, createdTime, fields; empty cells " +
    "are left out) and `nextCursor` (null on the last page).",
  input: z.object({
    baseId,
    table,
    view: z.string().max(255).optional().meta({ description: "A view's id or name: its filters and order apply." }),
    filterByFormula: z.string().max(10_000).optional().meta({ description: "Airtable formula; records where it is truthy are kept." }),
    sort: z
      .array(z.object({ field: z.string().min(1), direction: z.enum(["asc", "desc"]).default("asc") }))
      .max(10)
      .optional()
      .meta({ description: 'Sort, e.g. [{"field": "Due", "direction": "asc"}].' }),
    fields: z.array(z.string().min(1)).max(100).optional().meta({ description: "Only these fields (names or ids)." }),
    pageSize: z.number().int().min(1).max(100).default(100).meta({ description: "Records per page, 1 to 100 (default 100)." }),
    cursor: cursorArgument,
  }),
  annotations: { readOnly: true, idempotent: true },
  scopes: READ,
  async run(args, ctx) {
    const sort: Record<string, string> = {};
    for (const [i, entry] of (args.sort ?? []).entries()) {
      sort[`sort[${i}][field]`] = entry.field;
      sort[`sort[${i}][direction]`] = entry.direction;
    }
    const answer = await requestJson<{ records?: AirtableRecord[]; offset?: string }>(ctx, AIRTABLE, tablePath(args), {
      query: {
        view: args.view,
        filterByFormula: args.filterByFormula,
        ...sort,
        "fields[]": args.fields,
        pageSize: args.pageSize,
        offset: args.cursor,
      },
    });
    return { records: (answer.records ?? []).map(recordSummary), nextCursor: answer.offset ?? null };
  },
});

const getRecord = defineTool({
  slug: "AIRTABLE_GET_RECORD",
  name: "Get record",
  description: "Gets one record by id: its createdTime and all its non-empty fields.",
  input: z.object({ baseId, table, recordId }),
  annotations: { readOnly: true, idempotent: true },
  scopes: READ,
  async run(args, ctx) {
    return recordSummary(await requestJson<AirtableRecord>(ctx, AIRTABLE, `${tablePath(args)}/${segment(args.recordId)}`));
  },
});

const createRecords = defineTool({
  slug: "AIRTABLE_CREATE_RECORDS",
  name: "Create records",
  description:
    "Creates 1 to 10 records in a table, each given as its fields. Returns the created records with their ids. Attachments can be " +
    'given as [{"url": "https://..."}] or added from a staged file with AIRTABLE_UPLOAD_ATTACHMENT.',
  input: z.object({
    baseId,
    table,
    records: z.array(fields).min(1).max(10).meta({ description: "The new records' fields, one object each." }),
    typecast,
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  scopes: WRITE,
  async run(args, ctx) {
    const answer = await requestJson<{ records?: AirtableRecord[] }>(ctx, AIRTABLE, tablePath(args), {
      method: "POST",
      json: { records: args.records.map((f) => ({ fields: f })), typecast: args.typecast },
    });
    return { records: (answer.records ?? []).map(recordSummary) };
  },
});

const updateRecords = defineTool({
  slug: "AIRTABLE_UPDATE_RECORDS",
  name: "Update records",
  description:
    "Updates 1 to 10 records: only the fields given change (set a field to null to empty it). Returns the records as they are after.",
  input: z.object({
    baseId,
    table,
    records: z
      .array(z.object({ id: recordId, fields }))
      .min(1)
      .max(10)
      .meta({ description: 'The records to change: [{"id": "rec...", "fields": {...}}].' }),
    typecast,
  }),
  annotations: { readOnly: false, destructive: false, idempotent: true },
  scopes: WRITE,
  async run(args, ctx) {
    const answer = await requestJson<{ records?: AirtableRecord[] }>(ctx, AIRTABLE, tablePath(args), {
      method: "PATCH",
      json: { records: args.records, typecast: args.typecast },
    });
    return { records: (answer.records ?? []).map(recordSummary) };
  },
});

const deleteRecords = defineTool({
  slug: "AIRTABLE_DELETE_RECORDS",
  name: "Delete records",
  description: "Deletes 1 to 10 records by id. Returns the ids deleted.",
  input: z.object({
    baseId,
    table,
    recordIds: z.array(recordId).min(1).max(10).meta({ description: "Ids of the records to delete." }),
  }),
  annotations: { readOnly: false, destructive: true, idempotent: true },
  scopes: WRITE,
  async run(args, ctx) {
    const answer = await requestJson<{ records?: Array<{ id: string; deleted: boolean }> }>(ctx, AIRTABLE, tablePath(args), {
      method: "DELETE",
      query: { "records[]": args.recordIds },
    });
    return { deleted: (answer.records ?? []).filter((r) => r.deleted).map((r) => r.id) };
  },
});

const uploadAttachment = defineTool({
  slug: "AIRTABLE_UPLOAD_ATTACHMENT",
  name: "Upload attachment",
  description:
    "Adds a staged file (POST /upload first, at most 5 MB) to an attachment field of an existing record, after the attachments " +
    "already there. Returns the record's id and the field's attachments (id, filename, type, size, url).",
  input: z.object({
    baseId,
    recordId,
    field: z.string().min(1).max(255).meta({ description: "The attachment field's id (fld...) or name." }),
    file: stagedFile("Staging key of the file to attach, from POST /upload."),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  scopes: WRITE,
  async run(args, ctx) {
    const file = await ctx.files.get(args.file);
    if (file.size > ATTACHMENT_MAX) {
      throw invalidArguments(
        `${file.name} is ${file.size} bytes; Airtable's upload takes at most 5 MB. Give a public URL as [{"url": ...}] in AIRTABLE_UPDATE_RECORDS instead.`,
      );
    }
    const answer = await requestJson<AirtableRecord>(
      ctx,
      AIRTABLE,
      `${CONTENT}/${segment(args.baseId)}/${segment(args.recordId)}/${segment(args.field)}/uploadAttachment`,
      { method: "POST", json: { contentType: file.contentType, file: toBase64(await file.bytes()), filename: file.name } },
    );
    const attachments = (answer.fields?.[args.field] ?? Object.values(answer.fields ?? {}).find(Array.isArray)) as
      | Array<{ id: string; filename?: string; type?: string; size?: number; url?: string }>
      | undefined;
    return {
      recordId: answer.id,
      attachments: (attachments ?? []).map((a) => ({
        id: a.id,
        filename: a.filename ?? null,
        type: a.type ?? null,
        size: a.size ?? null,
        url: a.url ?? null,
      })),
    };
  },
});

/** Airtable's curated tools: bases and their schema, records listed, read, created, updated and deleted, attachments uploaded. */
export const airtableTools: Tool[] = [
  listBases,
  getBaseSchema,
  listRecords,
  getRecord,
  createRecords,
  updateRecords,
  deleteRecords,
  uploadAttachment,
];
