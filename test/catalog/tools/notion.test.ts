/**
 * The curated Notion tools through POST /execute, against an emulation of https://api.notion.com/v1
 * (version 2025-09-03) that answers with the shapes of Notion's API reference:
 * - databases and data sources: https://developers.notion.com/docs/upgrade-guide-2025-09-03,
 *   https://developers.notion.com/reference/data-source, https://developers.notion.com/reference/query-a-data-source
 * - page object: https://developers.notion.com/reference/page, property values:
 *   https://developers.notion.com/reference/page-property-values
 * - list answers (object "list", results, next_cursor, has_more): https://developers.notion.com/reference/intro#pagination
 * - search: https://developers.notion.com/reference/post-search; query: https://developers.notion.com/reference/post-database-query
 * - blocks: https://developers.notion.com/reference/block, https://developers.notion.com/reference/patch-block-children
 * - errors: https://developers.notion.com/reference/status-codes
 */
import { describe, expect, it } from "vitest";
import { notionTools, textToBlocks } from "../../../src/catalog/tools/notion.js";
import { json, type Route, setupToolkit } from "./support-b.js";

const PAGE_ID = "59833787-2cf9-4fdf-8782-e53db20768a5";
const DATABASE_ID = "d9824bdc-8445-4327-be8b-5b47500af6ce";
const SOURCE_ID = "2f26ee68-df30-4251-aad4-8ddc420cba3d";
const MULTI_ID = "4ab1c2d3-0000-4000-8000-000000000001";
const VERSION = "2025-09-03";

const text = (content: string) => [
  { type: "text", text: { content, link: null }, annotations: { bold: false, code: false }, plain_text: content, href: null },
];

const pageObject = (overrides: Record<string, unknown> = {}) => ({
  object: "page",
  id: PAGE_ID,
  created_time: "2022-03-01T19:05:00.000Z",
  last_edited_time: "2022-07-06T20:25:00.000Z",
  parent: { type: "data_source_id", data_source_id: SOURCE_ID, database_id: DATABASE_ID },
  archived: false,
  properties: {
    Name: { id: "title", type: "title", title: text("Tuscan kale") },
    Tags: { id: "%40HxN", type: "multi_select", multi_select: [{ id: "1", name: "Vegetable", color: "green" }] },
    Status: { id: "s", type: "status", status: { id: "x", name: "In progress", color: "blue" } },
    Due: { id: "d", type: "date", date: { start: "2023-02-23", end: null, time_zone: null } },
    Price: { id: "p", type: "number", number: 2.5 },
  },
  url: "https://www.notion.so/Tuscan-kale-598337872cf94fdf8782e53db20768a5",
  ...overrides,
});

const summary = {
  object: "page",
  id: PAGE_ID,
  title: "Tuscan kale",
  url: "https://www.notion.so/Tuscan-kale-598337872cf94fdf8782e53db20768a5",
  parent: { type: "data_source_id", data_source_id: SOURCE_ID, database_id: DATABASE_ID },
  lastEditedTime: "2022-07-06T20:25:00.000Z",
  archived: false,
  properties: {
    Name: "Tuscan kale",
    Tags: ["Vegetable"],
    Status: "In progress",
    Due: { start: "2023-02-23", end: null },
    Price: 2.5,
  },
};

const list = (results: unknown[], next: string | null) => ({
  object: "list",
  results,
  next_cursor: next,
  has_more: next !== null,
  type: "page_or_database",
});

const routes: Route[] = [
  { method: "POST", path: /^\/v1\/search$/, answer: () => json(list([pageObject()], "cursor-2")) },
  {
    method: "GET",
    path: /^\/v1\/pages\/(?<id>[^/]+)$/,
    answer: (_, { id }) =>
      id === PAGE_ID
        ? json(pageObject())
        : json(
            {
              object: "error",
              status: 404,
              code: "object_not_found",
              message: `Could not find page with ID: ${id}. Make sure the relevant pages and databases are shared with your integration.`,
            },
            404,
          ),
  },
  {
    method: "GET",
    path: /^\/v1\/databases\/(?<id>[^/]+)$/,
    answer: (_, { id }) =>
      json({
        object: "database",
        id,
        title: text("Grocery list"),
        data_sources:
          id === MULTI_ID
            ? [
                { id: SOURCE_ID, name: "Groceries" },
                { id: "ds-2", name: "Archive" },
              ]
            : [{ id: SOURCE_ID, name: "Groceries" }],
      }),
  },
  {
    method: "GET",
    path: /^\/v1\/data_sources\/[^/]+$/,
    answer: () =>
      json({
        object: "data_source",
        id: SOURCE_ID,
        parent: { type: "database_id", database_id: DATABASE_ID },
        title: text("Groceries"),
        properties: { Item: { id: "title", name: "Item", type: "title", title: {} }, Tags: { id: "t", type: "multi_select" } },
      }),
  },
  { method: "POST", path: /^\/v1\/pages$/, answer: (request) => json(pageObject({ parent: (request.body as any).parent })) },
  { method: "PATCH", path: /^\/v1\/pages\/[^/]+$/, answer: () => json(pageObject({ archived: true })) },
  { method: "POST", path: /^\/v1\/data_sources\/[^/]+\/query$/, answer: () => json(list([pageObject()], null)) },
  {
    method: "GET",
    path: /^\/v1\/blocks\/[^/]+\/children$/,
    answer: () =>
      json(
        list(
          [
            { object: "block", id: "b1", type: "heading_2", has_children: false, heading_2: { rich_text: text("Lacinato kale") } },
            { object: "block", id: "b2", type: "to_do", has_children: true, to_do: { rich_text: text("Buy"), checked: true } },
          ],
          "cursor-b",
        ),
      ),
  },
  {
    method: "PATCH",
    path: /^\/v1\/blocks\/[^/]+\/children$/,
    answer: (request) =>
      json(
        list(
          ((request.body as any).children as any[]).map((block, i) => ({
            ...block,
            id: `new-${i}`,
            has_children: false,
            [block.type]: {
              ...block[block.type],
              rich_text: block[block.type].rich_text.map((t: any) => ({ ...t, plain_text: t.text.content })),
            },
          })),
          null,
        ),
      ),
  },
];

const setup = () =>
  setupToolkit({
    slug: "notion",
    baseUrl: "https://api.notion.com/v1",
    headers: { "Notion-Version": VERSION },
    tools: notionTools,
    routes,
  });

describe("Notion tools", () => {
  it("NOTION_SEARCH posts the query and a type filter, and returns summaries and the next cursor", async () => {
    const notion = await setup();
    const data = await notion.ok("NOTION_SEARCH", { query: "kale", type: "page", limit: 10, cursor: "cursor-1" });
    expect(data).toEqual({ results: [summary], nextCursor: "cursor-2" });
    const request = notion.last();
    expect([request.method, request.path]).toEqual(["POST", "/v1/search"]);
    expect(request.body).toEqual({ query: "kale", filter: { property: "object", value: "page" }, start_cursor: "cursor-1", page_size: 10 });
  });

  it("sends the toolkit's Notion-Version header with every call", async () => {
    const notion = await setup();
    await notion.ok("NOTION_GET_PAGE", { pageId: PAGE_ID });
    expect(notion.last().headers.get("notion-version")).toBe(VERSION);
  });

  it("NOTION_GET_PAGE reads property values as plain values", async () => {
    const notion = await setup();
    expect(await notion.ok("NOTION_GET_PAGE", { pageId: PAGE_ID })).toEqual(summary);
    expect(notion.last().path).toBe(`/v1/pages/${PAGE_ID}`);
  });

  it("a Notion error is a failed result naming its code and message and what to do", async () => {
    const notion = await setup();
    const result = await notion.execute("NOTION_GET_PAGE", { pageId: "missing" });
    expect(result.successful).toBe(false);
    expect(result.code).toBe("upstream_error");
    expect(result.upstreamStatus).toBe(404);
    expect(result.error).toContain("Notion answered 404: object_not_found: Could not find page with ID: missing");
    expect(result.error).toContain("Connections menu");
    expect(result.error).toContain("Check the id");
  });

  it("NOTION_CREATE_PAGE in a database finds its data source, fills the title column and adds content blocks", async () => {
    const notion = await setup();
    await notion.ok("NOTION_CREATE_PAGE", {
      parent: { type: "database", databaseId: DATABASE_ID },
      title: "Kale",
      properties: { Tags: { multi_select: [{ name: "Vegetable" }] } },
      content: "# Notes\n- fresh\n\nBuy on Monday",
    });
    const [database, source, create] = notion.received.slice(-3);
    expect([database!.method, database!.path]).toEqual(["GET", `/v1/databases/${DATABASE_ID}`]);
    expect([source!.method, source!.path]).toEqual(["GET", `/v1/data_sources/${SOURCE_ID}`]);
    expect([create!.method, create!.path]).toEqual(["POST", "/v1/pages"]);
    expect(create!.body).toEqual({
      parent: { type: "data_source_id", data_source_id: SOURCE_ID },
      properties: { Tags: { multi_select: [{ name: "Vegetable" }] }, Item: { title: [{ type: "text", text: { content: "Kale" } }] } },
      children: textToBlocks("# Notes\n- fresh\n\nBuy on Monday"),
    });
  });

  it("NOTION_CREATE_PAGE under a page sets its title, and refuses properties there", async () => {
    const notion = await setup();
    const data = await notion.ok("NOTION_CREATE_PAGE", { parent: { type: "page", pageId: PAGE_ID }, title: "Sub page" });
    expect(data.parent).toEqual({ page_id: PAGE_ID });
    expect(notion.last().body).toEqual({
      parent: { page_id: PAGE_ID },
      properties: { title: { title: [{ type: "text", text: { content: "Sub page" } }] } },
    });
    const refused = await notion.execute("NOTION_CREATE_PAGE", {
      parent: { type: "page", pageId: PAGE_ID },
      title: "x",
      properties: { Tags: {} },
    });
    expect(refused).toMatchObject({ successful: false, code: "invalid_arguments" });
  });

  it("NOTION_UPDATE_PAGE patches properties and archived", async () => {
    const notion = await setup();
    const data = await notion.ok("NOTION_UPDATE_PAGE", { pageId: PAGE_ID, properties: { Price: { number: 3 } }, archived: true });
    expect(data.archived).toBe(true);
    expect([notion.last().method, notion.last().path]).toEqual(["PATCH", `/v1/pages/${PAGE_ID}`]);
    expect(notion.last().body).toEqual({ properties: { Price: { number: 3 } }, archived: true });
  });

  it("NOTION_QUERY_DATABASE posts filter, sorts and paging; the last page has no cursor", async () => {
    const notion = await setup();
    const filter = { property: "Status", status: { equals: "Done" } };
    const sorts = [{ property: "Due", direction: "ascending" }];
    const data = await notion.ok("NOTION_QUERY_DATABASE", { databaseId: DATABASE_ID, filter, sorts, limit: 5 });
    expect(data).toEqual({ results: [summary], nextCursor: null });
    expect(notion.last().path).toBe(`/v1/data_sources/${SOURCE_ID}/query`);
    expect(notion.last().body).toEqual({ filter, sorts, page_size: 5 });
    const sent = notion.received.length;
    await notion.ok("NOTION_QUERY_DATABASE", { dataSourceId: "ds-2", cursor: "c" });
    expect(notion.received.length).toBe(sent + 1);
    expect(notion.last().path).toBe("/v1/data_sources/ds-2/query");
    expect(notion.last().body).toEqual({ start_cursor: "c", page_size: 25 });
  });

  it("a database with several data sources is a failure naming them, so the agent can pick one", async () => {
    const notion = await setup();
    const result = await notion.execute("NOTION_QUERY_DATABASE", { databaseId: MULTI_ID });
    expect(result).toMatchObject({ successful: false, code: "invalid_arguments" });
    expect(result.error).toBe(
      `Database ${MULTI_ID} has 2 data sources: Groceries (${SOURCE_ID}), Archive (ds-2). Call again with dataSourceId set to one of them.`,
    );
  });

  it("NOTION_GET_BLOCK_CHILDREN pages with start_cursor and page_size", async () => {
    const notion = await setup();
    const data = await notion.ok("NOTION_GET_BLOCK_CHILDREN", { blockId: PAGE_ID, cursor: "cursor-a", limit: 2 });
    expect(data).toEqual({
      results: [
        { id: "b1", type: "heading_2", text: "Lacinato kale", hasChildren: false },
        { id: "b2", type: "to_do", text: "Buy", checked: true, hasChildren: true },
      ],
      nextCursor: "cursor-b",
    });
    expect(notion.last().path).toBe(`/v1/blocks/${PAGE_ID}/children`);
    expect(Object.fromEntries(notion.last().query)).toEqual({ page_size: "2", start_cursor: "cursor-a" });
  });

  it("NOTION_APPEND_BLOCKS turns lines into typed blocks and refuses more than 100", async () => {
    const notion = await setup();
    const data = await notion.ok("NOTION_APPEND_BLOCKS", {
      blockId: PAGE_ID,
      text: "## Plan\n- [ ] call\n- [x] email\n1. one\n> quote\nplain",
    });
    expect(data.results.map((b: any) => [b.type, b.text, b.checked])).toEqual([
      ["heading_2", "Plan", undefined],
      ["to_do", "call", false],
      ["to_do", "email", true],
      ["numbered_list_item", "one", undefined],
      ["quote", "quote", undefined],
      ["paragraph", "plain", undefined],
    ]);
    expect([notion.last().method, notion.last().path]).toEqual(["PATCH", `/v1/blocks/${PAGE_ID}/children`]);
    const sent = notion.received.length;
    const tooMany = await notion.execute("NOTION_APPEND_BLOCKS", { blockId: PAGE_ID, text: "x\n".repeat(101) });
    expect(tooMany).toMatchObject({ successful: false, code: "invalid_arguments" });
    expect(tooMany.error).toContain("at most 100");
    expect(notion.received.length).toBe(sent);
  });

  it("splits text longer than Notion's 2000 characters into several rich text objects", () => {
    const [block] = textToBlocks("a".repeat(4500));
    expect((block!.paragraph as any).rich_text.map((t: any) => t.text.content.length)).toEqual([2000, 2000, 500]);
  });
});
