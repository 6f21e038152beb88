/**
 * What a reader of the package can follow: package.json names the repository (where the docs,
 * tests and issues are), and the comments of the sources cite only files of that repository and
 * public pages, never a document outside it (a planning note, a contract kept elsewhere, an issue
 * number of a private tracker).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

/** Every TypeScript file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(c|m)?tsx?$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** The comments of a file (found through the parser, so a `//` in a string or a regex is none), with their line. */
function comments(file: string): Array<{ line: number; text: string }> {
  const text = readFileSync(join(ROOT, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = new Map<number, { line: number; text: string }>();
  const visit = (node: ts.Node) => {
    const ranges = [...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getTrailingCommentRanges(text, node.end) ?? [])];
    for (const range of ranges) {
      const line = source.getLineAndCharacterOfPosition(range.pos).line + 1;
      found.set(range.pos, { line, text: text.slice(range.pos, range.end) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...found.values()];
}

/** Citations of documents no reader of the package has: names of notes kept outside it, sections, tracker numbers. */
const ELSEWHERE =
  /\b(?:CONTRACT|SPEC|STYLE|BRIEF|PLAN|HANDOFF|NOTES)\b|(?<!RFC \d{3,5} )§|\b[Ii]ssues? ?#?\d+|(?<![\w&])#\d+\b|\b[Pp]lanning (?:doc|note)|\b[Ss]ession notes?\b|\b[A-Z][A-Z_-]+\.md\b/;
/** A path into the repository, as a comment cites one: `docs/guide/x.md`, `test/cli/y.test.ts`. */
const REPOSITORY_PATH = /(?<![\w./-])((?:docs|test|bench|scripts|examples|src|adapters)\/[\w./-]*\w)/g;

describe("package metadata", () => {
  it("package.json names the repository, its home page and where to report a bug, all on one GitHub repository", () => {
    expect(pkg.repository).toEqual({ type: "git", url: expect.stringMatching(/^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/) });
    const home = new URL(pkg.repository.url.replace(/^git\+/, "").replace(/\.git$/, ""));
    expect(pkg.homepage).toBe(`${home.href}#readme`);
    expect(pkg.bugs).toEqual({ url: `${home.href}/issues` });
  });
});

describe("source comments", () => {
  const files = [...sources("src"), ...sources("adapters")];

  it("cite no document outside the repository", () => {
    const cited = files.flatMap((file) =>
      comments(file)
        .filter((comment) => ELSEWHERE.test(comment.text))
        .map((comment) => `${file}:${comment.line}: ${ELSEWHERE.exec(comment.text)![0]}`),
    );
    expect(cited).toEqual([]);
  });

  it("cite only files the repository has", () => {
    const missing = files.flatMap((file) =>
      comments(file).flatMap((comment) =>
        [...comment.text.matchAll(REPOSITORY_PATH)]
          .map((match) => match[1]!)
          .filter((path) => !existsSync(join(ROOT, path)))
          .map((path) => `${file}:${comment.line}: ${path}`),
      ),
    );
    expect(missing).toEqual([]);
  });

  it("the check finds a citation of a note kept elsewhere, and not an RFC section or a colour", () => {
    expect(ELSEWHERE.test("CONTRACT §7's fields")).toBe(true);
    expect(ELSEWHERE.test("see issue #29")).toBe(true);
    expect(ELSEWHERE.test("as PLAN.md says")).toBe(true);
    expect(ELSEWHERE.test("RFC 6749 section 2.3.1, `#rrggbb`, &#39;")).toBe(false);
  });
});
