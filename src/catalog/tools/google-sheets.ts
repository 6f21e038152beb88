// Google Sheets' curated tools. Facts from the Sheets API v4 reference and guides:
// https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/get (fields mask, sheets.properties)
// https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/create
// https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/batchUpdate (replies, AddSheetRequest)
// https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets.values/batchGet (ranges, valueRanges)
// https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets.values/update (UpdateValuesResponse)
// https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets.values/append (insertDataOption, updates)
// https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets.values/clear (clearedRange)
// https://developers.google.com/workspace/sheets/api/guides/concepts (A1 notation, sheet names in quotes)
// https://developers.google.com/workspace/sheets/api/guides/values (trailing empty rows and columns are left out)
// https://cloud.google.com/apis/design/errors (the error JSON: error.code, error.message, error.status)
import { z } from "zod";
import { defineTool, type Tool } from "../../toolkits/define.js";
import { type ProviderErrors, requestJson, segment } from "../../toolkits/provider-requests.js";
import { cursorArgument, numericCursor, pageSize } from "./arguments.js";

const SHEETS: ProviderErrors = {
  name: "Google Sheets",
  hints: {
    404: "Check the spreadsheet id (the part of its URL between /d/ and /edit) and that the connected account can open it.",
  },
};
const SCOPES = ["https://www.googleapis.com/auth/spreadsheets"];

const spreadsheetId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{10,200}$/, "must be a spreadsheet id")
  .meta({ description: "The spreadsheet's id: the part of its URL between /d/ and /edit." });
const a1Range = z.string().min(1).max(500).meta({
  description:
    "A range in A1 notation with the sheet's name, e.g. `Sheet1!A1:D20` or `'Q3 Budget'!A:C`; a sheet's name alone is all of it.",
});
const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const rows = z
  .array(z.array(cell).max(1000))
  .min(1)
  .max(10_000)
  .meta({ description: 'Rows of cell values, e.g. [["Name", "Total"], ["Ada", 42]]; null leaves a cell as it is.' });
const valueInputOption = z
  .enum(["USER_ENTERED", "RAW"])
  .default("USER_ENTERED")
  .meta({ description: "USER_ENTERED (default) parses values as typed in the UI (formulas, dates, numbers); RAW stores them as given." });

const values = (spreadsheet: string, range: string, suffix = "") =>
  `/spreadsheets/${segment(spreadsheet)}/values/${segment(range)}${suffix}`;

/** A sheet's name quoted for A1 notation: in single quotes, a quote doubled. */
export function quoteSheet(name: string): string {
  return `'${name.replace(/'/g, "''")}'`;
}

interface SheetProperties {
  sheetId: number;
  title: string;
  index: number;
  sheetType?: string;
  gridProperties?: { rowCount?: number; columnCount?: number; frozenRowCount?: number };
}
const sheetSummary = (p: SheetProperties) => ({
  sheetId: p.sheetId,
  title: p.title,
  index: p.index,
  type: p.sheetType ?? "GRID",
  rowCount: p.gridProperties?.rowCount ?? null,
  columnCount: p.gridProperties?.columnCount ?? null,
  frozenRows: p.gridProperties?.frozenRowCount ?? 0,
});
interface Spreadsheet {
  spreadsheetId: string;
  spreadsheetUrl?: string;
  properties?: { title?: string; locale?: string; timeZone?: string };
  sheets?: Array<{ properties: SheetProperties }>;
}
const spreadsheetSummary = (s: Spreadsheet) => ({
  spreadsheetId: s.spreadsheetId,
  title: s.properties?.title ?? null,
  url: s.spreadsheetUrl ?? null,
  locale: s.properties?.locale ?? null,
  timeZone: s.properties?.timeZone ?? null,
  sheets: (s.sheets ?? []).map((sheet) => sheetSummary(sheet.properties)),
});
interface ValueRange {
  range: string;
  majorDimension?: string;
  values?: unknown[][];
}
interface UpdateValues {
  updatedRange?: string;
  updatedRows?: number;
  updatedColumns?: number;
  updatedCells?: number;
}
const updateSummary = (u: UpdateValues | undefined) => ({
  updatedRange: u?.updatedRange ?? null,
  updatedRows: u?.updatedRows ?? 0,
  updatedColumns: u?.updatedColumns ?? 0,
  updatedCells: u?.updatedCells ?? 0,
});

const getSpreadsheet = defineTool({
  slug: "GOOGLESHEETS_GET_SPREADSHEET",
  name: "Get spreadsheet",
  description:
    "Gets a spreadsheet's title, url, locale and time zone and its sheets (tabs): sheetId, title, index, row and column counts. " +
    "Use it first to learn the sheet names that ranges such as `Sheet1!A1:D20` need.",
  input: z.object({ spreadsheetId }),
  annotations: { readOnly: true, idempotent: true },
  scopes: SCOPES,
  async run(args, ctx) {
    const answer = await requestJson<Spreadsheet>(ctx, SHEETS, `/spreadsheets/${segment(args.spreadsheetId)}`, {
      query: {
        fields:
          "spreadsheetId,spreadsheetUrl,properties(title,locale,timeZone),sheets(properties(sheetId,title,index,sheetType,gridProperties(rowCount,columnCount,frozenRowCount)))",
      },
    });
    return spreadsheetSummary(answer);
  },
});

const getValues = defineTool({
  slug: "GOOGLESHEETS_GET_VALUES",
  name: "Read the cells of spreadsheet ranges",
  description:
    "Reads the cell values of one or more A1 ranges (e.g. `Sheet1!A1:D20`, `Summary!B2`) in one call. Returns `valueRanges`: the range " +
    "read and its rows of values (trailing empty rows and cells left out). To read a long sheet row by row, use GOOGLESHEETS_LIST_ROWS.",
  input: z.object({
    spreadsheetId,
    ranges: z.array(a1Range).min(1).max(50).meta({ description: 'A1 ranges to read, e.g. ["Sheet1!A1:D20"].' }),
    valueRenderOption: z
      .enum(["FORMATTED_VALUE", "UNFORMATTED_VALUE", "FORMULA"])
      .default("FORMATTED_VALUE")
      .meta({ description: "FORMATTED_VALUE (default) as displayed, UNFORMATTED_VALUE raw numbers, FORMULA the formulas." }),
  }),
  annotations: { readOnly: true, idempotent: true },
  scopes: SCOPES,
  async run(args, ctx) {
    const answer = await requestJson<{ valueRanges?: ValueRange[] }>(
      ctx,
      SHEETS,
      `/spreadsheets/${segment(args.spreadsheetId)}/values:batchGet`,
      { query: { ranges: args.ranges, majorDimension: "ROWS", valueRenderOption: args.valueRenderOption } },
    );
    return { valueRanges: (answer.valueRanges ?? []).map((r) => ({ range: r.range, values: r.values ?? [] })) };
  },
});

const listRows = defineTool({
  slug: "GOOGLESHEETS_LIST_ROWS",
  name: "List rows of a sheet",
  description:
    "Reads a sheet's rows a page at a time. With `headerRow` (default true) row 1 holds the column names and each row comes back as " +
    "`record` keyed by them. Returns `headers`, `rows` (rowNumber, values, record) and `nextCursor` (null after the last row with data). " +
    "Use rowNumber to address a row in GOOGLESHEETS_UPDATE_VALUES, e.g. `Sheet1!A7`.",
  input: z.object({
    spreadsheetId,
    sheet: z.string().min(1).max(100).meta({ description: "The sheet's (tab's) name, e.g. `Sheet1`." }),
    headerRow: z.boolean().default(true).meta({ description: "Row 1 holds column names (default true)." }),
    lastColumn: z
      .string()
      .regex(/^[A-Za-z]{1,3}$/, "must be a column letter such as Z or AZ")
      .default("ZZ")
      .meta({ description: "The last column to read, e.g. `H` (default ZZ)." }),
    limit: pageSize(1000, 100),
    cursor: cursorArgument,
  }),
  annotations: { readOnly: true, idempotent: true },
  scopes: SCOPES,
  async run(args, ctx) {
    const first = numericCursor(args.cursor, args.headerRow ? 2 : 1);
    const last = first + args.limit - 1;
    const sheet = quoteSheet(args.sheet);
    const column = args.lastColumn.toUpperCase();
    const ranges = [`${sheet}!A${first}:${column}${last}`];
    if (args.headerRow) ranges.unshift(`${sheet}!A1:${column}1`);
    const answer = await requestJson<{ valueRanges?: ValueRange[] }>(
      ctx,
      SHEETS,
      `/spreadsheets/${segment(args.spreadsheetId)}/values:batchGet`,
      { query: { ranges, majorDimension: "ROWS", valueRenderOption: "FORMATTED_VALUE" } },
    );
    const found = answer.valueRanges ?? [];
    const headers = args.headerRow ? ((found[0]?.values?.[0] ?? []) as unknown[]).map(String) : [];
    const data = (args.headerRow ? found[1] : found[0])?.values ?? [];
    return {
      headers,
      rows: data.map((row, i) => ({
        rowNumber: first + i,
        values: row,
        ...(args.headerRow ? { record: Object.fromEntries(headers.map((name, c) => [name || `column${c + 1}`, row[c] ?? null])) } : {}),
      })),
      // Sheets leaves trailing empty rows out, so a short page is the last one.
      nextCursor: data.length === args.limit ? String(last + 1) : null,
    };
  },
});

const updateValues = defineTool({
  slug: "GOOGLESHEETS_UPDATE_VALUES",
  name: "Write values to spreadsheet cells",
  description:
    "Writes rows of values into a range, starting at its top-left cell, replacing what is there (e.g. range `Sheet1!B2` with " +
    "[[1, 2], [3, 4]] fills B2:C3). Values are parsed as typed in the UI unless `valueInputOption` is RAW. Returns the range and " +
    "the number of rows, columns and cells updated.",
  input: z.object({ spreadsheetId, range: a1Range, values: rows, valueInputOption }),
  annotations: { readOnly: false, destructive: true, idempotent: true },
  scopes: SCOPES,
  async run(args, ctx) {
    const answer = await requestJson<UpdateValues>(ctx, SHEETS, values(args.spreadsheetId, args.range), {
      method: "PUT",
      query: { valueInputOption: args.valueInputOption },
      json: { range: args.range, majorDimension: "ROWS", values: args.values },
    });
    return updateSummary(answer);
  },
});

const appendRows = defineTool({
  slug: "GOOGLESHEETS_APPEND_ROWS",
  name: "Append rows to a spreadsheet",
  description:
    "Adds rows after the last row of the table found in a range (e.g. `Sheet1` or `Sheet1!A:D`), inserting new rows so nothing is " +
    "overwritten. Returns the table's range and the range, rows and cells written.",
  input: z.object({ spreadsheetId, range: a1Range, values: rows, valueInputOption }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  scopes: SCOPES,
  async run(args, ctx) {
    const answer = await requestJson<{ tableRange?: string; updates?: UpdateValues }>(
      ctx,
      SHEETS,
      values(args.spreadsheetId, args.range, ":append"),
      {
        method: "POST",
        query: { valueInputOption: args.valueInputOption, insertDataOption: "INSERT_ROWS" },
        json: { majorDimension: "ROWS", values: args.values },
      },
    );
    return { tableRange: answer.tableRange ?? null, ...updateSummary(answer.updates) };
  },
});

const clearValues = defineTool({
  slug: "GOOGLESHEETS_CLEAR_VALUES",
  name: "Clear values of a range",
  description: "Empties the cells of a range (values only; formatting stays), e.g. `Sheet1!A2:D100`. Returns the range cleared.",
  input: z.object({ spreadsheetId, range: a1Range }),
  annotations: { readOnly: false, destructive: true, idempotent: true },
  scopes: SCOPES,
  async run(args, ctx) {
    const answer = await requestJson<{ clearedRange?: string }>(ctx, SHEETS, values(args.spreadsheetId, args.range, ":clear"), {
      method: "POST",
      json: {},
    });
    return { clearedRange: answer.clearedRange ?? null };
  },
});

const createSpreadsheet = defineTool({
  slug: "GOOGLESHEETS_CREATE_SPREADSHEET",
  name: "Create spreadsheet",
  description:
    "Creates a spreadsheet in the account's My Drive, with the sheets (tabs) named in `sheets` or one `Sheet1`. Returns its id, url and sheets.",
  input: z.object({
    title: z.string().min(1).max(255).meta({ description: "The spreadsheet's title." }),
    sheets: z.array(z.string().min(1).max(100)).max(50).optional().meta({ description: "Names of the sheets to create, in order." }),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  scopes: SCOPES,
  async run(args, ctx) {
    const answer = await requestJson<Spreadsheet>(ctx, SHEETS, "/spreadsheets", {
      method: "POST",
      json: { properties: { title: args.title }, sheets: args.sheets?.map((title) => ({ properties: { title } })) },
    });
    return spreadsheetSummary(answer);
  },
});

const addSheet = defineTool({
  slug: "GOOGLESHEETS_ADD_SHEET",
  name: "Add sheet",
  description: "Adds a sheet (tab) to a spreadsheet. Returns its sheetId, title, index and size.",
  input: z.object({
    spreadsheetId,
    title: z.string().min(1).max(100).meta({ description: "The new sheet's name; it must differ from the others." }),
    rowCount: z.number().int().min(1).max(1_000_000).optional().meta({ description: "Rows (default 1000)." }),
    columnCount: z.number().int().min(1).max(18_278).optional().meta({ description: "Columns (default 26)." }),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  scopes: SCOPES,
  async run(args, ctx) {
    const grid = args.rowCount || args.columnCount ? { rowCount: args.rowCount, columnCount: args.columnCount } : undefined;
    const answer = await requestJson<{ replies?: Array<{ addSheet?: { properties: SheetProperties } }> }>(
      ctx,
      SHEETS,
      `/spreadsheets/${segment(args.spreadsheetId)}:batchUpdate`,
      { method: "POST", json: { requests: [{ addSheet: { properties: { title: args.title, gridProperties: grid } } }] } },
    );
    const properties = answer.replies?.[0]?.addSheet?.properties;
    return properties ? sheetSummary(properties) : { title: args.title };
  },
});

/** Google Sheets' curated tools: spreadsheets and sheets, reading ranges and rows, writing, appending and clearing values. */
export const googleSheetsTools: Tool[] = [
  getSpreadsheet,
  getValues,
  listRows,
  updateValues,
  appendRows,
  clearValues,
  createSpreadsheet,
  addSheet,
];
