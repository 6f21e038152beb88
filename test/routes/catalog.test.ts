import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineToolkit, none } from "../../src/index.js";
import { CREDENTIALS, createHarness, expectError, type Harness } from "../support/harness.js";
import { TOOLKIT_SLUGS } from "../support/toolkits.js";

const FILLERS = Array.from({ length: 50 }, (_, i) => `filler-${String(i + 1).padStart(2, "0")}`);
const ALL = [...TOOLKIT_SLUGS, ...FILLERS];
const BULK = Array.from({ length: 60 }, (_, i) => `BULK_TOOL_${String(i + 1).padStart(2, "0")}`);

let h: Harness;
let key: string;

const slugs = (list: Array<{ slug: string }>) => list.map((t) => t.slug);

/** Follows nextCursor from `first` to the end, returning every page's slugs. */
async function allPages(path: string, field: "toolkits" | "tools"): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const res = await h.call("GET", cursor ? `${path}${sep}cursor=${encodeURIComponent(cursor)}` : path, { key });
    expect(res.status, res.text).toBe(200);
    pages.push(slugs(res.json[field]));
    cursor = res.json.nextCursor;
  } while (cursor !== null && pages.length < 100);
  return pages;
}

beforeAll(async () => {
  h = await createHarness({
    extraToolkits: () =>
      FILLERS.map((slug) => defineToolkit({ slug, name: `Filler ${slug.slice(-2)}`, description: "Padding.", auth: none(), tools: [] })),
  });
  key = (await h.issueAgentKey("agent-a")).key;
});
afterAll(async () => {
  h.assertNoLeaks();
  await h.close();
});

describe("GET /search", () => {
  it("answers toolkit summaries with the documented fields", async () => {
    await h.connect(key, "acme", { apiKey: CREDENTIALS.headerKey });
    const res = await h.call("GET", "/search?keywords=acme", { key });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      toolkits: [
        {
          slug: "acme",
          name: "Acme",
          description: "Acme API with a header key, for items.",
          icon: "https://acme.test/icon.svg",
          authScheme: "apiKey",
          authSchemes: ["apiKey"],
          toolCount: 1,
          connected: true,
          configured: true,
        },
        {
          slug: "acmeq",
          name: "Acme Query",
          description: "Acme API with a query key.",
          icon: "",
          authScheme: "apiKey",
          authSchemes: ["apiKey"],
          toolCount: 1,
          connected: false,
          configured: true,
        },
      ],
      nextCursor: null,
    });
  });

  it("ranks by relevance: exact slug, then slug and name words, then descriptions", async () => {
    const search = async (keywords: string) =>
      slugs((await h.call("GET", `/search?keywords=${encodeURIComponent(keywords)}`, { key })).json.toolkits);
    expect(await search("item")).toEqual(["items", "acme"]);
    expect(await search("note")).toEqual(["notes", "tenant"]);
    expect(await search("NOTES")).toEqual(["notes", "tenant"]);
    expect(await search("zebra quokka")).toEqual([]);
    expect(await search("")).toEqual(ALL.slice(0, 50));
  });

  it("pages 50 by default and up to 200, with exact pages and a null last cursor", async () => {
    const first = await h.call("GET", "/search", { key });
    expect(slugs(first.json.toolkits)).toEqual(ALL.slice(0, 50));
    expect(typeof first.json.nextCursor).toBe("string");
    const second = await h.call("GET", `/search?cursor=${first.json.nextCursor}`, { key });
    expect(slugs(second.json.toolkits)).toEqual(ALL.slice(50));
    expect(second.json.nextCursor).toBeNull();
    const max = await h.call("GET", "/search?limit=200", { key });
    expect(slugs(max.json.toolkits)).toEqual(ALL);
    expect(max.json.nextCursor).toBeNull();
    const pages = await allPages("/search?limit=7", "toolkits");
    expect(pages.map((p) => p.length)).toEqual([7, 7, 7, 7, 7, 7, 7, 7, 3]);
    expect(pages.flat()).toEqual(ALL);
  });

  it("refuses limit out of range or not a whole number with 400", async () => {
    for (const limit of ["0", "201", "abc", "-1", "1.5", ""]) {
      expectError(await h.call("GET", `/search?limit=${limit}`, { key }), 400, "invalid_request", /query\.limit/);
    }
  });

  it("refuses query= on toolkit search with a 400 that names keywords, rather than ignore it and list every toolkit", async () => {
    expectError(await h.call("GET", "/search?query=acme", { key }), 400, "invalid_request", /takes keywords=/);
  });

  it("refuses a tampered cursor, and a cursor of another query", async () => {
    const first = await h.call("GET", "/search?limit=2", { key });
    const cursor: string = first.json.nextCursor;
    const tampered = cursor.slice(0, -2) + (cursor.endsWith("A") ? "B" : "A") + cursor.slice(-1);
    expectError(await h.call("GET", `/search?limit=2&cursor=${tampered}`, { key }), 400, "invalid_request", /cursor/);
    expectError(await h.call("GET", "/search?cursor=not*base64", { key }), 400, "invalid_request", /cursor/);
    expectError(await h.call("GET", `/search?limit=2&keywords=acme&cursor=${cursor}`, { key }), 400, "invalid_request", /another query/);
  });
});

describe("GET /toolkit/{toolkit}", () => {
  it("answers the toolkit with its tools and input schemas", async () => {
    const res = await h.call("GET", "/toolkit/calc", { key });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      slug: "calc",
      name: "Calculator",
      description: "Local math tools that need no connection.",
      icon: "",
      authScheme: "none",
      nextCursor: null,
    });
    expect(slugs(res.json.tools)).toEqual(["CALC_ADD", "CALC_FAIL", "CALC_SLOW", "CALC_READ_FILE"]);
    const add = res.json.tools[0];
    expect(add).toMatchObject({ name: "Add", description: "Adds two numbers.", annotations: { readOnly: true } });
    expect(add.inputParameters).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    const file = res.json.tools[3].inputParameters.properties.file;
    expect(file).toMatchObject({ type: "string", format: "tools-proxy-staging-key", "x-tools-proxy-file": true });
  });

  it("shows a JSON toolkit's inputParameters as written", async () => {
    const res = await h.call("GET", "/toolkit/items", { key });
    expect(res.json.tools[0]).toMatchObject({ slug: "ITEMS_GET", inputParameters: { type: "object", required: ["id"] } });
  });

  it("pages tools: 50 by default, exact pages with cursors", async () => {
    const first = await h.call("GET", "/toolkit/bulk", { key });
    expect(slugs(first.json.tools)).toEqual(BULK.slice(0, 50));
    const pages = await allPages("/toolkit/bulk?limit=25", "tools");
    expect(pages.map((p) => p.length)).toEqual([25, 25, 10]);
    expect(pages.flat()).toEqual(BULK);
    expectError(await h.call("GET", "/toolkit/bulk?limit=201", { key }), 400, "invalid_request", /query\.limit/);
  });

  it("answers 404 for an unknown toolkit", async () => {
    expectError(await h.call("GET", "/toolkit/nope", { key }), 404, "not_found", /nope/);
    expectError(await h.call("GET", "/toolkit/nope/search?query=x", { key }), 404, "not_found");
  });
});

describe("GET /toolkit/{toolkit}/search", () => {
  it("ranks the tools of one toolkit and pages them", async () => {
    const res = await h.call("GET", "/toolkit/bulk/search?query=paging", { key });
    expect(res.status).toBe(200);
    expect(slugs(res.json.tools)).toEqual(["BULK_TOOL_42"]);
    expect(res.json.nextCursor).toBeNull();
    const generated = await allPages("/toolkit/bulk/search?query=generated&limit=20", "tools");
    expect(generated.map((p) => p.length)).toEqual([20, 20, 19]);
    expect(slugs((await h.call("GET", "/toolkit/calc/search?query=add", { key })).json.tools)).toEqual(["CALC_ADD"]);
  });
});

describe("connection_id filter", () => {
  it("keeps the tools whose scopes the connection holds", async () => {
    const reader = await h.insertConnection({
      agentId: "agent-a",
      toolkit: "mail",
      scopes: ["mail.read"],
      credential: { type: "oauth2", accessToken: CREDENTIALS.oauthAccessToken },
    });
    const sender = await h.insertConnection({
      agentId: "agent-a",
      toolkit: "mail",
      scopes: ["mail.read", "mail.send"],
      credential: { type: "oauth2", accessToken: CREDENTIALS.oauthAccessToken },
    });
    expect(slugs((await h.call("GET", `/toolkit/mail?connection_id=${reader}`, { key })).json.tools)).toEqual([
      "MAIL_PROFILE",
      "MAIL_READ",
    ]);
    expect(slugs((await h.call("GET", `/toolkit/mail?connection_id=${sender}`, { key })).json.tools)).toEqual([
      "MAIL_PROFILE",
      "MAIL_READ",
      "MAIL_SEND",
    ]);
    expect(slugs((await h.call("GET", `/toolkit/mail/search?query=send&connection_id=${reader}`, { key })).json.tools)).toEqual([]);
    expect(slugs((await h.call("GET", "/toolkit/mail", { key })).json.tools)).toEqual(["MAIL_PROFILE", "MAIL_READ", "MAIL_SEND"]);
  });

  it("shows every tool to a connection without recorded scopes", async () => {
    const unscoped = await h.insertConnection({
      agentId: "agent-a",
      toolkit: "mail",
      credential: { type: "oauth2", accessToken: CREDENTIALS.oauthAccessToken },
    });
    expect(slugs((await h.call("GET", `/toolkit/mail?connection_id=${unscoped}`, { key })).json.tools)).toEqual([
      "MAIL_PROFILE",
      "MAIL_READ",
      "MAIL_SEND",
    ]);
  });

  it("answers 404 for an unknown connection or one of another toolkit", async () => {
    const acme = (await h.call("GET", "/connections?toolkit=acme", { key })).json.connections[0].id;
    expectError(await h.call("GET", `/toolkit/mail?connection_id=${acme}`, { key }), 404, "not_found");
    expectError(await h.call("GET", "/toolkit/mail?connection_id=conn_missing", { key }), 404, "not_found");
  });
});
