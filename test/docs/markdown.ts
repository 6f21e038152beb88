/**
 * Reading the docs as the docs tests see them: the Markdown files, their fenced code blocks with
 * the marker comment before each, their tables, links and headings.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root, ending without a slash. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

/** What the comment line before a code block says about it. */
export type Marker =
  /** The block is this file of the repository, byte for byte. */
  | { kind: "file"; path: string }
  /** A `ts` block to type-check under this file name, so that other blocks of the page can import it. */
  | { kind: "name"; name: string }
  /** Another test checks the block; `test` names it. */
  | { kind: "checked by"; test: string; note: string }
  /** Nothing checks the block, for the reason given. */
  | { kind: "not checked"; reason: string };

export interface CodeBlock {
  /** The Markdown file, relative to the repository root. */
  doc: string;
  /** The line of the opening fence, from 1. */
  line: number;
  lang: string;
  /** The block's text, ending with a newline. */
  code: string;
  marker: Marker | null;
  /** The `##` heading the block is under, or "" before the first. */
  section: string;
}

/** The Markdown files the docs tests check: README.md, CONTRIBUTING.md and every page under docs/. */
export function docFiles(): string[] {
  const pages = (dir: string): string[] =>
    readdirSync(join(ROOT, dir)).flatMap((name) => {
      const path = `${dir}/${name}`;
      if (statSync(join(ROOT, path)).isDirectory()) return pages(path);
      return name.endsWith(".md") ? [path] : [];
    });
  return ["README.md", "CHANGELOG.md", "CONTRIBUTING.md", ...pages("docs").sort()];
}

/** Pages a user of the package reads: the README and docs/, which must not send them into src/ or test/. */
export const isUserFacing = (doc: string) => doc === "README.md" || doc === "CHANGELOG.md" || doc.startsWith("docs/");

export function readDoc(doc: string): string {
  return readFileSync(join(ROOT, doc), "utf8");
}

function parseMarker(line: string): Marker | null {
  const comment = /^<!--\s*(.*?)\s*-->$/.exec(line.trim())?.[1];
  if (comment === undefined) return null;
  let match: RegExpExecArray | null;
  if ((match = /^file: (\S+)$/.exec(comment))) return { kind: "file", path: match[1]! };
  if ((match = /^name: (\S+)$/.exec(comment))) return { kind: "name", name: match[1]! };
  if ((match = /^checked by (\S+?)(?::\s*(.*))?$/.exec(comment))) return { kind: "checked by", test: match[1]!, note: match[2] ?? "" };
  if ((match = /^not checked: (.+)$/.exec(comment))) return { kind: "not checked", reason: match[1]! };
  return null;
}

/** Every fenced code block of a Markdown file, in order. */
export function codeBlocks(doc: string): CodeBlock[] {
  const lines = readDoc(doc).split("\n");
  const blocks: CodeBlock[] = [];
  let section = "";
  for (let i = 0; i < lines.length; i++) {
    const heading = /^## (.*)$/.exec(lines[i]!);
    if (heading) section = heading[1]!;
    const open = /^( {0,3})```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent = "", lang = ""] = open;
    let end = i + 1;
    while (end < lines.length && !/^ {0,3}```\s*$/.test(lines[end]!)) end++;
    if (end === lines.length) throw new Error(`${doc}:${i + 1}: a code block is not closed`);
    const code = lines
      .slice(i + 1, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      .join("\n");
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === "") before--;
    blocks.push({ doc, line: i + 1, lang, code: `${code}\n`, marker: before >= 0 ? parseMarker(lines[before]!) : null, section });
    i = end;
  }
  return blocks;
}

/** The text of a Markdown file with its code blocks blanked out, lines kept (for links and prose checks). */
export function prose(doc: string): string {
  return readDoc(doc).replace(/^ {0,3}```[\s\S]*?^ {0,3}```[ \t]*$/gm, (block) => block.replace(/[^\n]/g, ""));
}

/** The section of a Markdown file under `## title`, up to the next `## ` heading. */
export function section(doc: string, title: string): string {
  const text = readDoc(doc);
  const start = text.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`${doc} has no section "## ${title}"`);
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** The cells of a table row, with `\|` kept as `|`. */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, "")
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replaceAll("\\|", "|"));
}

/** Each table of `text` whose first header cell is `firstHeader`: its body rows, as cells. */
export function tables(text: string, firstHeader: string): string[][][] {
  const found: string[][][] = [];
  const lines = text.split("\n");
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i]!.trim().startsWith("|") || !/^\s*\|[\s|:-]+\|\s*$/.test(lines[i + 1]!)) continue;
    if (cells(lines[i]!)[0] !== firstHeader) continue;
    const rows: string[][] = [];
    for (let j = i + 2; j < lines.length && lines[j]!.trim().startsWith("|"); j++) rows.push(cells(lines[j]!));
    found.push(rows);
  }
  return found;
}

/** The one table of `text` whose first header cell is `firstHeader`. */
export function table(text: string, firstHeader: string): string[][] {
  const found = tables(text, firstHeader);
  if (found.length !== 1) throw new Error(`expected one table headed "${firstHeader}", found ${found.length}`);
  return found[0]!;
}

/** The code spans of a Markdown fragment, e.g. the names in a table cell. */
export function codeSpans(text: string): string[] {
  return [...text.matchAll(/(`+)(.+?)\1/g)].map(([, , span]) => span!.trim());
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a Markdown file's headings. */
export function anchors(doc: string): Set<string> {
  return new Set([...prose(doc).matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => slug(heading!)));
}

/** Every link of a Markdown file outside code blocks, with its line. */
export function links(doc: string): Array<{ target: string; line: number }> {
  const text = prose(doc);
  return [...text.matchAll(/(?<!!)\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => ({
    target: match[1]!,
    line: text.slice(0, match.index).split("\n").length,
  }));
}

/** A path relative to the repository root. */
export const fromRoot = (path: string) => relative(ROOT, path);
