/**
 * Every code block of README.md, CONTRIBUTING.md and docs/ is an example file that a test runs,
 * or is checked here, so the docs cannot drift from the code:
 *
 * - `<!-- file: PATH -->` before a block: the block is that file, byte for byte, and a test runs
 *   the file (an `examples/` app started by the adapter tests, or a file those apps import). A
 *   relative import in it must be shown on the same page too, so the page stands alone.
 * - a `ts` block is type-checked as a module of its own against the sources
 *   (`<!-- name: x.ts -->` names it, so that another block of the page can import `./x.js`);
 * - a `json` block is a toolkit file: `loadToolkitFile` (the catalog's, which also reads
 *   `{ "provider": ... }` entries) must accept it;
 * - an `sh` block may only hold commands the checker knows (see shell.ts): `npx tools-proxy` with
 *   commands and flags that `--help` lists, `curl` to routes of the OpenAPI document, npm scripts
 *   and packages of package.json, files of the repository;
 * - `<!-- checked by TEST -->`: that test file exists and reads this page;
 * - any other block needs `<!-- not checked: REASON -->`; those are listed as tests of their own.
 *
 * Links between pages must resolve (anchors included), and the pages a user reads (the README and
 * docs/) send them to no file the package does not ship outside the repository's docs and
 * examples: not src/, test/ or the project's design documents.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { loadToolkitFile } from "../../src/catalog/index.js";
import { createToolsHandler } from "../../src/index.js";
import { missingBuild } from "../support/serve-process.js";
import { readCliHelp } from "./cli-help.js";
import { anchors, type CodeBlock, codeBlocks, docFiles, isUserFacing, links, prose, ROOT, readDoc } from "./markdown.js";
import { checkCommandLine, commandLines, type RouteKey } from "./shell.js";
import { type Snippet, typeCheck } from "./typecheck.js";

const blocks = docFiles().flatMap(codeBlocks);
const where = (block: CodeBlock) => `${block.doc}:${block.line}`;

/** Every `.ts` file under a directory of the repository. */
function tsFilesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return name.startsWith(".") || name === "node_modules" ? [] : tsFilesUnder(path);
    return /\.m?ts$/.test(path) ? [path] : [];
  });
}

/** The files of examples/ that tests run: those a test names (a file, or a whole directory), and what they import. */
function examplesRunByTests(): Set<string> {
  const tests = tsFilesUnder("test").filter((file) => !file.startsWith("test/docs/"));
  const entries = tests.flatMap((file) =>
    [...readFileSync(join(ROOT, file), "utf8").matchAll(/["'`](examples\/[\w./[\]-]+?)["'`]/g)].map(([, path]) => path!),
  );
  // The quick start, which test/docs/quick-start.test.ts runs.
  entries.push("examples/quick-start/server.mts");
  const run = new Set<string>();
  const visit = (file: string) => {
    if (run.has(file) || !existsSync(join(ROOT, file))) return;
    run.add(file);
    for (const [, target] of readFileSync(join(ROOT, file), "utf8").matchAll(/from "(\.\.?\/[^"]+)"/g)) {
      visit(posix.normalize(posix.join(posix.dirname(file), target!)));
    }
  };
  for (const entry of entries) {
    if (!existsSync(join(ROOT, entry))) continue;
    if (statSync(join(ROOT, entry)).isDirectory()) for (const file of tsFilesUnder(entry)) visit(file);
    else if (/\.m?ts$/.test(entry)) visit(entry);
  }
  return run;
}

/** The routes of the OpenAPI document, relative to the basePath. */
async function openApiRoutes(): Promise<RouteKey[]> {
  const tools = createToolsHandler({ secret: "a-secret-of-at-least-thirty-two-bytes-for-the-docs-test" });
  const document = (await (await tools(new Request("http://localhost/proxy/tools/openapi.json"))).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path: path.slice("/proxy/tools".length) })),
  );
}

describe("docs: every code block is checked", () => {
  it("finds the pages and their blocks", () => {
    expect(docFiles()).toEqual(expect.arrayContaining(["README.md", "CONTRIBUTING.md", "docs/README.md"]));
    expect(blocks.length).toBeGreaterThan(50);
  });

  it("gives each block a way to be checked: a marker, or a language the docs test checks", () => {
    const unchecked = blocks.filter((block) => !block.marker && !["ts", "json", "sh"].includes(block.lang)).map(where);
    expect(unchecked, 'blocks that need "<!-- not checked: REASON -->", or a check').toEqual([]);
  });

  const files = blocks.filter((block) => block.marker?.kind === "file");
  const run = examplesRunByTests();
  it.each(files.map((block) => ({ block, path: (block.marker as { path: string }).path, at: where(block) })))(
    "$at shows $path exactly, a file a test runs",
    ({ block, path }) => {
      expect(existsSync(join(ROOT, path)), `${path} exists`).toBe(true);
      expect(block.code).toBe(readFileSync(join(ROOT, path), "utf8"));
      expect(run.has(path), `${path} is run by a test (started by one, or imported by a file that is)`).toBe(true);
      const shownHere = new Set(files.filter((other) => other.doc === block.doc).map((other) => (other.marker as { path: string }).path));
      for (const [, target] of block.code.matchAll(/from "(\.\.?\/[^"]+)"/g)) {
        const imported = posix.normalize(posix.join(posix.dirname(path), target!));
        expect(shownHere.has(imported), `${block.doc} shows ${imported}, which ${path} imports`).toBe(true);
      }
    },
  );

  const checkedElsewhere = blocks.filter((block) => block.marker?.kind === "checked by");
  it.each(checkedElsewhere.map((block) => ({ block, at: where(block) })))("$at is checked by the test it names", ({ block }) => {
    const test = (block.marker as { test: string }).test;
    expect(existsSync(join(ROOT, test)), `${test} exists`).toBe(true);
    expect(readFileSync(join(ROOT, test), "utf8"), `${test} reads ${block.doc}`).toContain(block.doc);
  });

  const notChecked = blocks.filter((block) => block.marker?.kind === "not checked");
  it.each(notChecked.map((block) => ({ at: where(block), reason: (block.marker as { reason: string }).reason })))(
    "$at is not checked, on purpose: $reason",
    ({ reason }) => {
      expect(reason.length).toBeGreaterThan(5);
    },
  );

  it("type-checks every ts block against the sources", () => {
    const snippets: Snippet[] = blocks
      .filter((block) => block.lang === "ts" && (!block.marker || block.marker.kind === "name"))
      .map((block) => ({
        where: where(block),
        doc: block.doc,
        name: block.marker?.kind === "name" ? block.marker.name : `block-${block.line}.ts`,
        code: block.code,
      }));
    expect(snippets.length).toBeGreaterThan(15);
    const errors = [...typeCheck(snippets)].filter(([, list]) => list.length > 0);
    expect(Object.fromEntries(errors), "type errors in the docs' ts blocks").toEqual({});
  }, 120_000);

  it("accepts every json block as a toolkit file", () => {
    const env = new Proxy({}, { get: (_, name) => `value-of-${String(name)}`, has: () => true });
    const json = blocks.filter((block) => block.lang === "json" && !block.marker);
    expect(json.length).toBeGreaterThan(1);
    for (const block of json) {
      expect(() => loadToolkitFile(block.code, { env, source: where(block) }), where(block)).not.toThrow();
    }
  });

  it("knows every command of the sh blocks: tools-proxy commands and flags, routes, scripts, files", async () => {
    const routes = await openApiRoutes();
    const cli = missingBuild ? null : readCliHelp().commands;
    const problems: string[] = [];
    let checked = 0;
    for (const block of blocks.filter((b) => b.lang === "sh" && !b.marker)) {
      const shownFiles = blocks
        .filter((b) => b.doc === block.doc && b.marker?.kind === "file")
        .map((b) => posix.basename((b.marker as { path: string }).path));
      for (const line of commandLines(block.code)) {
        checked++;
        for (const problem of checkCommandLine(line, { cli, routes, shownFiles })) problems.push(`${where(block)}: ${line}\n  ${problem}`);
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(problems).toEqual([]);
  }, 60_000);
});

describe("docs: links and what pages may show", () => {
  it("resolve to files and headings that exist", () => {
    const broken: string[] = [];
    for (const doc of docFiles()) {
      for (const { target, line } of links(doc)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [path = "", anchor] = target.split("#");
        const file = path ? normalize(join(dirname(doc), decodeURIComponent(path))) : doc;
        if (!existsSync(join(ROOT, file))) broken.push(`${doc}:${line}: ${target} (no ${file})`);
        else if (anchor && file.endsWith(".md") && !anchors(file).has(anchor))
          broken.push(`${doc}:${line}: ${target} (no heading #${anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("keep a user's pages (the README and docs/) to what they can open: no src/, test/ or design documents", () => {
    const wrong: string[] = [];
    for (const doc of docFiles().filter(isUserFacing)) {
      for (const { target, line } of links(doc)) {
        if (/^[a-z]+:/.test(target)) continue;
        const file = normalize(join(dirname(doc), target.split("#")[0]!));
        if (file.startsWith("..") || /^(src|test|scripts)\//.test(file)) wrong.push(`${doc}:${line}: ${target}`);
      }
      for (const [index, text] of prose(doc).split("\n").entries()) {
        if (/\.\.\/shared\/|SPEC\.md|CONTRACT\.md/.test(text)) wrong.push(`${doc}:${index + 1}: ${text.trim()}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("show no real-looking API key: pak_... and psk_... stand for them", () => {
    const keys = docFiles().flatMap((doc) =>
      [...readDoc(doc).matchAll(/\b(?:pak|psk)_[A-Za-z0-9_-]{8,}/g)].map(([key]) => `${doc}: ${key}`),
    );
    expect(keys).toEqual([]);
  });

  it("keep the README short: at most about 10 KB", () => {
    expect(Buffer.byteLength(readDoc("README.md"))).toBeLessThanOrEqual(10_500);
  });
});
