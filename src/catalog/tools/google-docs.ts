// Google Docs' curated tools. Facts from the Docs API v1 reference and guides:
// https://developers.google.com/workspace/docs/api/reference/rest/v1/documents/get (Document, body.content, revisionId)
// https://developers.google.com/workspace/docs/api/reference/rest/v1/documents/create (only the title is used)
// https://developers.google.com/workspace/docs/api/reference/rest/v1/documents/batchUpdate (replies, writeControl)
// https://developers.google.com/workspace/docs/api/reference/rest/v1/documents/request (InsertText, ReplaceAllText,
//   DeleteContentRange, UpdateTextStyle, UpdateParagraphStyle; EndOfSegmentLocation)
// https://developers.google.com/workspace/docs/api/concepts/structure (StructuralElement, Paragraph, TextRun, Table, indexes)
// https://developers.google.com/workspace/docs/api/how-tos/move-text (indexes are UTF-16 code units, the body starts at 1)
// https://cloud.google.com/apis/design/errors (the error JSON: error.code, error.message, error.status)
import { z } from "zod";
import { defineTool, type Tool, type ToolContext } from "../../toolkits/define.js";
import { type ProviderErrors, requestJson, segment } from "../../toolkits/provider-requests.js";
import { cursorArgument, numericCursor, pageSize } from "./arguments.js";

const DOCS: ProviderErrors = {
  name: "Google Docs",
  hints: {
    404: "Check the document id (the part of its URL between /d/ and /edit) and that the connected account can open it.",
  },
};
const SCOPES = ["https://www.googleapis.com/auth/documents"];

const documentId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{10,200}$/, "must be a document id")
  .meta({ description: "The document's id: the part of its URL between /d/ and /edit." });
const index = (what: string) => z.number().int().min(1).meta({ description: what });

interface TextRun {
  content?: string;
}
interface Paragraph {
  elements?: Array<{ textRun?: TextRun }>;
  paragraphStyle?: { namedStyleType?: string };
}
interface StructuralElement {
  startIndex?: number;
  endIndex?: number;
  paragraph?: Paragraph;
  table?: { tableRows?: Array<{ tableCells?: Array<{ content?: StructuralElement[] }> }> };
  tableOfContents?: { content?: StructuralElement[] };
}
interface Document {
  documentId: string;
  title?: string;
  revisionId?: string;
  body?: { content?: StructuralElement[] };
}

interface ParagraphLine {
  startIndex: number;
  endIndex: number;
  style: string;
  inTable: boolean;
  text: string;
}

/** The document's paragraphs in reading order, those of tables and tables of contents included. */
export function paragraphsOf(content: StructuralElement[] = [], inTable = false): ParagraphLine[] {
  return content.flatMap((element): ParagraphLine[] => {
    if (element.paragraph) {
      const text = (element.paragraph.elements ?? []).map((part) => part.textRun?.content ?? "").join("");
      return [
        {
          startIndex: element.startIndex ?? 0,
          endIndex: element.endIndex ?? 0,
          style: element.paragraph.paragraphStyle?.namedStyleType ?? "NORMAL_TEXT",
          inTable,
          text: text.replace(/\n$/, ""),
        },
      ];
    }
    if (element.table) {
      return (element.table.tableRows ?? []).flatMap((row) => (row.tableCells ?? []).flatMap((cell) => paragraphsOf(cell.content, true)));
    }
    if (element.tableOfContents) return paragraphsOf(element.tableOfContents.content, inTable);
    return [];
  });
}

const urlOf = (id: string) => `https://docs.google.com/document/d/${id}/edit`;

/** Sends batchUpdate requests and returns the replies with the revision the document is at after them. */
async function batchUpdate(ctx: ToolContext, id: string, requests: unknown[], requiredRevisionId?: string) {
  const answer = await requestJson<{ replies?: unknown[]; writeControl?: { requiredRevisionId?: string } }>(
    ctx,
    DOCS,
    `/documents/${segment(id)}:batchUpdate`,
    {
      method: "POST",
      json: { requests, ...(requiredRevisionId ? { writeControl: { requiredRevisionId } } : {}) },
    },
  );
  return { replies: answer.replies ?? [], revisionId: answer.writeControl?.requiredRevisionId ?? null };
}

const revision = z
  .string()
  .max(200)
  .optional()
  .meta({ description: "The revisionId GOOGLEDOCS_GET_DOCUMENT returned: the edit fails if the document changed since." });

const getDocument = defineTool({
  slug: "GOOGLEDOCS_GET_DOCUMENT",
  name: "Get document",
  description:
    "Reads a document's text as paragraphs, a page at a time: each with its style (NORMAL_TEXT, TITLE, HEADING_1...), whether it sits " +
    "in a table, its text and its startIndex and endIndex, the positions the editing tools take. Returns the title, revisionId, url, " +
    "`paragraphs` and `nextCursor` (null at the end); a document with tabs is read from its first tab. To find documents, search Drive for mimeType `application/vnd.google-apps.document`.",
  input: z.object({ documentId, limit: pageSize(1000, 200), cursor: cursorArgument }),
  annotations: { readOnly: true, idempotent: true },
  scopes: SCOPES,
  async run(args, ctx) {
    const document = await requestJson<Document>(ctx, DOCS, `/documents/${segment(args.documentId)}`);
    const paragraphs = paragraphsOf(document.body?.content);
    const start = numericCursor(args.cursor, 0);
    const end = start + args.limit;
    return {
      documentId: document.documentId,
      title: document.title ?? null,
      revisionId: document.revisionId ?? null,
      url: urlOf(document.documentId),
      endIndex: document.body?.content?.at(-1)?.endIndex ?? 1,
      paragraphs: paragraphs.slice(start, end),
      nextCursor: end < paragraphs.length ? String(end) : null,
    };
  },
});

const createDocument = defineTool({
  slug: "GOOGLEDOCS_CREATE_DOCUMENT",
  name: "Create document",
  description:
    "Creates a document in the account's My Drive with a title and, optionally, initial plain text (paragraphs separated by newlines). " +
    "Returns its documentId, title and url.",
  input: z.object({
    title: z.string().min(1).max(255).meta({ description: "The document's title." }),
    text: z.string().max(1_000_000).optional().meta({ description: "Plain text to put in the new document." }),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  scopes: SCOPES,
  async run(args, ctx) {
    const document = await requestJson<Document>(ctx, DOCS, "/documents", { method: "POST", json: { title: args.title } });
    let revisionId = document.revisionId ?? null;
    if (args.text) {
      revisionId = (await batchUpdate(ctx, document.documentId, [{ insertText: { location: { index: 1 }, text: args.text } }])).revisionId;
    }
    return { documentId: document.documentId, title: document.title ?? args.title, url: urlOf(document.documentId), revisionId };
  },
});

const insertText = defineTool({
  slug: "GOOGLEDOCS_INSERT_TEXT",
  name: "Insert text",
  description:
    "Inserts plain text at an index (a paragraph's startIndex from GOOGLEDOCS_GET_DOCUMENT puts it before that paragraph) or, " +
    "without one, at the end of the document. End the text with a newline to make it a paragraph of its own. Returns the new revisionId.",
  input: z.object({
    documentId,
    text: z.string().min(1).max(1_000_000).meta({ description: "The text; newlines start new paragraphs." }),
    index: index("Where to insert (1 is the start of the body); the end of the document when left out.").optional(),
    requiredRevisionId: revision,
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  scopes: SCOPES,
  async run(args, ctx) {
    const location = args.index === undefined ? { endOfSegmentLocation: {} } : { location: { index: args.index } };
    const { revisionId } = await batchUpdate(
      ctx,
      args.documentId,
      [{ insertText: { ...location, text: args.text } }],
      args.requiredRevisionId,
    );
    return { documentId: args.documentId, revisionId };
  },
});

const replaceText = defineTool({
  slug: "GOOGLEDOCS_REPLACE_TEXT",
  name: "Replace text",
  description:
    "Replaces every occurrence of a text in the document (e.g. a `{{name}}` placeholder) with another; an empty replacement deletes " +
    "them. Returns how many occurrences changed.",
  input: z.object({
    documentId,
    find: z.string().min(1).max(10_000).meta({ description: "The text to find." }),
    replaceWith: z.string().max(100_000).meta({ description: "The text to put in its place; empty deletes it." }),
    matchCase: z.boolean().default(true).meta({ description: "Match upper and lower case exactly (default true)." }),
    requiredRevisionId: revision,
  }),
  annotations: { readOnly: false, destructive: true, idempotent: false },
  scopes: SCOPES,
  async run(args, ctx) {
    const { replies, revisionId } = await batchUpdate(
      ctx,
      args.documentId,
      [{ replaceAllText: { containsText: { text: args.find, matchCase: args.matchCase }, replaceText: args.replaceWith } }],
      args.requiredRevisionId,
    );
    const changed = (replies[0] as { replaceAllText?: { occurrencesChanged?: number } } | undefined)?.replaceAllText?.occurrencesChanged;
    return { documentId: args.documentId, occurrencesChanged: changed ?? 0, revisionId };
  },
});

const deleteContent = defineTool({
  slug: "GOOGLEDOCS_DELETE_CONTENT",
  name: "Delete content",
  description:
    "Deletes the content between two indexes (from GOOGLEDOCS_GET_DOCUMENT: a paragraph's startIndex and endIndex delete it whole). " +
    "The last newline of the body cannot be deleted. Returns the new revisionId.",
  input: z.object({
    documentId,
    startIndex: index("First position to delete."),
    endIndex: index("Position after the last one to delete."),
    requiredRevisionId: revision,
  }),
  annotations: { readOnly: false, destructive: true, idempotent: false },
  scopes: SCOPES,
  async run(args, ctx) {
    const range = { startIndex: args.startIndex, endIndex: args.endIndex };
    const { revisionId } = await batchUpdate(ctx, args.documentId, [{ deleteContentRange: { range } }], args.requiredRevisionId);
    return { documentId: args.documentId, revisionId };
  },
});

const HEADINGS = [
  "NORMAL_TEXT",
  "TITLE",
  "SUBTITLE",
  "HEADING_1",
  "HEADING_2",
  "HEADING_3",
  "HEADING_4",
  "HEADING_5",
  "HEADING_6",
] as const;

const formatText = defineTool({
  slug: "GOOGLEDOCS_FORMAT_TEXT",
  name: "Format text",
  description:
    "Formats the text between two indexes: bold, italic, underline, a link, and the paragraph style of the paragraphs it touches " +
    "(a heading level, title or normal text). Only the properties given change. Returns the new revisionId.",
  input: z.object({
    documentId,
    startIndex: index("First position to format."),
    endIndex: index("Position after the last one to format."),
    bold: z.boolean().optional().meta({ description: "Make it bold (true) or not (false)." }),
    italic: z.boolean().optional().meta({ description: "Make it italic (true) or not (false)." }),
    underline: z.boolean().optional().meta({ description: "Underline it (true) or not (false)." }),
    link: z.url().max(2000).optional().meta({ description: "A URL to link the text to." }),
    paragraphStyle: z.enum(HEADINGS).optional().meta({ description: "The named style of the paragraphs, e.g. HEADING_1." }),
    requiredRevisionId: revision,
  }),
  annotations: { readOnly: false, destructive: false, idempotent: true },
  scopes: SCOPES,
  async run(args, ctx) {
    const range = { startIndex: args.startIndex, endIndex: args.endIndex };
    const textStyle: Record<string, unknown> = {};
    for (const name of ["bold", "italic", "underline"] as const) if (args[name] !== undefined) textStyle[name] = args[name];
    if (args.link) textStyle.link = { url: args.link };
    const requests: unknown[] = [];
    if (Object.keys(textStyle).length) requests.push({ updateTextStyle: { range, textStyle, fields: Object.keys(textStyle).join(",") } });
    if (args.paragraphStyle) {
      requests.push({ updateParagraphStyle: { range, paragraphStyle: { namedStyleType: args.paragraphStyle }, fields: "namedStyleType" } });
    }
    if (!requests.length) return { documentId: args.documentId, revisionId: null, changed: false };
    const { revisionId } = await batchUpdate(ctx, args.documentId, requests, args.requiredRevisionId);
    return { documentId: args.documentId, revisionId, changed: true };
  },
});

/** Google Docs' curated tools: read a document's paragraphs, create, insert, replace, delete and format text. */
export const googleDocsTools: Tool[] = [getDocument, createDocument, insertText, replaceText, deleteContent, formatText];
