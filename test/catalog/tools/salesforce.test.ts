/**
 * The curated Salesforce tools through POST /execute, against an emulation of an org's REST API at
 * https://acme.my.salesforce.com/services/data/v62.0 answering as the REST API Developer Guide shows:
 * query batches `{ totalSize, done, records, nextRecordsUrl }` with `attributes` on each record, SOSL
 * `{ searchRecords }`, 201 `{ id, success, errors }` on create, 204 on update and delete, ContentVersion
 * blobs, and errors as `[{ message, errorCode, fields }]`.
 */
import { describe, expect, it } from "vitest";
import { salesforceTools } from "../../../src/catalog/tools/salesforce.js";
import { json, type Route, setupToolkit } from "./support-b.js";

const API = "/services/data/v62.0";
const ACCOUNT = {
  attributes: { type: "Account", url: `${API}/sobjects/Account/001D000000IRFmaIAH` },
  Id: "001D000000IRFmaIAH",
  Name: "Acme",
};

const routes: Route[] = [
  {
    method: "GET",
    path: /^\/services\/data\/v62\.0\/query$/,
    answer: (request) =>
      request.query.get("q")!.includes("FROM Nothing")
        ? json([{ message: "sObject type 'Nothing' is not supported.", errorCode: "INVALID_TYPE" }], 400)
        : json({ totalSize: 3, done: false, nextRecordsUrl: `${API}/query/01gD0000002HU6KIAW-2000`, records: [ACCOUNT] }),
  },
  {
    method: "GET",
    path: /^\/services\/data\/v62\.0\/query\/01gD0000002HU6KIAW-2000$/,
    answer: () => json({ totalSize: 3, done: true, records: [{ ...ACCOUNT, Name: "Beta" }] }),
  },
  {
    method: "GET",
    path: /^\/services\/data\/v62\.0\/search$/,
    answer: () => json({ searchRecords: [ACCOUNT, { attributes: { type: "Contact", url: "x" }, Id: "003D000000QV9n2IAD", Name: "Ada" }] }),
  },
  {
    method: "GET",
    path: /^\/services\/data\/v62\.0\/sobjects\/Account\/describe$/,
    answer: () =>
      json({
        name: "Account",
        label: "Account",
        fields: [
          {
            name: "Name",
            label: "Account Name",
            type: "string",
            nillable: false,
            createable: true,
            updateable: true,
            defaultedOnCreate: false,
            referenceTo: [],
            picklistValues: [],
          },
          {
            name: "Industry",
            label: "Industry",
            type: "picklist",
            nillable: true,
            createable: true,
            updateable: true,
            referenceTo: [],
            picklistValues: [
              { value: "Energy", active: true },
              { value: "Old", active: false },
            ],
          },
        ],
      }),
  },
  {
    method: "GET",
    path: /^\/services\/data\/v62\.0\/sobjects\/Account\/(?<id>\w+)$/,
    answer: (_request, { id }) =>
      id === "001D000000IRFmaIAH"
        ? json(ACCOUNT)
        : json([{ errorCode: "NOT_FOUND", message: "The requested resource does not exist" }], 404),
  },
  {
    method: "POST",
    path: /^\/services\/data\/v62\.0\/sobjects\/Lead$/,
    answer: () => json({ id: "00QD000000bZVLAMA4", success: true, errors: [] }, 201),
  },
  {
    method: "PATCH",
    path: /^\/services\/data\/v62\.0\/sobjects\/Account\/001D000000IRFmaIAH$/,
    answer: (request) =>
      "Phone" in (request.body as object)
        ? json([{ message: "Phone: bad value", errorCode: "FIELD_CUSTOM_VALIDATION_EXCEPTION", fields: ["Phone"] }], 400)
        : new Response(null, { status: 204 }),
  },
  {
    method: "DELETE",
    path: /^\/services\/data\/v62\.0\/sobjects\/Account\/001D000000IRFmaIAH$/,
    answer: () => new Response(null, { status: 204 }),
  },
  {
    method: "POST",
    path: /^\/services\/data\/v62\.0\/sobjects\/ContentVersion$/,
    answer: () => json({ id: "068D00000000pgOIAQ", success: true, errors: [] }, 201),
  },
  {
    method: "GET",
    path: /^\/services\/data\/v62\.0\/sobjects\/ContentVersion\/068D00000000pgOIAQ$/,
    answer: () =>
      json({
        attributes: { type: "ContentVersion" },
        Title: "Q3 plan",
        PathOnClient: "q3-plan.csv",
        FileExtension: "csv",
        ContentSize: 11,
      }),
  },
  {
    method: "GET",
    path: /^\/services\/data\/v62\.0\/sobjects\/ContentVersion\/068D00000000pgOIAQ\/VersionData$/,
    answer: () => new Response("a,b\n1,2\n", { headers: { "content-type": "application/octetstream" } }),
  },
];

const setup = () =>
  setupToolkit({
    slug: "salesforce",
    baseUrl: "https://{instance}.my.salesforce.com",
    tools: salesforceTools,
    params: { instance: "acme" },
    routes,
  });

describe("Salesforce tools", () => {
  it("SALESFORCE_QUERY_RECORDS runs SOQL and follows nextRecordsUrl as the cursor", async () => {
    const sf = await setup();
    const first = await sf.ok("SALESFORCE_QUERY_RECORDS", { query: "SELECT Id, Name FROM Account" });
    expect(first).toEqual({
      totalSize: 3,
      records: [{ type: "Account", Id: "001D000000IRFmaIAH", Name: "Acme" }],
      nextCursor: `${API}/query/01gD0000002HU6KIAW-2000`,
    });
    expect([sf.last().method, sf.last().path, sf.last().query.get("q")]).toEqual(["GET", `${API}/query`, "SELECT Id, Name FROM Account"]);
    const second = await sf.ok("SALESFORCE_QUERY_RECORDS", { cursor: first.nextCursor });
    expect(second).toEqual({ totalSize: 3, records: [{ type: "Account", Id: "001D000000IRFmaIAH", Name: "Beta" }], nextCursor: null });
    expect(sf.last().path).toBe(`${API}/query/01gD0000002HU6KIAW-2000`);
    expect([...sf.last().query]).toEqual([]);
  });

  it("refuses a cursor that is not a query locator, before sending", async () => {
    const sf = await setup();
    const res = await sf.send("SALESFORCE_QUERY_RECORDS", { cursor: "/services/data/v62.0/sobjects/User" });
    expect(res.status).toBe(400);
    expect(sf.received).toEqual([]);
  });

  it("a SOQL error is a failed result naming Salesforce's errorCode and message", async () => {
    const sf = await setup();
    const result = await sf.execute("SALESFORCE_QUERY_RECORDS", { query: "SELECT Id FROM Nothing" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 400 });
    expect(result.error).toBe(
      "Salesforce answered 400: INVALID_TYPE: sObject type 'Nothing' is not supported. Correct the arguments as the message says and call again.",
    );
  });

  it("SALESFORCE_SEARCH_RECORDS sends SOSL and returns the records with their types", async () => {
    const sf = await setup();
    expect(await sf.ok("SALESFORCE_SEARCH_RECORDS", { search: "FIND {Ac*} RETURNING Account(Id, Name), Contact(Id, Name)" })).toEqual({
      records: [
        { type: "Account", Id: "001D000000IRFmaIAH", Name: "Acme" },
        { type: "Contact", Id: "003D000000QV9n2IAD", Name: "Ada" },
      ],
    });
    expect(sf.last().query.get("q")).toBe("FIND {Ac*} RETURNING Account(Id, Name), Contact(Id, Name)");
  });

  it("SALESFORCE_GET_RECORD asks for the fields named; a missing record is a 404 with advice", async () => {
    const sf = await setup();
    expect(await sf.ok("SALESFORCE_GET_RECORD", { object: "Account", id: "001D000000IRFmaIAH", fields: ["Id", "Name"] })).toEqual({
      type: "Account",
      Id: "001D000000IRFmaIAH",
      Name: "Acme",
    });
    expect(sf.last().query.get("fields")).toBe("Id,Name");
    const missing = await sf.execute("SALESFORCE_GET_RECORD", { object: "Account", id: "001D000000IRFmbIAH" });
    expect(missing.error).toMatch(/^Salesforce answered 404: NOT_FOUND: The requested resource does not exist\. Check the object name/);
  });

  it("SALESFORCE_DESCRIBE_OBJECT trims fields to what a write needs", async () => {
    const sf = await setup();
    expect(await sf.ok("SALESFORCE_DESCRIBE_OBJECT", { object: "Account" })).toEqual({
      name: "Account",
      label: "Account",
      fields: [
        {
          name: "Name",
          label: "Account Name",
          type: "string",
          required: true,
          createable: true,
          updateable: true,
          referenceTo: [],
          picklistValues: [],
        },
        {
          name: "Industry",
          label: "Industry",
          type: "picklist",
          required: false,
          createable: true,
          updateable: true,
          referenceTo: [],
          picklistValues: ["Energy"],
        },
      ],
    });
  });

  it("SALESFORCE_CREATE_RECORD posts the fields and returns the id", async () => {
    const sf = await setup();
    expect(await sf.ok("SALESFORCE_CREATE_RECORD", { object: "Lead", fields: { LastName: "Lovelace", Company: "Acme" } })).toEqual({
      id: "00QD000000bZVLAMA4",
    });
    expect([sf.last().method, sf.last().path]).toEqual(["POST", `${API}/sobjects/Lead`]);
    expect(sf.last().body).toEqual({ LastName: "Lovelace", Company: "Acme" });
  });

  it("SALESFORCE_UPDATE_RECORD patches, and a validation error names the field", async () => {
    const sf = await setup();
    expect(await sf.ok("SALESFORCE_UPDATE_RECORD", { object: "Account", id: "001D000000IRFmaIAH", fields: { Name: "Acme Inc" } })).toEqual({
      id: "001D000000IRFmaIAH",
      updated: true,
    });
    expect([sf.last().method, sf.last().body]).toEqual(["PATCH", { Name: "Acme Inc" }]);
    const bad = await sf.execute("SALESFORCE_UPDATE_RECORD", { object: "Account", id: "001D000000IRFmaIAH", fields: { Phone: "x" } });
    expect(bad.error).toContain("FIELD_CUSTOM_VALIDATION_EXCEPTION: Phone: bad value (fields: Phone)");
  });

  it("SALESFORCE_DELETE_RECORD deletes", async () => {
    const sf = await setup();
    expect(await sf.ok("SALESFORCE_DELETE_RECORD", { object: "Account", id: "001D000000IRFmaIAH" })).toEqual({
      id: "001D000000IRFmaIAH",
      deleted: true,
    });
    expect(sf.last().method).toBe("DELETE");
  });

  it("SALESFORCE_UPLOAD_FILE sends a staged file as a ContentVersion with base64 VersionData", async () => {
    const sf = await setup();
    const key = await sf.upload("a,b\n1,2\n", "text/csv", "q3-plan.csv");
    expect(await sf.ok("SALESFORCE_UPLOAD_FILE", { file: key, recordId: "001D000000IRFmaIAH" })).toEqual({
      contentVersionId: "068D00000000pgOIAQ",
    });
    expect(sf.last().body).toEqual({
      Title: "q3-plan",
      PathOnClient: "q3-plan.csv",
      VersionData: Buffer.from("a,b\n1,2\n").toString("base64"),
      FirstPublishLocationId: "001D000000IRFmaIAH",
    });
  });

  it("SALESFORCE_DOWNLOAD_FILE stages VersionData under the file's name", async () => {
    const sf = await setup();
    const data = await sf.ok("SALESFORCE_DOWNLOAD_FILE", { contentVersionId: "068D00000000pgOIAQ" });
    expect(data).toMatchObject({
      contentVersionId: "068D00000000pgOIAQ",
      title: "Q3 plan",
      file: { filename: "q3-plan.csv", contentType: "text/csv" },
    });
    expect(sf.received.map((r) => r.path)).toEqual([
      `${API}/sobjects/ContentVersion/068D00000000pgOIAQ`,
      `${API}/sobjects/ContentVersion/068D00000000pgOIAQ/VersionData`,
    ]);
    const staged = await sf.download(data.file.stagingKey);
    expect(new TextDecoder().decode(staged.bytes)).toBe("a,b\n1,2\n");
  });
});
