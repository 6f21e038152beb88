/**
 * The reference pages against what they describe, so that they change when the code does:
 * options against the options schema (every option, its real default), routes against the OpenAPI
 * document, the command-line reference against `--help`, the error tables against the code's
 * tables, the README's imports against package.json's exports and what each subpath exports,
 * the mutation-testing page against its configuration, CONTRIBUTING's layout table against src/,
 * and the decisions page's dependency tables against package.json.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { SELECTION } from "../../mutation.config.mjs";
import { RESULT_CODES } from "../../src/core/results.js";
import * as core from "../../src/index.js";
import { optionsSchema } from "../../src/options.js";
import { DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_DELAY_MS } from "../../src/outbound/retry.js";
import { missingBuild } from "../support/serve-process.js";
import { readCliHelp } from "./cli-help.js";
import { codeSpans, links, ROOT, readDoc, section, table, tables } from "./markdown.js";
import { SUBPATH_SOURCES } from "./subpaths.js";

const packageJson = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** The directory of src/ a file is in (its first segment), or "." for the files of src/ itself. */
function directoryOf(file: string): string {
  const path = relative(join(ROOT, "src"), file);
  return path.includes("/") ? path.split("/")[0]! : ".";
}

/** A zod schema's own definition (zod 4 keeps it on `_zod.def`). */
type Def = { type: string; innerType?: Schema; shape?: Record<string, Schema> };
type Schema = { _zod: { def: Def }; safeParse(value: unknown): { success: boolean; data?: unknown } };

/** The schema under `.optional()`, `.default()` and `.prefault()`. */
function unwrap(schema: Schema): Schema {
  let current = schema;
  while (current._zod.def.innerType) current = current._zod.def.innerType;
  return current;
}

/** Every documented option path (`basePath`, `timeouts.toolMs`, ...) with its schema. */
function optionLeaves(): Map<string, Schema> {
  const leaves = new Map<string, Schema>();
  for (const [name, schema] of Object.entries((optionsSchema as unknown as { shape: Record<string, Schema> }).shape)) {
    const inner = unwrap(schema);
    if (inner._zod.def.type === "object" && inner._zod.def.shape) {
      for (const [key, field] of Object.entries(inner._zod.def.shape)) leaves.set(`${name}.${key}`, field);
    } else leaves.set(name, schema);
  }
  return leaves;
}

/** Defaults applied outside the schema, where an absent value is resolved. */
const RUNTIME_DEFAULTS: Record<string, unknown> = {
  "retries.baseDelayMs": DEFAULT_BASE_DELAY_MS,
  "retries.maxDelayMs": DEFAULT_MAX_DELAY_MS,
};

/** The value a default cell states: its first code span as JSON, or an export of `tools-proxy` it names. */
function statedDefault(cell: string): { stated: true; value: unknown } | { stated: false } {
  const span = codeSpans(cell)[0];
  if (span === undefined) return { stated: false };
  if (/^[A-Z][A-Z0-9_]+$/.test(span) && span in core) return { stated: true, value: (core as Record<string, unknown>)[span] };
  try {
    return { stated: true, value: JSON.parse(span) };
  } catch {
    return { stated: false };
  }
}

describe("docs/guide/options.md", () => {
  const rows = table(section("docs/guide/options.md", "Every option"), "option");
  const documented = new Map(rows.map(([option = "", defaultCell = ""]) => [codeSpans(option)[0]!, defaultCell]));

  it("lists every option of createToolsHandler, nested ones by their path, and no other", () => {
    expect([...documented.keys()].sort()).toEqual([...optionLeaves().keys()].sort());
  });

  it.each([...optionLeaves()].map(([path, schema]) => ({ path, schema })))("gives $path its real default", ({ path, schema }) => {
    const parsed = schema.safeParse(undefined);
    const actual = path in RUNTIME_DEFAULTS ? RUNTIME_DEFAULTS[path] : parsed.success ? parsed.data : undefined;
    const stated = statedDefault(documented.get(path) ?? "");
    if (actual === undefined) expect(stated, `${path} has no default value, so its cell names none`).toEqual({ stated: false });
    else expect(stated, `${path}: ${JSON.stringify(actual)}`).toEqual({ stated: true, value: actual });
  });
});

describe("docs/reference/routes.md", () => {
  it("lists the routes of the OpenAPI document, with their parameters and whether they need a key", async () => {
    const tools = core.createToolsHandler({ secret: "a-secret-of-at-least-thirty-two-bytes-for-the-docs-test" });
    const document = (await (await tools(new Request("http://localhost/proxy/tools/openapi.json"))).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: Array<{ in: string; name: string }>;
            requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
            security?: unknown[];
          }
        >
      >;
    };
    const fromDocument = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => ({
        route: `${method.toUpperCase()} ${path.slice("/proxy/tools".length)}`,
        key: operation.security?.length === 0 ? "no" : "yes",
        fields: [
          ...(operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
          ...Object.values(operation.requestBody?.content ?? {}).flatMap((c) => Object.keys(c.schema.properties ?? {})),
        ].sort(),
      })),
    );
    const fromPage = table(readDoc("docs/reference/routes.md"), "route").map(([route = "", key = "", fields = ""]) => ({
      route: codeSpans(route)[0]!,
      key,
      fields: codeSpans(fields).sort(),
    }));
    // The MCP server is a route the document leaves out: its body is JSON-RPC, described by the MCP specification.
    fromDocument.push({ route: "POST /mcp", key: "yes", fields: ["toolkits"] });
    // So is the passthrough: its paths are the provider's.
    fromDocument.push({ route: "ANY /passthrough/{toolkit}/{path}", key: "yes", fields: ["x-connection-id"] });
    const byRoute = (a: { route: string }, b: { route: string }) => a.route.localeCompare(b.route);
    expect(fromPage.sort(byRoute)).toEqual(fromDocument.sort(byRoute));
  });
});

describe.skipIf(missingBuild)(missingBuild ? `docs/reference/cli.md (skipped: ${missingBuild})` : "docs/reference/cli.md", () => {
  const page = readDoc("docs/reference/cli.md");
  const help = readCliHelp();

  it("documents every command that --help lists (each leaf command: the groups only hold them)", () => {
    const documented = [...page.matchAll(/^### `tools-proxy (.+)`$/gm)].map(([, path]) => path!);
    const leaves = help.commands.filter((c) => c.path && c.subcommands.length === 0).map((c) => c.path);
    expect([...documented].sort()).toEqual([...leaves].sort());
  });

  it.each(help.commands.filter((c) => c.path && c.subcommands.length === 0))(
    "gives tools-proxy $path the usage and exactly the options of its --help",
    (command) => {
      const start = page.indexOf(`### \`tools-proxy ${command.path}\`\n`);
      const end = page.indexOf("\n### ", start + 1);
      const text = page.slice(start, end === -1 ? undefined : end);
      expect(text).toContain(`Usage: \`${command.usage}\``);
      const documented = tables(text, "option").flatMap((rows) => rows.map(([flags = ""]) => codeSpans(flags)[0]!));
      const helped = command.options.filter((o) => !o.names.includes("--help")).map((o) => o.flags);
      expect(documented).toEqual(helped);
    },
  );

  it("lists the exit codes that --help prints", () => {
    const codes = table(section("docs/reference/cli.md", "Exit codes"), "code").map(([code]) => code);
    expect(codes).toEqual(help.exitCodes);
  });

  it("names the default subcommands that --help marks", () => {
    for (const command of help.commands.filter((c) => c.defaultSubcommand)) {
      expect(section("docs/reference/cli.md", "Default subcommands").replace(/\s+/g, " ")).toContain(
        `is \`${command.path} ${command.defaultSubcommand}`,
      );
    }
  });
});

describe("docs/guide/errors.md", () => {
  it("gives every error code its status, as ERROR_STATUS does", () => {
    const rows = table(section("docs/guide/errors.md", "Error answers"), "code");
    expect(Object.fromEntries(rows.map(([code = "", status = ""]) => [codeSpans(code)[0], Number(status)]))).toEqual(core.ERROR_STATUS);
  });

  it("lists every result code and whether it is retryable, as RESULT_CODES does", () => {
    const rows = table(section("docs/guide/errors.md", "When a call fails"), "code");
    const words: Record<string, unknown> = { yes: true, no: false, "by status": "by status" };
    expect(Object.fromEntries(rows.map(([code = "", retryable = ""]) => [codeSpans(code)[0], words[retryable]]))).toEqual(
      Object.fromEntries(Object.entries(RESULT_CODES).map(([code, { retryable }]) => [code, retryable])),
    );
  });
});

describe("README.md: what each import gives", () => {
  const rows = table(section("README.md", "What each import gives"), "import");

  it("has a row per subpath of package.json's exports", () => {
    const subpaths = Object.keys(packageJson.exports).map((key) => (key === "." ? "tools-proxy" : `tools-proxy/${key.slice(2)}`));
    expect(rows.map(([name = ""]) => codeSpans(name)[0]).sort()).toEqual(subpaths.sort());
    expect(Object.keys(SUBPATH_SOURCES).sort()).toEqual(subpaths.filter((s) => s !== "tools-proxy/package.json").sort());
  });

  it.each(
    rows
      .filter(([name = ""]) => codeSpans(name)[0] !== "tools-proxy/package.json")
      .map(([name = "", gives = ""]) => ({
        subpath: codeSpans(name)[0]!,
        names: codeSpans(gives),
      })),
  )("$subpath exports what the table says it gives", async ({ subpath, names }) => {
    const module = await import(join(ROOT, SUBPATH_SOURCES[subpath]!));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(Object.keys(module), `${subpath} exports ${name}`).toContain(name);
  });
});

describe("README.md: the documentation list", () => {
  it("links every guide page, so that a newcomer can reach each from the README", () => {
    // The pages of docs/guide/ itself; a folder (agents/) is reached through its README, which its row links.
    const guide = readdirSync(join(ROOT, "docs/guide"))
      .filter((file) => file.endsWith(".md"))
      .map((file) => `docs/guide/${file}`);
    const listed = new Set(links("README.md").map(({ target }) => target.split("#")[0]));
    expect(guide.length).toBeGreaterThan(12);
    expect(guide.filter((page) => !listed.has(page)).sort()).toEqual([]);
  });
});

describe("docs/mutation-testing.md", () => {
  it("lists the files of mutation.config.mjs", () => {
    const rows = table(section("docs/mutation-testing.md", "The files and their tests"), "file");
    expect(rows.map(([file = ""]) => codeSpans(file)[0])).toEqual(Object.keys(SELECTION));
  });
});

describe("docs/reference/decisions.md: dependencies", () => {
  const rows = tables(section("docs/reference/decisions.md", "Dependencies"), "package").flat();

  it("gives the reason for every package in package.json", () => {
    const listed = new Set(rows.flatMap(([name = ""]) => codeSpans(name)));
    const all = Object.keys({ ...packageJson.dependencies, ...packageJson.devDependencies, ...packageJson.peerDependencies });
    expect(all.filter((name) => !listed.has(name))).toEqual([]);
  });

  it("gives each package one line, not an essay", () => {
    expect(rows.filter(([, why = ""]) => why.length > 120).map(([name]) => name)).toEqual([]);
  });
});

describe("CONTRIBUTING.md", () => {
  it("stays at most 8 KB: set-up, tests, layout and commits, with the rest in docs/", () => {
    expect(statSync(join(ROOT, "CONTRIBUTING.md")).size).toBeLessThanOrEqual(8 * 1024);
  });

  it("numbers the layers of src/ as they import: each layer only from lower ones", () => {
    const rows = table(section("CONTRIBUTING.md", "Layout"), "layer");
    const layerOf = new Map<string, string>();
    for (const [layer = "", dirs = ""] of rows) {
      for (const span of codeSpans(dirs)) layerOf.set(/^src\/[^/]+\.ts$/.test(span) ? "." : span.replace(/^src\/|\/$/g, ""), layer);
    }
    const wrong: string[] = [];
    for (const file of sourceFiles(join(ROOT, "src"))) {
      const from = directoryOf(file);
      const fromLayer = Number(layerOf.get(from));
      if (Number.isNaN(fromLayer)) continue; // a directory apart: it may import any layer
      for (const imported of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) {
        if (!imported.fileName.startsWith(".")) continue;
        const to = directoryOf(resolve(dirname(file), imported.fileName));
        const toLayer = Number(layerOf.get(to));
        if (to !== from && !(toLayer < fromLayer))
          wrong.push(`${relative(ROOT, file)} (layer ${fromLayer}) imports ${to} (layer ${layerOf.get(to)})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("describes every directory of src/ in its layout", () => {
    const rows = table(section("CONTRIBUTING.md", "Layout"), "layer");
    const listed = new Set(rows.flatMap(([, dirs = ""]) => codeSpans(dirs)));
    const dirs = readdirSync(join(ROOT, "src")).filter((name) => statSync(join(ROOT, "src", name)).isDirectory());
    expect(dirs.map((dir) => `src/${dir}/`).filter((dir) => !listed.has(dir))).toEqual([]);
    const files = readdirSync(join(ROOT, "src")).filter((name) => name.endsWith(".ts"));
    expect(files.map((file) => `src/${file}`).filter((file) => !listed.has(file))).toEqual([]);
  });
});
