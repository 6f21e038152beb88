/**
 * Google Sheets' curated tools over an emulation of the Sheets API v4. Answer shapes follow Google's reference:
 * https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/get
 * https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets.values/batchGet
 * https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets.values/update
 * https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets.values/append
 * https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets.values/clear
 * https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/batchUpdate
 * https://cloud.google.com/apis/design/errors (error.code, error.message, error.status)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { googleSheetsTools } from "../../../src/catalog/tools/google-sheets.js";
import { expectAuthorized, reply, toolkitHarness } from "./support.js";

const API = "https://sheets.googleapis.com/v4";
const ID = "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms";
let t: Awaited<ReturnType<typeof toolkitHarness>>;

beforeAll(async () => {
  t = await toolkitHarness({ slug: "google-sheets", name: "Google Sheets", baseUrl: API, tools: googleSheetsTools });
});
afterAll(() => t.close());

const sheet = (sheetId: number, title: string, index: number) => ({
  properties: { sheetId, title, index, sheetType: "GRID", gridProperties: { rowCount: 1000, columnCount: 26 } },
});

describe("spreadsheets", () => {
  it("GOOGLESHEETS_GET_SPREADSHEET asks for the fields it returns", async () => {
    t.api.answer(() =>
      reply({
        spreadsheetId: ID,
        spreadsheetUrl: `https://docs.google.com/spreadsheets/d/${ID}/edit`,
        properties: { title: "Budget", locale: "en_US", timeZone: "Europe/Paris" },
        sheets: [sheet(0, "Sheet1", 0), sheet(42, "Q3 Budget", 1)],
      }),
    );
    const result = await t.execute("GOOGLESHEETS_GET_SPREADSHEET", { spreadsheetId: ID });
    expect(result.successful, result.error ?? "").toBe(true);
    const [request] = t.api.sent;
    expect(request!.method).toBe("GET");
    expect(request!.url.pathname).toBe(`/v4/spreadsheets/${ID}`);
    expect(request!.url.searchParams.get("fields")).toMatch(/^spreadsheetId,spreadsheetUrl,properties\(title/);
    expectAuthorized(t.api.sent);
    expect(result.data).toMatchObject({ spreadsheetId: ID, title: "Budget", timeZone: "Europe/Paris" });
    expect(result.data.sheets[1]).toEqual({
      sheetId: 42,
      title: "Q3 Budget",
      index: 1,
      type: "GRID",
      rowCount: 1000,
      columnCount: 26,
      frozenRows: 0,
    });
  });

  it("GOOGLESHEETS_CREATE_SPREADSHEET posts the title and sheet names", async () => {
    t.api.answer(() => reply({ spreadsheetId: ID, properties: { title: "Plan" }, sheets: [sheet(0, "Tasks", 0)] }));
    const result = await t.execute("GOOGLESHEETS_CREATE_SPREADSHEET", { title: "Plan", sheets: ["Tasks"] });
    expect(t.api.sent[0]!.method).toBe("POST");
    expect(t.api.sent[0]!.url.pathname).toBe("/v4/spreadsheets");
    expect(t.api.sent[0]!.json()).toEqual({ properties: { title: "Plan" }, sheets: [{ properties: { title: "Tasks" } }] });
    expect(result.data).toMatchObject({ spreadsheetId: ID, title: "Plan", sheets: [{ title: "Tasks" }] });
  });

  it("GOOGLESHEETS_ADD_SHEET sends an addSheet request and returns the reply's properties", async () => {
    t.api.answer(() => reply({ spreadsheetId: ID, replies: [{ addSheet: sheet(7, "Archive", 2) }] }));
    const result = await t.execute("GOOGLESHEETS_ADD_SHEET", { spreadsheetId: ID, title: "Archive", rowCount: 50 });
    expect(t.api.sent[0]!.url.pathname).toBe(`/v4/spreadsheets/${ID}:batchUpdate`);
    expect(t.api.sent[0]!.json()).toEqual({
      requests: [{ addSheet: { properties: { title: "Archive", gridProperties: { rowCount: 50 } } } }],
    });
    expect(result.data).toMatchObject({ sheetId: 7, title: "Archive", index: 2 });
  });
});

describe("values", () => {
  it("GOOGLESHEETS_GET_VALUES reads several ranges with batchGet", async () => {
    t.api.answer(() =>
      reply({
        spreadsheetId: ID,
        valueRanges: [
          {
            range: "Sheet1!A1:B2",
            majorDimension: "ROWS",
            values: [
              ["Name", "Total"],
              ["Ada", "42"],
            ],
          },
          { range: "Summary!B2", majorDimension: "ROWS" },
        ],
      }),
    );
    const result = await t.execute("GOOGLESHEETS_GET_VALUES", { spreadsheetId: ID, ranges: ["Sheet1!A1:B2", "Summary!B2"] });
    const url = t.api.sent[0]!.url;
    expect(url.pathname).toBe(`/v4/spreadsheets/${ID}/values:batchGet`);
    expect(url.searchParams.getAll("ranges")).toEqual(["Sheet1!A1:B2", "Summary!B2"]);
    expect(url.searchParams.get("valueRenderOption")).toBe("FORMATTED_VALUE");
    expect(result.data.valueRanges).toEqual([
      {
        range: "Sheet1!A1:B2",
        values: [
          ["Name", "Total"],
          ["Ada", "42"],
        ],
      },
      { range: "Summary!B2", values: [] },
    ]);
  });

  it("GOOGLESHEETS_LIST_ROWS pages through rows keyed by the header row", async () => {
    t.api.answer((request) => {
      const ranges = request.url.searchParams.getAll("ranges");
      const data = ranges[1] === "'Q3 Budget'!A2:ZZ3" ? [["Ada", "42"], ["Grace"]] : [["Linus", "7"]];
      return reply({
        spreadsheetId: ID,
        valueRanges: [
          { range: ranges[0], values: [["Name", "Total"]] },
          { range: ranges[1], values: data },
        ],
      });
    });
    const first = await t.execute("GOOGLESHEETS_LIST_ROWS", { spreadsheetId: ID, sheet: "Q3 Budget", limit: 2 });
    expect(t.api.sent[0]!.url.searchParams.getAll("ranges")).toEqual(["'Q3 Budget'!A1:ZZ1", "'Q3 Budget'!A2:ZZ3"]);
    expect(first.data).toEqual({
      headers: ["Name", "Total"],
      rows: [
        { rowNumber: 2, values: ["Ada", "42"], record: { Name: "Ada", Total: "42" } },
        { rowNumber: 3, values: ["Grace"], record: { Name: "Grace", Total: null } },
      ],
      nextCursor: "4",
    });
    const second = await t.execute("GOOGLESHEETS_LIST_ROWS", {
      spreadsheetId: ID,
      sheet: "Q3 Budget",
      limit: 2,
      cursor: first.data.nextCursor,
    });
    expect(t.api.sent[1]!.url.searchParams.getAll("ranges")[1]).toBe("'Q3 Budget'!A4:ZZ5");
    expect(second.data.rows).toEqual([{ rowNumber: 4, values: ["Linus", "7"], record: { Name: "Linus", Total: "7" } }]);
    expect(second.data.nextCursor).toBeNull();
  });

  it("GOOGLESHEETS_LIST_ROWS refuses a cursor it did not give", async () => {
    t.api.answer(() => reply({}));
    const result = await t.execute("GOOGLESHEETS_LIST_ROWS", { spreadsheetId: ID, sheet: "Sheet1", cursor: "A5" });
    expect(result).toMatchObject({ successful: false, code: "invalid_arguments" });
    expect(t.api.sent).toHaveLength(0);
  });

  it("GOOGLESHEETS_UPDATE_VALUES puts the rows into the range", async () => {
    t.api.answer(() => reply({ spreadsheetId: ID, updatedRange: "Sheet1!B2:C3", updatedRows: 2, updatedColumns: 2, updatedCells: 4 }));
    const result = await t.execute("GOOGLESHEETS_UPDATE_VALUES", {
      spreadsheetId: ID,
      range: "Sheet1!B2",
      values: [
        [1, 2],
        [3, "=A1"],
      ],
    });
    const [request] = t.api.sent;
    expect(request!.method).toBe("PUT");
    expect(request!.url.pathname).toBe(`/v4/spreadsheets/${ID}/values/Sheet1!B2`);
    expect(request!.url.searchParams.get("valueInputOption")).toBe("USER_ENTERED");
    expect(request!.json()).toEqual({
      range: "Sheet1!B2",
      majorDimension: "ROWS",
      values: [
        [1, 2],
        [3, "=A1"],
      ],
    });
    expect(result.data).toEqual({ updatedRange: "Sheet1!B2:C3", updatedRows: 2, updatedColumns: 2, updatedCells: 4 });
  });

  it("GOOGLESHEETS_APPEND_ROWS appends with INSERT_ROWS", async () => {
    t.api.answer(() =>
      reply({
        spreadsheetId: ID,
        tableRange: "Sheet1!A1:B3",
        updates: { spreadsheetId: ID, updatedRange: "Sheet1!A4:B4", updatedRows: 1, updatedColumns: 2, updatedCells: 2 },
      }),
    );
    const result = await t.execute("GOOGLESHEETS_APPEND_ROWS", {
      spreadsheetId: ID,
      range: "Sheet1",
      values: [["Ada", 42]],
      valueInputOption: "RAW",
    });
    const url = t.api.sent[0]!.url;
    expect(t.api.sent[0]!.method).toBe("POST");
    expect(url.pathname).toBe(`/v4/spreadsheets/${ID}/values/Sheet1:append`);
    expect(Object.fromEntries(url.searchParams)).toEqual({ valueInputOption: "RAW", insertDataOption: "INSERT_ROWS" });
    expect(t.api.sent[0]!.json()).toEqual({ majorDimension: "ROWS", values: [["Ada", 42]] });
    expect(result.data).toEqual({
      tableRange: "Sheet1!A1:B3",
      updatedRange: "Sheet1!A4:B4",
      updatedRows: 1,
      updatedColumns: 2,
      updatedCells: 2,
    });
  });

  it("GOOGLESHEETS_CLEAR_VALUES clears a quoted range, encoded in the path", async () => {
    t.api.answer(() => reply({ spreadsheetId: ID, clearedRange: "'Q3 Budget'!A2:D100" }));
    const result = await t.execute("GOOGLESHEETS_CLEAR_VALUES", { spreadsheetId: ID, range: "'Q3 Budget'!A2:D100" });
    expect(t.api.sent[0]!.method).toBe("POST");
    expect(t.api.sent[0]!.url.pathname).toBe(`/v4/spreadsheets/${ID}/values/'Q3%20Budget'!A2%3AD100:clear`);
    expect(result.data).toEqual({ clearedRange: "'Q3 Budget'!A2:D100" });
  });

  it("reports Google's error JSON with its message and what to do", async () => {
    t.api.answer(() => reply({ error: { code: 400, message: "Unable to parse range: Nope!A1", status: "INVALID_ARGUMENT" } }, 400));
    const result = await t.execute("GOOGLESHEETS_GET_VALUES", { spreadsheetId: ID, ranges: ["Nope!A1"] });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 400, data: null });
    expect(result.error).toMatch(/^Google Sheets answered 400: Unable to parse range: Nope!A1\. Correct the arguments/);
  });

  it("says where to find the spreadsheet id on a 404", async () => {
    t.api.answer(() => reply({ error: { code: 404, message: "Requested entity was not found.", status: "NOT_FOUND" } }, 404));
    const result = await t.execute("GOOGLESHEETS_GET_SPREADSHEET", { spreadsheetId: ID });
    expect(result.error).toMatch(/Requested entity was not found\. Check the spreadsheet id/);
  });
});
