/**
 * Google Docs' curated tools over an emulation of the Docs API v1. Answer shapes follow Google's reference:
 * https://developers.google.com/workspace/docs/api/reference/rest/v1/documents/get
 * https://developers.google.com/workspace/docs/api/reference/rest/v1/documents/create
 * https://developers.google.com/workspace/docs/api/reference/rest/v1/documents/batchUpdate
 * https://developers.google.com/workspace/docs/api/concepts/structure
 * https://cloud.google.com/apis/design/errors
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { googleDocsTools } from "../../../src/catalog/tools/google-docs.js";
import { expectAuthorized, reply, toolkitHarness } from "./support.js";

const API = "https://docs.googleapis.com/v1";
const ID = "195j9eDD3ccgjQRttHhJPymLJUCOUjs-jmwTrekvdjFE";
let t: Awaited<ReturnType<typeof toolkitHarness>>;

beforeAll(async () => {
  t = await toolkitHarness({ slug: "google-docs", name: "Google Docs", baseUrl: API, tools: googleDocsTools });
});
afterAll(() => t.close());

const paragraph = (startIndex: number, text: string, style = "NORMAL_TEXT") => ({
  startIndex,
  endIndex: startIndex + text.length,
  paragraph: {
    elements: [{ startIndex, endIndex: startIndex + text.length, textRun: { content: text, textStyle: {} } }],
    paragraphStyle: { namedStyleType: style },
  },
});

const document = {
  documentId: ID,
  title: "Plan",
  revisionId: "rev-1",
  body: {
    content: [
      { endIndex: 1, sectionBreak: { sectionStyle: {} } },
      paragraph(1, "Plan\n", "TITLE"),
      paragraph(6, "Intro text.\n"),
      {
        startIndex: 18,
        endIndex: 30,
        table: {
          rows: 1,
          columns: 2,
          tableRows: [{ tableCells: [{ content: [paragraph(20, "A1\n")] }, { content: [paragraph(24, "B1\n")] }] }],
        },
      },
      paragraph(30, "End.\n"),
    ],
  },
};

const batchReply = (replies: unknown[] = [{}]) => reply({ documentId: ID, replies, writeControl: { requiredRevisionId: "rev-2" } });

describe("GOOGLEDOCS_GET_DOCUMENT", () => {
  it("returns paragraphs with their indexes and styles, table cells included, a page at a time", async () => {
    t.api.answer(() => reply(document));
    const first = await t.execute("GOOGLEDOCS_GET_DOCUMENT", { documentId: ID, limit: 3 });
    expect(first.successful, first.error ?? "").toBe(true);
    expect(t.api.sent[0]!.method).toBe("GET");
    expect(t.api.sent[0]!.url.href).toBe(`${API}/documents/${ID}`);
    expectAuthorized(t.api.sent);
    expect(first.data).toMatchObject({ documentId: ID, title: "Plan", revisionId: "rev-1", endIndex: 35, nextCursor: "3" });
    expect(first.data.paragraphs).toEqual([
      { startIndex: 1, endIndex: 6, style: "TITLE", inTable: false, text: "Plan" },
      { startIndex: 6, endIndex: 18, style: "NORMAL_TEXT", inTable: false, text: "Intro text." },
      { startIndex: 20, endIndex: 23, style: "NORMAL_TEXT", inTable: true, text: "A1" },
    ]);
    const second = await t.execute("GOOGLEDOCS_GET_DOCUMENT", { documentId: ID, limit: 3, cursor: "3" });
    expect(second.data.paragraphs.map((p: { text: string }) => p.text)).toEqual(["B1", "End."]);
    expect(second.data.nextCursor).toBeNull();
  });

  it("reports Google's 403 with its message", async () => {
    t.api.answer(() => reply({ error: { code: 403, message: "The caller does not have permission", status: "PERMISSION_DENIED" } }, 403));
    const result = await t.execute("GOOGLEDOCS_GET_DOCUMENT", { documentId: ID });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 403 });
    expect(result.error).toMatch(
      /^Google Docs answered 403: The caller does not have permission\. The Google Docs connection lacks a permission/,
    );
  });
});

describe("editing", () => {
  it("GOOGLEDOCS_CREATE_DOCUMENT creates it, then inserts the text at index 1", async () => {
    t.api.answer((request) =>
      request.url.pathname.endsWith(":batchUpdate") ? batchReply() : reply({ documentId: ID, title: "Notes", revisionId: "rev-1" }),
    );
    const result = await t.execute("GOOGLEDOCS_CREATE_DOCUMENT", { title: "Notes", text: "Hello\n" });
    expect(t.api.sent.map((r) => `${r.method} ${r.url.pathname}`)).toEqual(["POST /v1/documents", `POST /v1/documents/${ID}:batchUpdate`]);
    expect(t.api.sent[0]!.json()).toEqual({ title: "Notes" });
    expect(t.api.sent[1]!.json()).toEqual({ requests: [{ insertText: { location: { index: 1 }, text: "Hello\n" } }] });
    expect(result.data).toEqual({
      documentId: ID,
      title: "Notes",
      url: `https://docs.google.com/document/d/${ID}/edit`,
      revisionId: "rev-2",
    });
  });

  it("GOOGLEDOCS_INSERT_TEXT appends at the end without an index, and keeps to a revision when asked", async () => {
    t.api.answer(() => batchReply());
    await t.execute("GOOGLEDOCS_INSERT_TEXT", { documentId: ID, text: "More.\n" });
    expect(t.api.sent[0]!.json()).toEqual({ requests: [{ insertText: { endOfSegmentLocation: {}, text: "More.\n" } }] });
    await t.execute("GOOGLEDOCS_INSERT_TEXT", { documentId: ID, text: "First. ", index: 6, requiredRevisionId: "rev-1" });
    expect(t.api.sent[1]!.json()).toEqual({
      requests: [{ insertText: { location: { index: 6 }, text: "First. " } }],
      writeControl: { requiredRevisionId: "rev-1" },
    });
  });

  it("GOOGLEDOCS_REPLACE_TEXT returns the occurrences changed", async () => {
    t.api.answer(() => batchReply([{ replaceAllText: { occurrencesChanged: 3 } }]));
    const result = await t.execute("GOOGLEDOCS_REPLACE_TEXT", { documentId: ID, find: "{{name}}", replaceWith: "Ada" });
    expect(t.api.sent[0]!.url.pathname).toBe(`/v1/documents/${ID}:batchUpdate`);
    expect(t.api.sent[0]!.json()).toEqual({
      requests: [{ replaceAllText: { containsText: { text: "{{name}}", matchCase: true }, replaceText: "Ada" } }],
    });
    expect(result.data).toEqual({ documentId: ID, occurrencesChanged: 3, revisionId: "rev-2" });
  });

  it("GOOGLEDOCS_DELETE_CONTENT deletes a range", async () => {
    t.api.answer(() => batchReply());
    await t.execute("GOOGLEDOCS_DELETE_CONTENT", { documentId: ID, startIndex: 6, endIndex: 18 });
    expect(t.api.sent[0]!.json()).toEqual({ requests: [{ deleteContentRange: { range: { startIndex: 6, endIndex: 18 } } }] });
  });

  it("GOOGLEDOCS_FORMAT_TEXT sends only the properties given, with their field mask", async () => {
    t.api.answer(() => batchReply([{}, {}]));
    const result = await t.execute("GOOGLEDOCS_FORMAT_TEXT", {
      documentId: ID,
      startIndex: 1,
      endIndex: 5,
      bold: true,
      link: "https://example.com/",
      paragraphStyle: "HEADING_1",
    });
    const range = { startIndex: 1, endIndex: 5 };
    expect(t.api.sent[0]!.json()).toEqual({
      requests: [
        { updateTextStyle: { range, textStyle: { bold: true, link: { url: "https://example.com/" } }, fields: "bold,link" } },
        { updateParagraphStyle: { range, paragraphStyle: { namedStyleType: "HEADING_1" }, fields: "namedStyleType" } },
      ],
    });
    expect(result.data).toEqual({ documentId: ID, revisionId: "rev-2", changed: true });
  });

  it("reports a batchUpdate refused for a stale revision", async () => {
    t.api.answer(() =>
      reply(
        {
          error: {
            code: 400,
            message: "The required revision ID 'rev-1' does not match the latest revision.",
            status: "FAILED_PRECONDITION",
          },
        },
        400,
      ),
    );
    const result = await t.execute("GOOGLEDOCS_DELETE_CONTENT", {
      documentId: ID,
      startIndex: 1,
      endIndex: 2,
      requiredRevisionId: "rev-1",
    });
    expect(result).toMatchObject({ successful: false, upstreamStatus: 400 });
    expect(result.error).toMatch(/does not match the latest revision/);
  });
});
