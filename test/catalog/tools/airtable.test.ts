/**
 * Airtable's curated tools over an emulation of the Web API. Answer shapes follow Airtable's reference:
 * https://airtable.com/developers/web/api/list-bases
 * https://airtable.com/developers/web/api/get-base-schema
 * https://airtable.com/developers/web/api/list-records
 * https://airtable.com/developers/web/api/create-records
 * https://airtable.com/developers/web/api/update-multiple-records
 * https://airtable.com/developers/web/api/delete-multiple-records
 * https://airtable.com/developers/web/api/upload-attachment
 * https://airtable.com/developers/web/api/errors
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { airtableTools } from "../../../src/catalog/tools/airtable.js";
import { expectAuthorized, reply, toolkitHarness } from "./support.js";

const API = "https://api.airtable.com/v0";
const CONTENT = "https://content.airtable.com/v0";
const BASE = "appAbCdEfGhIjKlMn";
const REC = "recAbCdEfGhIjKlMn";
let t: Awaited<ReturnType<typeof toolkitHarness>>;

beforeAll(async () => {
  t = await toolkitHarness({ slug: "airtable", name: "Airtable", baseUrl: [API, CONTENT], tools: airtableTools });
});
afterAll(() => t.close());

const record = (id: string, fields: Record<string, unknown>) => ({ id, createdTime: "2024-01-01T00:00:00.000Z", fields });

describe("bases and schema", () => {
  it("AIRTABLE_LIST_BASES pages with offset", async () => {
    t.api.answer(() =>
      reply({ bases: [{ id: BASE, name: "CRM", permissionLevel: "create" }], offset: "itr23sEjsdfEr3282/appSW9R5uCNmRmfl6" }),
    );
    const result = await t.execute("AIRTABLE_LIST_BASES", {});
    expect(result.successful, result.error ?? "").toBe(true);
    expect(t.api.sent[0]!.url.href).toBe(`${API}/meta/bases`);
    expectAuthorized(t.api.sent);
    expect(result.data).toEqual({
      bases: [{ id: BASE, name: "CRM", permissionLevel: "create" }],
      nextCursor: "itr23sEjsdfEr3282/appSW9R5uCNmRmfl6",
    });
    t.api.answer(() => reply({ bases: [] }));
    const last = await t.execute("AIRTABLE_LIST_BASES", { cursor: "itr23sEjsdfEr3282/appSW9R5uCNmRmfl6" });
    expect(t.api.sent[0]!.url.searchParams.get("offset")).toBe("itr23sEjsdfEr3282/appSW9R5uCNmRmfl6");
    expect(last.data.nextCursor).toBeNull();
  });

  it("AIRTABLE_GET_BASE_SCHEMA returns tables, fields with choices, and views", async () => {
    t.api.answer(() =>
      reply({
        tables: [
          {
            id: "tblAbCdEfGhIjKlMn",
            name: "Contacts",
            primaryFieldId: "fld1",
            fields: [
              { id: "fld1", name: "Name", type: "singleLineText" },
              {
                id: "fld2",
                name: "Status",
                type: "singleSelect",
                options: { choices: [{ id: "sel1", name: "Lead", color: "blueLight2" }] },
              },
            ],
            views: [{ id: "viw1", name: "Grid view", type: "grid" }],
          },
        ],
      }),
    );
    const result = await t.execute("AIRTABLE_GET_BASE_SCHEMA", { baseId: BASE });
    expect(t.api.sent[0]!.url.pathname).toBe(`/v0/meta/bases/${BASE}/tables`);
    expect(result.data.tables[0]).toEqual({
      id: "tblAbCdEfGhIjKlMn",
      name: "Contacts",
      description: null,
      primaryFieldId: "fld1",
      fields: [
        { id: "fld1", name: "Name", type: "singleLineText", description: null },
        { id: "fld2", name: "Status", type: "singleSelect", description: null, choices: ["Lead"] },
      ],
      views: [{ id: "viw1", name: "Grid view", type: "grid" }],
    });
  });
});

describe("records", () => {
  it("AIRTABLE_LIST_RECORDS sends the filter, sort and fields as Airtable's query names, and pages", async () => {
    t.api.answer(() => reply({ records: [record(REC, { Name: "Ada" })], offset: "itrNext/recNext" }));
    const result = await t.execute("AIRTABLE_LIST_RECORDS", {
      baseId: BASE,
      table: "Contacts List",
      filterByFormula: "{Status} = 'Lead'",
      sort: [{ field: "Name", direction: "desc" }],
      fields: ["Name", "Status"],
      pageSize: 1,
    });
    const url = t.api.sent[0]!.url;
    expect(url.pathname).toBe(`/v0/${BASE}/Contacts%20List`);
    expect([...url.searchParams]).toEqual([
      ["filterByFormula", "{Status} = 'Lead'"],
      ["sort[0][field]", "Name"],
      ["sort[0][direction]", "desc"],
      ["fields[]", "Name"],
      ["fields[]", "Status"],
      ["pageSize", "1"],
    ]);
    expect(result.data).toEqual({
      records: [{ id: REC, createdTime: "2024-01-01T00:00:00.000Z", fields: { Name: "Ada" } }],
      nextCursor: "itrNext/recNext",
    });
  });

  it("AIRTABLE_GET_RECORD gets one record", async () => {
    t.api.answer(() => reply(record(REC, { Name: "Ada" })));
    const result = await t.execute("AIRTABLE_GET_RECORD", { baseId: BASE, table: "tblAbCdEfGhIjKlMn", recordId: REC });
    expect(t.api.sent[0]!.url.pathname).toBe(`/v0/${BASE}/tblAbCdEfGhIjKlMn/${REC}`);
    expect(result.data.fields).toEqual({ Name: "Ada" });
  });

  it("AIRTABLE_CREATE_RECORDS posts records as fields objects", async () => {
    t.api.answer(() => reply({ records: [record(REC, { Name: "Ada" })] }));
    const result = await t.execute("AIRTABLE_CREATE_RECORDS", {
      baseId: BASE,
      table: "Contacts",
      records: [{ Name: "Ada" }],
      typecast: true,
    });
    expect(t.api.sent[0]!.method).toBe("POST");
    expect(t.api.sent[0]!.json()).toEqual({ records: [{ fields: { Name: "Ada" } }], typecast: true });
    expect(result.data.records[0].id).toBe(REC);
  });

  it("AIRTABLE_UPDATE_RECORDS patches", async () => {
    t.api.answer(() => reply({ records: [record(REC, { Name: "Ada L." })] }));
    await t.execute("AIRTABLE_UPDATE_RECORDS", { baseId: BASE, table: "Contacts", records: [{ id: REC, fields: { Name: "Ada L." } }] });
    expect(t.api.sent[0]!.method).toBe("PATCH");
    expect(t.api.sent[0]!.json()).toEqual({ records: [{ id: REC, fields: { Name: "Ada L." } }], typecast: false });
  });

  it("AIRTABLE_DELETE_RECORDS sends records[] and returns the ids deleted", async () => {
    const other = "recZyXwVuTsRqPoNm";
    t.api.answer(() =>
      reply({
        records: [
          { id: REC, deleted: true },
          { id: other, deleted: true },
        ],
      }),
    );
    const result = await t.execute("AIRTABLE_DELETE_RECORDS", { baseId: BASE, table: "Contacts", recordIds: [REC, other] });
    expect(t.api.sent[0]!.method).toBe("DELETE");
    expect(t.api.sent[0]!.url.searchParams.getAll("records[]")).toEqual([REC, other]);
    expect(result.data).toEqual({ deleted: [REC, other] });
  });

  it("reports Airtable's typed 422 error", async () => {
    t.api.answer(() =>
      reply(
        { error: { type: "INVALID_MULTIPLE_CHOICE_OPTIONS", message: 'Insufficient permissions to create new select option ""Hot""' } },
        422,
      ),
    );
    const result = await t.execute("AIRTABLE_CREATE_RECORDS", { baseId: BASE, table: "Contacts", records: [{ Status: "Hot" }] });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 422 });
    expect(result.error).toMatch(
      /^Airtable answered 422: INVALID_MULTIPLE_CHOICE_OPTIONS: Insufficient permissions to create new select option/,
    );
  });

  it("reports Airtable's bare NOT_FOUND with where to find the ids", async () => {
    t.api.answer(() => reply({ error: "NOT_FOUND" }, 404));
    const result = await t.execute("AIRTABLE_GET_RECORD", { baseId: BASE, table: "Contacts", recordId: REC });
    expect(result.error).toMatch(/^Airtable answered 404: NOT_FOUND\. Check the base, table and record ids/);
  });
});

describe("AIRTABLE_UPLOAD_ATTACHMENT", () => {
  it("sends the staged file as base64 to content.airtable.com", async () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    const key = await t.upload(new Blob([png]), "image/png", "logo.png");
    t.api.answer(() =>
      reply({
        id: REC,
        createdTime: "2024-01-01T00:00:00.000Z",
        fields: {
          fldAtt: [{ id: "att1", url: "https://v5.airtableusercontent.com/x", filename: "logo.png", size: 11, type: "image/png" }],
        },
      }),
    );
    const result = await t.execute("AIRTABLE_UPLOAD_ATTACHMENT", { baseId: BASE, recordId: REC, field: "fldAtt", file: key });
    expect(result.successful, result.error ?? "").toBe(true);
    const [request] = t.api.sent;
    expect(request!.method).toBe("POST");
    expect(request!.url.href).toBe(`${CONTENT}/${BASE}/${REC}/fldAtt/uploadAttachment`);
    expect(request!.json()).toEqual({ contentType: "image/png", file: Buffer.from(png).toString("base64"), filename: "logo.png" });
    expectAuthorized(t.api.sent);
    expect(result.data).toEqual({
      recordId: REC,
      attachments: [{ id: "att1", filename: "logo.png", type: "image/png", size: 11, url: "https://v5.airtableusercontent.com/x" }],
    });
  });
});
