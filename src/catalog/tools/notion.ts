/**
 * Notion tools, over the REST API at https://api.notion.com/v1, version 2025-09-03 (the toolkit
 * adds `Notion-Version`): a database holds one or more data sources, which hold the rows.
 * Written from Notion's API reference:
 * - the 2025-09-03 data model: https://developers.notion.com/docs/upgrade-guide-2025-09-03,
 *   https://developers.notion.com/reference/data-source, https://developers.notion.com/reference/query-a-data-source
 * - search: https://developers.notion.com/reference/post-search
 * - pages: https://developers.notion.com/reference/retrieve-a-page, https://developers.notion.com/reference/post-page,
 *   https://developers.notion.com/reference/patch-page, https://developers.notion.com/reference/page-property-values
 * - databases: https://developers.notion.com/reference/post-database-query, https://developers.notion.com/reference/retrieve-a-database
 * - blocks: https://developers.notion.com/reference/get-block-children, https://developers.notion.com/reference/patch-block-children,
 *   https://developers.notion.com/reference/block
 * - pagination (start_cursor, page_size, has_more, next_cursor): https://developers.notion.com/reference/intro#pagination
 * - errors ({ object: "error", status, code, message }): https://developers.notion.com/reference/status-codes
 */
import { z } from "zod";
import { ToolRunError } from "../../core/tool-error.js";
import { defineTool, type Tool, type ToolContext } from "../../toolkits/define.js";
import { type ProviderErrors, type ProviderRequest, requestJson, segment } from "../../toolkits/provider-requests.js";
import { cursorArgument, pageSize } from "./arguments.js";
import { field } from "./content.js";

const NOTION: ProviderErrors = {
  name: "Notion",
  reason: (body) => {
    const message = field(body, "message");
    if (typeof message !== "string") return undefined;
    const code = field(body, "code");
    const hint = code === "object_not_found" ? " (share the page or database with the integration in Notion's Connections menu)" : "";
    return `${typeof code === "string" ? `${code}: ` : ""}${message}${hint}`;
  },
};

type Json = Record<string, unknown>;
const call = (ctx: ToolContext, path: string, request?: ProviderRequest) => requestJson(ctx, NOTION, path, request) as Promise<Json>;

/**
 * The data source to read or write rows of: the one given, or the only one of the database. A
 * database with several says which there are.
 */
async function dataSourceOf(ctx: ToolContext, target: { databaseId?: string | undefined; dataSourceId?: string | undefined }) {
  if (target.dataSourceId) return target.dataSourceId;
  if (!target.databaseId) throw new ToolRunError("Give databaseId or dataSourceId.", { code: "invalid_arguments" });
  const database = await call(ctx, `/databases/${segment(target.databaseId)}`);
  const sources = (Array.isArray(database.data_sources) ? database.data_sources : []) as unknown[];
  if (sources.length === 1) return String(field(sources[0], "id"));
  const names = sources.map((source) => `${String(field(source, "name"))} (${String(field(source, "id"))})`).join(", ");
  throw new ToolRunError(
    sources.length === 0
      ? `Database ${target.databaseId} has no data source this integration can see.`
      : `Database ${target.databaseId} has ${sources.length} data sources: ${names}. Call again with dataSourceId set to one of them.`,
    { code: "invalid_arguments" },
  );
}

const id = (what: string) =>
  z.string().min(1).max(100).describe(`The ${what}'s id: a UUID with or without dashes, as in its Notion URL or as search returns it.`);

/** Notion's limit of characters in one rich text object. */
const TEXT_LIMIT = 2000;
/** Notion's limit of blocks in one append or create request. */
const BLOCK_LIMIT = 100;

function richText(text: string): Json[] {
  const parts: Json[] = [];
  for (let start = 0; start < text.length; start += TEXT_LIMIT) {
    parts.push({ type: "text", text: { content: text.slice(start, start + TEXT_LIMIT) } });
  }
  return parts;
}

const plain = (value: unknown) =>
  Array.isArray(value)
    ? value.map((part) => (typeof field(part, "plain_text") === "string" ? field(part, "plain_text") : "")).join("")
    : "";

const LINE_BLOCKS: Array<[RegExp, string, Json?]> = [
  [/^### /, "heading_3"],
  [/^## /, "heading_2"],
  [/^# /, "heading_1"],
  [/^[-*] \[ \] /, "to_do", { checked: false }],
  [/^[-*] \[x\] /i, "to_do", { checked: true }],
  [/^[-*] /, "bulleted_list_item"],
  [/^\d+\. /, "numbered_list_item"],
  [/^> /, "quote"],
];

/**
 * Blocks from plain text, one per non-empty line: `# `, `## `, `### ` headings, `- ` bullets,
 * `1. ` numbered items, `- [ ] ` and `- [x] ` to-dos, `> ` quotes, anything else a paragraph.
 */
export function textToBlocks(text: string): Json[] {
  const blocks: Json[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === "") continue;
    const match = LINE_BLOCKS.find(([pattern]) => pattern.test(line));
    const type = match?.[1] ?? "paragraph";
    const content = match ? line.replace(match[0], "") : line;
    blocks.push({ object: "block", type, [type]: { rich_text: richText(content), ...match?.[2] } });
  }
  return blocks;
}

function childBlocks(args: { text?: string | undefined; blocks?: Json[] | undefined }): Json[] {
  const blocks = [...(args.text ? textToBlocks(args.text) : []), ...(args.blocks ?? [])];
  if (blocks.length > BLOCK_LIMIT) {
    throw new ToolRunError(
      `That is ${blocks.length} blocks; Notion takes at most ${BLOCK_LIMIT} per request. Send the rest in another call.`,
      { code: "invalid_arguments" },
    );
  }
  return blocks;
}

/** A property value as a model reads it: text as a string, selects as names, dates as { start, end }. */
function propertyValue(property: unknown): unknown {
  const type = field(property, "type");
  if (typeof type !== "string") return null;
  const value = field(property, type);
  switch (type) {
    case "title":
    case "rich_text":
      return plain(value);
    case "select":
    case "status":
      return field(value, "name") ?? null;
    case "multi_select":
      return Array.isArray(value) ? value.map((option) => field(option, "name")) : [];
    case "people":
      return Array.isArray(value) ? value.map((person) => field(person, "name") ?? field(person, "id")) : [];
    case "relation":
      return Array.isArray(value) ? value.map((page) => field(page, "id")) : [];
    case "date":
      return value ? { start: field(value, "start"), end: field(value, "end") ?? null } : null;
    case "formula":
      return field(value, field(value, "type") as string) ?? null;
    case "files":
      return Array.isArray(value) ? value.map((file) => field(file, "name")) : [];
    default:
      return value ?? null;
  }
}

/** A page or database as a model reads it. */
function summarise(object: unknown): Json {
  const properties = (field(object, "properties") ?? {}) as Json;
  const values: Json = {};
  let title = plain(field(object, "title"));
  for (const [name, property] of Object.entries(properties)) {
    if (field(object, "object") === "database" || field(object, "object") === "data_source") {
      values[name] = field(property, "type");
      continue;
    }
    values[name] = propertyValue(property);
    if (field(property, "type") === "title") title = values[name] as string;
  }
  return {
    object: field(object, "object"),
    id: field(object, "id"),
    title,
    url: field(object, "url") ?? null,
    parent: field(object, "parent") ?? null,
    lastEditedTime: field(object, "last_edited_time") ?? null,
    archived: field(object, "archived") ?? field(object, "in_trash") ?? false,
    properties: values,
  };
}

function summariseBlock(block: unknown): Json {
  const type = field(block, "type") as string;
  const content = field(block, type);
  return {
    id: field(block, "id"),
    type,
    text: plain(field(content, "rich_text")),
    ...(type === "to_do" ? { checked: field(content, "checked") === true } : {}),
    ...(type === "child_page" || type === "child_database" ? { title: field(content, "title") } : {}),
    hasChildren: field(block, "has_children") === true,
  };
}

const page = (list: Json, map: (item: unknown) => Json) => ({
  results: ((list.results as unknown[]) ?? []).map(map),
  nextCursor: list.has_more === true && typeof list.next_cursor === "string" ? list.next_cursor : null,
});

const search = defineTool({
  slug: "NOTION_SEARCH",
  name: "Search Notion",
  description:
    "Searches the pages and data sources (the tables of databases) shared with the integration by title. Returns { results: " +
    "[{ object, id, title, url, parent, lastEditedTime, properties }], nextCursor } (a data source's properties are its column " +
    "types); pass nextCursor back as cursor for the next page (null: no more).",
  input: z.object({
    query: z.string().max(500).default("").describe("Words of the title to look for; empty lists everything shared."),
    type: z.enum(["page", "data_source"]).optional().describe("Only pages, or only data sources (database tables)."),
    cursor: cursorArgument,
    limit: pageSize(100, 20),
  }),
  annotations: { readOnly: true, openWorld: true },
  async run(args, ctx) {
    const body = {
      query: args.query,
      ...(args.type ? { filter: { property: "object", value: args.type } } : {}),
      ...(args.cursor ? { start_cursor: args.cursor } : {}),
      page_size: args.limit,
    };
    return page(await call(ctx, "/search", { method: "POST", json: body }), summarise);
  },
});

const getPage = defineTool({
  slug: "NOTION_GET_PAGE",
  name: "Get a Notion page",
  description:
    "Reads a page's title and property values (text as strings, selects as names, dates as { start, end }). " +
    "The page's content is its blocks: read them with NOTION_GET_BLOCK_CHILDREN and the page id.",
  input: z.object({ pageId: id("page") }),
  annotations: { readOnly: true },
  run: async (args, ctx) => summarise(await call(ctx, `/pages/${segment(args.pageId)}`)),
});

const createPage = defineTool({
  slug: "NOTION_CREATE_PAGE",
  name: "Create a Notion page",
  description:
    "Creates a page under a page, or as a row of a database. In a database, `title` fills its title column and `properties` " +
    "the others, as Notion property values (e.g. { Status: { status: { name: 'Done' } } }). `content` becomes the page's " +
    "blocks. Returns the new page ({ id, url, title, properties }).",
  input: z.object({
    parent: z
      .discriminatedUnion("type", [
        z.object({ type: z.literal("page"), pageId: id("parent page") }),
        z.object({
          type: z.literal("database"),
          databaseId: id("database").optional(),
          dataSourceId: id("data source").optional().describe("The data source (table) to add to, when the database has several."),
        }),
      ])
      .describe("Where the page goes: { type: 'page', pageId } or { type: 'database', databaseId or dataSourceId }."),
    title: z.string().max(2000).describe("The page's title."),
    properties: z
      .record(z.string(), z.record(z.string(), z.unknown()))
      .optional()
      .describe("Other property values, in Notion's format; only for a database parent."),
    content: z
      .string()
      .max(50_000)
      .optional()
      .describe("The page's text: one block per line; '# ' headings, '- ' bullets, '1. ' numbered, '- [ ] ' to-dos, '> ' quotes."),
  }),
  annotations: { readOnly: false, destructive: false },
  async run(args, ctx) {
    let parent: Json;
    let properties: Json;
    if (args.parent.type === "page") {
      if (args.properties) {
        throw new ToolRunError("A page under a page has only a title; properties are for pages in a database.", {
          code: "invalid_arguments",
        });
      }
      parent = { page_id: args.parent.pageId };
      properties = { title: { title: richText(args.title) } };
    } else {
      const dataSourceId = await dataSourceOf(ctx, args.parent);
      parent = { type: "data_source_id", data_source_id: dataSourceId };
      const source = await call(ctx, `/data_sources/${segment(dataSourceId)}`);
      const columns = Object.entries((source.properties ?? {}) as Json);
      const titleColumn = columns.find(([, column]) => field(column, "type") === "title")?.[0] ?? "title";
      properties = { ...args.properties, [titleColumn]: { title: richText(args.title) } };
    }
    const children = childBlocks({ text: args.content });
    return summarise(await call(ctx, "/pages", { method: "POST", json: { parent, properties, ...(children.length ? { children } : {}) } }));
  },
});

const updatePage = defineTool({
  slug: "NOTION_UPDATE_PAGE",
  name: "Update a Notion page",
  description:
    "Changes property values of a page (in Notion's format, e.g. { Status: { status: { name: 'Done' } } }), or moves it to " +
    "the trash with archived: true (restorable from Notion's trash). Returns the page as it now is.",
  input: z.object({
    pageId: id("page"),
    properties: z.record(z.string(), z.record(z.string(), z.unknown())).optional().describe("Property values to set."),
    archived: z.boolean().optional().describe("true moves the page to the trash; false restores it."),
  }),
  annotations: { readOnly: false, destructive: true, idempotent: true },
  async run(args, ctx) {
    if (!args.properties && args.archived === undefined) {
      throw new ToolRunError("Nothing to change: give properties, archived, or both.", { code: "invalid_arguments" });
    }
    const body = {
      ...(args.properties ? { properties: args.properties } : {}),
      ...(args.archived !== undefined ? { archived: args.archived } : {}),
    };
    return summarise(await call(ctx, `/pages/${segment(args.pageId)}`, { method: "PATCH", json: body }));
  },
});

const queryDatabase = defineTool({
  slug: "NOTION_QUERY_DATABASE",
  name: "Query a Notion database",
  description:
    "Lists the rows (pages) of a database (or of one of its data sources), optionally filtered and sorted with Notion's " +
    "filter and sort objects, e.g. " +
    "filter { property: 'Status', status: { equals: 'Done' } }, sorts [{ property: 'Due', direction: 'ascending' }]. Returns " +
    "{ results: [{ id, title, url, properties }], nextCursor }; pass nextCursor back as cursor for the next page.",
  input: z.object({
    databaseId: id("database").optional(),
    dataSourceId: id("data source").optional().describe("The data source (table) to read, when the database has several."),
    filter: z.record(z.string(), z.unknown()).optional().describe("A Notion filter object."),
    sorts: z.array(z.record(z.string(), z.unknown())).max(100).optional().describe("Notion sort objects, first wins."),
    cursor: cursorArgument,
    limit: pageSize(100, 25),
  }),
  annotations: { readOnly: true },
  async run(args, ctx) {
    const body = {
      ...(args.filter ? { filter: args.filter } : {}),
      ...(args.sorts ? { sorts: args.sorts } : {}),
      ...(args.cursor ? { start_cursor: args.cursor } : {}),
      page_size: args.limit,
    };
    const dataSourceId = await dataSourceOf(ctx, args);
    return page(await call(ctx, `/data_sources/${segment(dataSourceId)}/query`, { method: "POST", json: body }), summarise);
  },
});

const getBlockChildren = defineTool({
  slug: "NOTION_GET_BLOCK_CHILDREN",
  name: "Read a Notion page's content",
  description:
    "Lists the blocks inside a page or block (a page id reads the page's content). Returns { results: [{ id, type, text, " +
    "checked?, hasChildren }], nextCursor }; a block with hasChildren has nested blocks, read with its id.",
  input: z.object({ blockId: id("page or block"), cursor: cursorArgument, limit: pageSize(100, 50) }),
  annotations: { readOnly: true },
  async run(args, ctx) {
    const query = { page_size: args.limit, start_cursor: args.cursor };
    return page(await call(ctx, `/blocks/${segment(args.blockId)}/children`, { query }), summariseBlock);
  },
});

const appendBlocks = defineTool({
  slug: "NOTION_APPEND_BLOCKS",
  name: "Add content to a Notion page",
  description:
    "Appends blocks at the end of a page (or inside a block): `text` is one block per line ('# ' headings, '- ' bullets, " +
    "'1. ' numbered, '- [ ] ' to-dos, '> ' quotes, otherwise paragraphs), `blocks` are Notion block objects added after it. " +
    "At most 100 blocks per call. Returns the added blocks.",
  input: z.object({
    blockId: id("page or block"),
    text: z.string().max(50_000).optional().describe("Text to add, one block per line."),
    blocks: z.array(z.record(z.string(), z.unknown())).max(100).optional().describe("Notion block objects to add."),
  }),
  annotations: { readOnly: false, destructive: false },
  async run(args, ctx) {
    const children = childBlocks(args);
    if (children.length === 0) throw new ToolRunError("Nothing to add: give text or blocks.", { code: "invalid_arguments" });
    const answer = await call(ctx, `/blocks/${segment(args.blockId)}/children`, { method: "PATCH", json: { children } });
    return { results: ((answer.results as unknown[]) ?? []).map(summariseBlock) };
  },
});

/** Notion's curated tools. */
export const notionTools: Tool[] = [search, getPage, createPage, updatePage, queryDatabase, getBlockChildren, appendBlocks];
