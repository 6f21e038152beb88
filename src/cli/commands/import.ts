/**
 * `import openapi <file>`: an OpenAPI or Swagger document as a JSON toolkit on stdout, for
 * `serve --toolkits`; what the import left out goes to stderr, one warning per line. With
 * `--out DIR`, any number of documents and folders become one compiled collection in DIR.
 */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { collect, usageError, wholeNumber, withExamples } from "../command.js";
import { CliError } from "../errors.js";
import { printJson, warn } from "../output.js";

interface ImportOptionValues {
  baseUrl?: string;
  slug?: string;
  name?: string;
  includeTag?: string[];
  excludeTag?: string[];
  includePath?: string[];
  excludePath?: string[];
  includeOperation?: string[];
  excludeOperation?: string[];
  includeDeprecated?: boolean;
  maxTools?: string;
  out?: string;
  defaultBaseUrl?: string;
}

/** Adds `import openapi <file>`. */
export function registerImport(program: Command): void {
  const group = program
    .command("import")
    .description("Make a toolkit file from an API description: import openapi <file>")
    .argument("[format]")
    .usage("openapi <file> [options]")
    .action((format?: string) => {
      throw usageError(
        group,
        format ? `unknown format "${format}"; the one format is "openapi".` : 'missing the format: "import openapi <file>".',
      );
    });

  const openapi = group
    .command("openapi")
    .argument("<files...>", "an OpenAPI 3.0 or 3.1 or Swagger 2.0 document, JSON or YAML (with --out: documents and folders)")
    .summary("Print a JSON toolkit made from an OpenAPI or Swagger document, one tool per operation")
    .description(
      "Print a JSON toolkit (the format of serve --toolkits) made from an OpenAPI 3.0, 3.1 or Swagger 2.0 document, JSON or YAML: " +
        "one tool per operation, its servers and security schemes as the base URL and the ways to connect. " +
        "What could not be imported is listed on stderr.",
    )
    .option("--base-url <url>", "the API's address: replaces the document's server URL, or completes a relative one")
    .option("--slug <slug>", "the toolkit's slug, which prefixes every tool's (default: from the document's title)")
    .option("--name <name>", "the toolkit's name (default: the document's title)")
    .option("--include-tag <tag>", "import only operations with this tag. Repeatable", collect)
    .option("--exclude-tag <tag>", "leave out operations with this tag. Repeatable", collect)
    .option("--include-path <pattern>", "import only paths matching this pattern (* within a segment, ** across). Repeatable", collect)
    .option("--exclude-path <pattern>", "leave out paths matching this pattern. Repeatable", collect)
    .option("--include-operation <id>", "import only this operationId. Repeatable", collect)
    .option("--exclude-operation <id>", "leave out this operationId. Repeatable", collect)
    .option("--include-deprecated", "import deprecated operations too")
    .option("--max-tools <n>", "at most this many tools, the first operations of the document")
    .option(
      "--out <dir>",
      "compile every document given (folders searched for .json, .yaml, .yml) into a collection in DIR, for serve --toolkits DIR",
    )
    .option("--default-base-url <url>", "with --out: the address of documents whose server URL is relative")
    .action(async (files: string[], opts: ImportOptionValues) => {
      const maxTools = wholeNumber(openapi, "--max-tools", opts.maxTools, 1, 100_000);
      if (opts.out !== undefined) return compile(openapi, files, opts.out, opts, maxTools);
      if (files.length > 1) throw usageError(openapi, "several documents make a collection: add --out <dir>.");
      if (opts.defaultBaseUrl !== undefined)
        throw usageError(openapi, "--default-base-url goes with --out; for one document use --base-url.");
      const file = files[0]!;
      if (opts.baseUrl !== undefined && !/^https?:\/\/[^/]/i.test(opts.baseUrl))
        throw usageError(openapi, "--base-url must be an http(s) URL such as https://api.example.com.");
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (error) {
        throw new CliError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? "error"}).`);
      }
      const { importOpenApi, OpenApiImportError } = await import("../../openapi/index.js");
      try {
        const { toolkit, warnings } = await importOpenApi(text, {
          baseUrl: opts.baseUrl,
          slug: opts.slug,
          name: opts.name,
          includeTags: opts.includeTag,
          excludeTags: opts.excludeTag,
          includePaths: opts.includePath,
          excludePaths: opts.excludePath,
          includeOperations: opts.includeOperation,
          excludeOperations: opts.excludeOperation,
          includeDeprecated: opts.includeDeprecated,
          maxTools,
        });
        for (const warning of warnings) warn(`warning: ${warning}`);
        printJson(toolkit);
      } catch (error) {
        if (!(error instanceof OpenApiImportError)) throw error;
        if (error.code === "invalid_option")
          throw usageError(
            openapi,
            error.message.replace(/^(slug|baseUrl|maxTools)/, (name) => FLAGS[name]!),
          );
        throw new CliError(`${file}: ${error.message}`);
      }
    });
  withExamples(
    openapi,
    "tools-proxy import openapi petstore.yaml --base-url https://petstore.example.com > petstore.json",
    "tools-proxy import openapi github.json --include-path '/repos/**' --max-tools 50 > github.json",
    "tools-proxy import openapi ./apis --out ./collection && tools-proxy serve --toolkits ./collection",
  );
}

/** `--out DIR`: the documents compiled into a collection, one line per document left out, and a summary. */
async function compile(command: Command, files: string[], out: string, opts: ImportOptionValues, maxTools: number | undefined) {
  const filters = [
    "baseUrl",
    "slug",
    "name",
    "includeTag",
    "excludeTag",
    "includePath",
    "excludePath",
    "includeOperation",
    "excludeOperation",
  ];
  const given = filters.filter((name) => opts[name as keyof ImportOptionValues] !== undefined);
  if (given.length > 0)
    throw usageError(command, "--out compiles whole documents: leave out the options that shape one document's toolkit.");
  if (opts.defaultBaseUrl !== undefined && !/^https?:\/\/[^/]/i.test(opts.defaultBaseUrl))
    throw usageError(command, "--default-base-url must be an http(s) URL such as https://api.example.com.");
  const { compileCollection } = await import("../compile-collection.js");
  let result: Awaited<ReturnType<typeof compileCollection>>;
  try {
    result = await compileCollection(files, out, {
      ...(opts.defaultBaseUrl ? { defaultBaseUrl: opts.defaultBaseUrl } : {}),
      ...(opts.includeDeprecated ? { includeDeprecated: true } : {}),
      ...(maxTools ? { maxTools } : {}),
      onDocument: (file, outcome) => {
        if ("skipped" in outcome) warn(`left out ${file}: ${outcome.skipped}`);
      },
    });
  } catch (error) {
    throw new CliError(`cannot compile the collection: ${(error as Error).message}`);
  }
  process.stdout.write(
    `collection ${out}: ${result.toolkits} toolkits, ${result.tools} tools (${result.skipped} documents left out); serve it with --toolkits ${out}\n`,
  );
}

const FLAGS: Record<string, string> = { slug: "--slug", baseUrl: "--base-url", maxTools: "--max-tools" };
