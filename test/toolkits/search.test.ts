import { describe, expect, it } from "vitest";
import { ToolsError } from "../../src/core/errors.js";
import { createCursors } from "../../src/credentials/cursors.js";
import { createSigner } from "../../src/credentials/signer.js";
import { defineToolkit, type ToolkitDefinition } from "../../src/toolkits/define.js";
import { rank, searchToolkits, singular } from "../../src/toolkits/search.js";

const items = [
  { slug: "slack", name: "Slack", description: "Team chat: send messages to channels." },
  { slug: "github", name: "GitHub", description: "Code hosting, issues and pull requests." },
  { slug: "gitlab", name: "GitLab", description: "Code hosting with CI." },
  { slug: "linear", name: "Linear", description: "Issue tracking for software teams." },
  { slug: "github_enterprise", name: "GitHub Enterprise", description: "Self-hosted GitHub." },
];
const slugs = (list: typeof items) => list.map((item) => item.slug);
const self = <T>(item: T) => item;

describe("rank", () => {
  it("keeps the original order for an empty or blank query", () => {
    expect(slugs(rank(items, undefined, self))).toEqual(slugs(items));
    expect(slugs(rank(items, "", self))).toEqual(slugs(items));
    expect(slugs(rank(items, "   ", self))).toEqual(slugs(items));
  });

  it("puts an exact slug match first, case-insensitively", () => {
    const result = slugs(rank(items, "GitHub", self));
    expect(result[0]).toBe("github");
    expect(result).toEqual(["github", "github_enterprise"]);
  });

  it("ranks slug and name matches above description matches and drops non-matches", () => {
    expect(slugs(rank(items, "issue", self))).toEqual(["github", "linear"]);
    expect(slugs(rank(items, "pull", self))).toEqual(["github"]);
    expect(slugs(rank(items, "hosting", self))).toEqual(["github", "gitlab"]);
    const apps = [
      { slug: "docs", name: "Docs", description: "Embeds your calendar in documents." },
      { slug: "cal", name: "Calendar", description: "Events." },
      { slug: "calendly", name: "Booking", description: "Scheduling links." },
    ];
    expect(slugs(rank(apps, "calendar", self))).toEqual(["cal", "docs"]);
    expect(slugs(rank(apps, "cal", self))).toEqual(["cal", "calendly", "docs"]);
    expect(rank(items, "weather", self)).toEqual([]);
  });

  it("matches prefixes of slug words and splits slugs on underscores", () => {
    // github_enterprise also mentions GitHub in its description, so it edges out the others.
    expect(slugs(rank(items, "git", self))).toEqual(["github_enterprise", "github", "gitlab"]);
    expect(slugs(rank(items, "enterprise", self))).toEqual(["github_enterprise"]);
  });

  it("scores every query word and keeps the original order on ties", () => {
    const tools = [
      { slug: "GITHUB_LIST_ISSUES", name: "List issues", description: "Lists issues of a repository." },
      { slug: "GITHUB_CREATE_ISSUE", name: "Create issue", description: "Opens an issue." },
      { slug: "GITHUB_CREATE_PR", name: "Create pull request", description: "Opens a pull request." },
    ];
    // Plural and singular are the same word.
    expect(rank(tools, "create issue", self).map((t) => t.slug)).toEqual(["GITHUB_CREATE_ISSUE", "GITHUB_LIST_ISSUES", "GITHUB_CREATE_PR"]);
    expect(rank(tools, "pull", self).map((t) => t.slug)).toEqual(["GITHUB_CREATE_PR"]);
    expect(rank(tools, "github", self).map((t) => t.slug)).toEqual(tools.map((t) => t.slug));
    expect(rank(tools, "github_create_pr", self)[0]!.slug).toBe("GITHUB_CREATE_PR");
  });

  it("counts a default-set item's score twice: a weaker match of the default set can come first", () => {
    const items = [
      { slug: "A_GET_SPREADSHEET", name: "Get spreadsheet cells", description: "" },
      { slug: "A_READ", name: "Read cells", description: "Reads a spreadsheet's cells.", default: true },
    ];
    // The first has both words in its name, the second one (26 points to 40): doubled, the second wins.
    expect(rank(items, "spreadsheet cells", (item) => item).map((item) => item.slug)).toEqual(["A_READ", "A_GET_SPREADSHEET"]);
    // A match in the name still beats a doubled one in the description (20 points to 6).
    expect(rank(items, "spreadsheet", (item) => item).map((item) => item.slug)).toEqual(["A_GET_SPREADSHEET", "A_READ"]);
  });

  it("ignores stop words unless the query has nothing else", () => {
    expect(slugs(rank(items, "the issues", self))).toEqual(["github", "linear"]);
    expect(slugs(rank(items, "with", self))).toEqual(["gitlab"]);
  });
});

describe("searchToolkits", () => {
  const toolkit = (definition: Partial<ToolkitDefinition> & { slug: string }) =>
    defineToolkit({ name: definition.slug, description: "", auth: { type: "none" }, tools: [], ...definition });
  const found = (toolkits: ReturnType<typeof toolkit>[], keywords: string | undefined) =>
    searchToolkits(toolkits, keywords).map((t) => t.slug);

  it("matches a whole alias or category before words of a description", () => {
    const mail = toolkit({ slug: "gmail", name: "Gmail", aliases: ["google mail", "inbox"], categories: ["email"] });
    const drive = toolkit({ slug: "drive", name: "Google Drive", description: "Files, and mail attachments saved from Gmail." });
    expect(found([drive, mail], "google mail")).toEqual(["gmail", "drive"]);
    expect(found([drive, mail], "inbox")).toEqual(["gmail"]);
    expect(found([drive, mail], "emails")).toEqual(["gmail"]);
  });

  it("ranks a toolkit whose main category is the query above one where it is a side category", () => {
    const side = toolkit({ slug: "a-side", name: "A", categories: ["support", "email"] });
    const main = toolkit({ slug: "b-main", name: "B", categories: ["email", "calendar"] });
    expect(found([side, main], "email")).toEqual(["b-main", "a-side"]);
    expect(found([side, main], "project management")).toEqual([]);
    const pm = toolkit({ slug: "pm", categories: ["project-management"] });
    expect(found([side, pm], "project management")).toEqual(["pm"]);
  });

  const tool = (slug: string, name: string, description: string) => ({
    slug,
    name,
    description,
    inputParameters: { type: "object" as const },
    run: () => null,
  });

  it("finds toolkits by their tools' descriptions, below every other field", () => {
    const withTool = toolkit({ slug: "books", name: "Books", tools: [tool("BOOKS_SEND", "Send", "Emails an invoice.")] });
    const described = toolkit({ slug: "ledger", name: "Ledger", description: "Invoices and bills." });
    expect(found([withTool, described], "invoices")).toEqual(["ledger", "books"]);
  });

  it("ranks a toolkit with a tool named for every word of the query above toolkits that only mention them", () => {
    // As the catalog's "send an email": SendGrid's name and category match, but only Gmail can send one.
    const api = toolkit({ slug: "sendgrid", name: "SendGrid", description: "Transactional email API.", categories: ["email"] });
    const mail = toolkit({
      slug: "gmail",
      name: "Gmail",
      categories: ["email"],
      tools: [tool("GMAIL_SEARCH_MESSAGES", "Search messages", "Finds mail."), tool("GMAIL_SEND_EMAIL", "Send email", "Sends a message.")],
    });
    expect(found([api, mail], "send an email")).toEqual(["gmail", "sendgrid"]);
    expect(found([api, mail], "sends emails")).toEqual(["gmail", "sendgrid"]);
    // A tool that holds only some of the words adds little.
    expect(found([api, mail], "send transactional email")).toEqual(["sendgrid", "gmail"]);
    // A name asked for still comes first.
    expect(found([api, mail], "sendgrid")).toEqual(["sendgrid"]);
  });

  it("gives no tool bonus to a one-word query, which a tool's verb or object matches too often", () => {
    // "lists" is a word of many tools' names; the toolkit the word describes comes first.
    const lists = toolkit({ slug: "listly", name: "Listly", description: "Mailing lists." });
    const board = toolkit({ slug: "board", name: "Board", tools: [tool("BOARD_GET_LISTS", "Get lists", "Lists of a board.")] });
    expect(found([board, lists], "lists")).toEqual(["listly", "board"]);
    expect(found([board, lists], "get lists")).toEqual(["board", "listly"]);
  });

  it("breaks ties by the registry's order, and without keywords keeps that order", () => {
    const zeta = toolkit({ slug: "a", name: "Zeta", categories: ["crm"] });
    const alpha = toolkit({ slug: "b", name: "alpha", categories: ["crm"] });
    const beta = toolkit({ slug: "c", name: "Beta", categories: ["crm"] });
    expect(found([zeta, alpha, beta], "crm")).toEqual(["a", "b", "c"]);
    expect(found([beta, zeta, alpha], "crm")).toEqual(["c", "a", "b"]);
    expect(found([zeta, alpha, beta], undefined)).toEqual(["a", "b", "c"]);
    expect(found([zeta, alpha, beta], " ")).toEqual(["a", "b", "c"]);
  });

  it("prefers toolkits that match more words of a multi-word query", () => {
    // Video alone scores more for its category than Meet for two description words, but covers half the query.
    const video = toolkit({ slug: "v", name: "A", categories: ["video"] });
    const meetings = toolkit({ slug: "meet", name: "B", description: "Video meetings." });
    expect(found([video, meetings], "video meetings")).toEqual(["meet", "v"]);
  });
});

describe("singular", () => {
  it.each([
    ["tickets", "ticket"],
    ["companies", "company"],
    ["inboxes", "inbox"],
    ["matches", "match"],
    ["addresses", "address"],
    ["status", "status"],
    ["analysis", "analysis"],
    ["sms", "sms"],
    ["docs", "doc"],
    ["ties", "tie"],
  ])("%s is %s", (word, expected) => {
    expect(singular(word)).toBe(expected);
  });
});

describe("signed cursors", () => {
  const numbers = Array.from({ length: 12 }, (_, i) => i);
  const cursors = createCursors(createSigner("test-secret-for-cursors-0123456789abcdef", "cursor"));
  const paginate = cursors.paginate;

  it("walks every page with exact counts and ends with a null cursor", async () => {
    const pages: number[][] = [];
    let cursor: string | undefined;
    do {
      const { page, nextCursor } = await paginate(numbers, { limit: 5, cursor, fingerprint: "q" });
      pages.push(page);
      cursor = nextCursor ?? undefined;
    } while (cursor);
    expect(pages).toEqual([
      [0, 1, 2, 3, 4],
      [5, 6, 7, 8, 9],
      [10, 11],
    ]);
  });

  it("gives a null cursor when everything fits, including an exact fit", async () => {
    expect(await paginate(numbers, { limit: 50, fingerprint: "q" })).toEqual({ page: numbers, nextCursor: null });
    const first = await paginate(numbers, { limit: 6, fingerprint: "q" });
    expect(await paginate(numbers, { limit: 6, cursor: first.nextCursor!, fingerprint: "q" })).toEqual({
      page: [6, 7, 8, 9, 10, 11],
      nextCursor: null,
    });
    expect(await paginate([], { limit: 5, fingerprint: "q" })).toEqual({ page: [], nextCursor: null });
  });

  it("returns opaque URL-safe cursors", async () => {
    const { nextCursor } = await paginate(numbers, { limit: 5, fingerprint: "search:github" });
    expect(nextCursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(nextCursor).not.toContain("github");
  });

  it("rejects a tampered or malformed cursor with a 400 ToolsError", async () => {
    const { nextCursor } = await paginate(numbers, { limit: 5, fingerprint: "q" });
    for (const bad of [
      `${nextCursor}!`,
      "not-a-cursor",
      "e30",
      btoa('{"o":-1,"f":"x"}'),
      nextCursor!.slice(0, -3),
      `${nextCursor}.x`,
      `.${nextCursor!.split(".")[1]}`,
    ]) {
      const error = await cursors.decode(bad, "q").catch((e: unknown) => e);
      expect(error, bad).toBeInstanceOf(ToolsError);
      expect((error as ToolsError).status).toBe(400);
    }
  });

  it("rejects a hand-made cursor for a real query: a far offset, or a real payload with another's tag", async () => {
    const real = (await paginate(numbers, { limit: 5, fingerprint: "q" })).nextCursor!;
    const [payload, tag] = real.split(".");
    const forged = JSON.parse(atob(payload!.replace(/-/g, "+").replace(/_/g, "/")));
    forged.o = 1e9;
    const forgedPayload = btoa(JSON.stringify(forged)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
    for (const bad of [`${forgedPayload}.${tag}`, forgedPayload]) {
      const error = await cursors.decode(bad, "q").catch((e: unknown) => e);
      expect((error as ToolsError).code, bad).toBe("invalid_request");
    }
    const other = createCursors(createSigner("another-secret-of-at-least-32-bytes!!", "cursor"));
    await expect(other.decode(real, "q")).rejects.toThrow(/not issued by this server/);
  });

  it("accepts cursors signed with an older secret of a rotation list", async () => {
    const old = createCursors(createSigner("old-secret-of-at-least-32-bytes-long!!", "cursor"));
    const rotated = createCursors(
      createSigner(["new-secret-of-at-least-32-bytes-long!!", "old-secret-of-at-least-32-bytes-long!!"], "cursor"),
    );
    expect(await rotated.decode(await old.encode(5, "q"), "q")).toBe(5);
  });

  it("rejects a cursor reused with another query", async () => {
    const { nextCursor } = await paginate(numbers, { limit: 5, fingerprint: "search:git" });
    expect(await cursors.decode(nextCursor!, "search:git")).toBe(5);
    await expect(paginate(numbers, { limit: 5, cursor: nextCursor!, fingerprint: "search:slack" })).rejects.toThrow(/another query/);
  });
});
