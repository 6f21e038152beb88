import { describe, expect, it } from "vitest";
import { ToolsError } from "../src/core/errors.js";
import { createCursors } from "../src/credentials/cursors.js";
import { createSigner } from "../src/credentials/signer.js";
import { rank } from "../src/toolkits/search.js";

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

  it("ignores stop words unless the query has nothing else", () => {
    expect(slugs(rank(items, "the issues", self))).toEqual(["github", "linear"]);
    expect(slugs(rank(items, "with", self))).toEqual(["gitlab"]);
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
