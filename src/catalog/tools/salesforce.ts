// Salesforce's curated tools, over the REST API at the connection's instance (https://{instance}.my.salesforce.com,
// from the token answer's instance_url). Facts from Salesforce's REST API Developer Guide:
// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_query.htm (SOQL: { totalSize, done, records, nextRecordsUrl })
// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/dome_query.htm (following nextRecordsUrl for the next batch)
// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_search.htm (SOSL: { searchRecords })
// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_sobject_retrieve_get.htm (GET a record, ?fields=)
// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/dome_sobject_create.htm (POST: 201 { id, success, errors })
// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/dome_update_fields.htm (PATCH: 204)
// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/dome_delete_record.htm (DELETE: 204)
// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_sobject_describe.htm (fields, picklistValues)
// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/dome_sobject_insert_update_blob.htm (ContentVersion, VersionData base64 in JSON)
// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/dome_sobject_blob_retrieve.htm (GET …/ContentVersion/{id}/VersionData)
// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm (errors: [{ message, errorCode, fields }])
import { z } from "zod";
import { invalidArguments } from "../../core/tool-error.js";
import { defineTool, stagedFile, type Tool } from "../../toolkits/define.js";
import { type ProviderErrors, request, requestJson, segment } from "../../toolkits/provider-requests.js";
import { toBase64 } from "../../util/encoding.js";
import { contentTypeFor, field } from "./content.js";

/** The REST API version the tools call (Winter '25); every org of a later release answers it too. */
const API = "/services/data/v62.0";

/** Salesforce's error body: an array of `{ errorCode, message, fields }`. */
function salesforceReason(body: unknown): string | undefined {
  const errors = Array.isArray(body) ? body : [body];
  const parts = errors
    .map((error) => {
      const code = field(error, "errorCode");
      const message = field(error, "message");
      const fields = field(error, "fields");
      if (typeof message !== "string") return undefined;
      const where = Array.isArray(fields) && fields.length ? ` (fields: ${fields.join(", ")})` : "";
      return `${typeof code === "string" ? `${code}: ` : ""}${message}${where}`;
    })
    .filter(Boolean);
  return parts.length ? parts.join("; ") : undefined;
}

const SALESFORCE: ProviderErrors = {
  name: "Salesforce",
  reason: salesforceReason,
  hints: { 404: "Check the object name and record id (SALESFORCE_QUERY_RECORDS finds ids), and that the connected user can see it." },
};

type Json = Record<string, unknown>;

/** A record without Salesforce's `attributes` (type and URL), keeping its type. */
function record(value: unknown): Json {
  const { attributes, ...fields } = (value ?? {}) as Json;
  return { type: field(attributes, "type") ?? null, ...fields };
}

const objectName = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,79}$/, "must be an object's API name, e.g. Account or Invoice__c")
  .describe("The object's API name: Account, Contact, Lead, Opportunity, Case, Task, or a custom one ending in __c.");
const recordId = z
  .string()
  .regex(/^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/, "must be a 15- or 18-character Salesforce id")
  .describe("The record's 15- or 18-character id.");
const fieldValues = z
  .record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,79}$/), z.unknown())
  .describe('Field API names and values, e.g. { "Name": "Acme", "Industry": "Energy" } (see SALESFORCE_DESCRIBE_OBJECT).');

/** The nextRecordsUrl of a query, which is the cursor: a query locator under the same API path. */
const QUERY_LOCATOR = /^\/services\/data\/v\d+\.\d+\/query(?:All)?\/[A-Za-z0-9-]+$/;

const queryRecords = defineTool({
  slug: "SALESFORCE_QUERY_RECORDS",
  name: "Query Salesforce records (SOQL)",
  description:
    "Runs a SOQL query, e.g. `SELECT Id, Name, Industry FROM Account WHERE Name LIKE 'Acme%' ORDER BY CreatedDate DESC`. Returns " +
    "{ totalSize, records: [{ type, Id, ...fields }], nextCursor }; pass nextCursor back as cursor (without query) for the next batch.",
  input: z.object({
    query: z.string().min(1).max(20_000).optional().describe("The SOQL query; required unless cursor is given."),
    cursor: z
      .string()
      .regex(QUERY_LOCATOR, "must be the nextCursor of a previous result")
      .optional()
      .describe("The nextCursor of a previous result."),
    includeDeleted: z.boolean().default(false).describe("Also return deleted and archived records (queryAll)."),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    if (!args.query && !args.cursor) throw invalidArguments("Give a SOQL query, or the cursor of a previous result.");
    const answer = await requestJson<{ totalSize?: number; records?: unknown[]; nextRecordsUrl?: string; done?: boolean }>(
      ctx,
      SALESFORCE,
      args.cursor ?? `${API}/${args.includeDeleted ? "queryAll" : "query"}`,
      { query: args.cursor ? {} : { q: args.query } },
    );
    return {
      totalSize: answer.totalSize ?? null,
      records: (answer.records ?? []).map(record),
      nextCursor: !answer.done && answer.nextRecordsUrl ? answer.nextRecordsUrl : null,
    };
  },
});

const searchRecords = defineTool({
  slug: "SALESFORCE_SEARCH_RECORDS",
  name: "Search Salesforce records (SOSL)",
  description:
    "Finds records by text across objects with SOSL, e.g. `FIND {Acme*} IN NAME FIELDS RETURNING Account(Id, Name), Contact(Id, Name, Email) " +
    "LIMIT 20`. Returns { records: [{ type, Id, ...fields }] }, at most the LIMIT given (SOSL has no further pages).",
  input: z.object({ search: z.string().min(1).max(10_000).describe("The SOSL statement, starting with FIND.") }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const answer = await requestJson<{ searchRecords?: unknown[] }>(ctx, SALESFORCE, `${API}/search`, { query: { q: args.search } });
    return { records: (answer.searchRecords ?? []).map(record) };
  },
});

const getRecord = defineTool({
  slug: "SALESFORCE_GET_RECORD",
  name: "Get a Salesforce record",
  description: "Reads one record by object and id, with the fields named (all fields the user can see when none are named).",
  input: z.object({
    object: objectName,
    id: recordId,
    fields: z
      .array(z.string().regex(/^[A-Za-z][A-Za-z0-9_.]{0,120}$/))
      .max(200)
      .optional()
      .describe("Field API names to return."),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const answer = await requestJson(ctx, SALESFORCE, `${API}/sobjects/${segment(args.object)}/${segment(args.id)}`, {
      query: { fields: args.fields?.join(",") },
    });
    return record(answer);
  },
});

const describeObject = defineTool({
  slug: "SALESFORCE_DESCRIBE_OBJECT",
  name: "Describe a Salesforce object",
  description:
    "Lists an object's fields before querying or writing it: { name, label, fields: [{ name, label, type, required, createable, " +
    "updateable, referenceTo, picklistValues }] }.",
  input: z.object({ object: objectName }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const answer = await requestJson<{ name: string; label: string; fields?: Json[] }>(
      ctx,
      SALESFORCE,
      `${API}/sobjects/${segment(args.object)}/describe`,
    );
    return {
      name: answer.name,
      label: answer.label,
      fields: (answer.fields ?? []).map((f) => ({
        name: f.name,
        label: f.label,
        type: f.type,
        required: f.nillable === false && f.createable === true && f.defaultedOnCreate !== true,
        createable: f.createable ?? false,
        updateable: f.updateable ?? false,
        referenceTo: f.referenceTo ?? [],
        picklistValues: ((f.picklistValues ?? []) as Json[]).filter((p) => p.active !== false).map((p) => p.value),
      })),
    };
  },
});

const createRecord = defineTool({
  slug: "SALESFORCE_CREATE_RECORD",
  name: "Create a Salesforce record",
  description: "Creates a record of an object (a lead, contact, opportunity, task...) with the field values given. Returns { id }.",
  input: z.object({ object: objectName, fields: fieldValues }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  async run(args, ctx) {
    const answer = await requestJson<{ id: string }>(ctx, SALESFORCE, `${API}/sobjects/${segment(args.object)}`, {
      method: "POST",
      json: args.fields,
    });
    return { id: answer.id };
  },
});

const updateRecord = defineTool({
  slug: "SALESFORCE_UPDATE_RECORD",
  name: "Update a Salesforce record",
  description: "Changes the fields given of one record (others keep their values); null clears a field. Returns { id, updated: true }.",
  input: z.object({ object: objectName, id: recordId, fields: fieldValues }),
  annotations: { readOnly: false, destructive: false, idempotent: true },
  async run(args, ctx) {
    if (Object.keys(args.fields).length === 0) throw invalidArguments("Nothing to change: give at least one field.");
    await request(ctx, SALESFORCE, `${API}/sobjects/${segment(args.object)}/${segment(args.id)}`, { method: "PATCH", json: args.fields });
    return { id: args.id, updated: true };
  },
});

const deleteRecord = defineTool({
  slug: "SALESFORCE_DELETE_RECORD",
  name: "Delete a Salesforce record",
  description: "Deletes one record (it goes to the recycle bin for 15 days). Returns { id, deleted: true }.",
  input: z.object({ object: objectName, id: recordId }),
  annotations: { readOnly: false, destructive: true, idempotent: true },
  async run(args, ctx) {
    await request(ctx, SALESFORCE, `${API}/sobjects/${segment(args.object)}/${segment(args.id)}`, { method: "DELETE" });
    return { id: args.id, deleted: true };
  },
});

/**
 * Largest file sent base64-encoded in a JSON body, under the REST API's request size limit (about 37.5 MB of file once
 * encoded to 50 MB); larger files need the multipart upload, which this tool does not do.
 */
const JSON_UPLOAD_MAX = 35 * 1024 * 1024;

const uploadFile = defineTool({
  slug: "SALESFORCE_UPLOAD_FILE",
  name: "Upload a file to Salesforce",
  description:
    "Uploads a staged file (POST /upload first) to Salesforce Files as a ContentVersion, optionally shared with a record (an account, " +
    "opportunity, case...) by its id. Returns { contentVersionId }. Files up to 35 MB.",
  input: z.object({
    file: stagedFile("Staging key of the file to upload, from POST /upload."),
    title: z.string().min(1).max(255).optional().describe("The file's title; its file name when left out."),
    recordId: recordId.optional().describe("Id of a record to share the file with (FirstPublishLocationId)."),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  async run(args, ctx) {
    const file = await ctx.files.get(args.file);
    if (file.size > JSON_UPLOAD_MAX) throw invalidArguments(`${file.name} is larger than 35 MB, which this tool uploads at most.`);
    const answer = await requestJson<{ id: string }>(ctx, SALESFORCE, `${API}/sobjects/ContentVersion`, {
      method: "POST",
      json: {
        Title: args.title ?? file.name.replace(/\.[^.]+$/, ""),
        PathOnClient: file.name,
        VersionData: toBase64(await file.bytes()),
        FirstPublishLocationId: args.recordId,
      },
    });
    return { contentVersionId: answer.id };
  },
});

const downloadFile = defineTool({
  slug: "SALESFORCE_DOWNLOAD_FILE",
  name: "Download a Salesforce file",
  description:
    "Downloads a file's content (a ContentVersion id, 068…; query ContentVersion or ContentDocumentLink to find it) as a staged " +
    "file: returns { title, file }, file's stagingKey read with GET /files/{key} or passed to another tool.",
  input: z.object({ contentVersionId: recordId.describe("The ContentVersion's id (starts with 068).") }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const path = `${API}/sobjects/ContentVersion/${segment(args.contentVersionId)}`;
    const meta = await requestJson<{ Title?: string; PathOnClient?: string; FileExtension?: string }>(ctx, SALESFORCE, path, {
      query: { fields: "Title,PathOnClient,FileExtension,ContentSize" },
    });
    const filename = meta.PathOnClient || `${meta.Title ?? args.contentVersionId}${meta.FileExtension ? `.${meta.FileExtension}` : ""}`;
    const response = await request(ctx, SALESFORCE, `${path}/VersionData`);
    const staged = await ctx.files.stage(response.body ?? new Uint8Array(), { contentType: contentTypeFor(filename), filename });
    return { contentVersionId: args.contentVersionId, title: meta.Title ?? null, file: staged };
  },
});

/** Salesforce's curated tools: SOQL and SOSL, records read, created, updated and deleted, object fields, files in and out. */
export const salesforceTools: Tool[] = [
  queryRecords,
  searchRecords,
  getRecord,
  describeObject,
  createRecord,
  updateRecord,
  deleteRecord,
  uploadFile,
  downloadFile,
];
