/** `search` and `toolkit` (details, tool search): the catalogue routes. */
import type { Command } from "commander";
import type { Tool } from "../../client/types.js";
import { agentOption, jsonOption, wholeNumber, withExamples } from "../command.js";
import { describeInputs, describeModes } from "../connect-ways.js";
import { note, out, paint, printFields, printJson, printTable } from "../output.js";
import { interruptSignal, openClient } from "../session.js";

interface PageOptions {
  limit?: string;
  cursor?: string;
  connection?: string;
  json?: boolean;
  agent?: string;
}

/** `--limit` and `--cursor` on a command that lists a page. */
function paged(command: Command, what: string): Command {
  return command
    .option("--limit <n>", `${what} per page, 1 to 200 (server default 50)`)
    .option("--cursor <cursor>", "the page after the one that printed this cursor")
    .addOption(jsonOption())
    .addOption(agentOption());
}

function page(command: Command, opts: PageOptions) {
  return { limit: wholeNumber(command, "--limit", opts.limit, 1, 200), cursor: opts.cursor };
}

/** "More: add --cursor X" on stderr, when there is a next page. */
function more(nextCursor: string | null): void {
  if (nextCursor) note(paint(process.stderr, "dim", `More: add --cursor ${nextCursor}`));
}

/** `file, text?`: a tool's argument names, optional ones with a question mark. */
function argumentList(tool: Tool): string {
  const schema = tool.inputParameters as { properties?: Record<string, unknown>; required?: string[] };
  const required = new Set(schema.required ?? []);
  return Object.keys(schema.properties ?? {})
    .map((name) => (required.has(name) ? name : `${name}?`))
    .join(", ");
}

function printTools(tools: Tool[]): void {
  printTable(
    ["TOOL", "ARGUMENTS", "DESCRIPTION"],
    tools.map((t) => [t.slug, argumentList(t), t.description]),
    "No tools.",
  );
}

/** Adds `search` and `toolkit [show] <toolkit>` / `toolkit search <toolkit> [query...]`. */
export function registerCatalog(program: Command): void {
  const search = paged(
    program.command("search").argument("[keywords...]", "words to look for in toolkit slugs, names and descriptions"),
    "toolkits",
  )
    .description("Find toolkits by keyword, most relevant first")
    .action(async (keywords: string[], opts: PageOptions) => {
      const query = { keywords: keywords.join(" ") || undefined, ...page(search, opts) };
      const { client } = openClient(opts);
      const result = await client.search(query, { signal: interruptSignal() });
      if (opts.json) return printJson(result);
      // CONFIGURED: "no" when an OAuth client is missing on the server, so that OAuth cannot start.
      printTable(
        ["TOOLKIT", "NAME", "AUTH", "TOOLS", "CONFIGURED", "CONNECTED", "DESCRIPTION"],
        result.toolkits.map((t) => [
          t.slug,
          t.name,
          t.authSchemes.join(", "),
          String(t.toolCount),
          t.configured ? "yes" : "no",
          t.connected ? "yes" : "no",
          t.description,
        ]),
        "No toolkit matches.",
      );
      more(result.nextCursor);
    });
  withExamples(search, "tools-proxy search notes", "tools-proxy search --limit 10 --json");

  const toolkit = program.command("toolkit").description("A toolkit's details and tools, or a search among its tools");

  const show = paged(toolkit.command("show", { isDefault: true }).argument("<toolkit>", "the toolkit's slug"), "tools")
    .description("Show a toolkit and its tools (the default: `tools-proxy toolkit demo`)")
    .option("--connection <id>", "the connection whose tools to show, when scopes differ")
    .action(async (slug: string, opts: PageOptions) => {
      const query = { ...page(show, opts), connection_id: opts.connection };
      const { client } = openClient(opts);
      const details = await client.getToolkit(slug, query, { signal: interruptSignal() });
      if (opts.json) return printJson(details);
      // Every way to connect, each with its command, then the inputs a connection needs.
      const labelled = (label: string, lines: string[]) => lines.map((line, i): [string, string] => [i === 0 ? label : "", line]);
      printFields([
        ["toolkit", `${details.name} (${details.slug})`],
        ...labelled("auth", describeModes(details)),
        ...labelled("inputs", describeInputs(details.inputs)),
        ["about", details.description],
      ]);
      out("");
      printTools(details.tools);
      more(details.nextCursor);
    });
  withExamples(show, "tools-proxy toolkit demo", "tools-proxy toolkit show demo --json");

  const find = paged(
    toolkit.command("search").argument("<toolkit>", "the toolkit's slug").argument("[query...]", "words to look for in its tools"),
    "tools",
  )
    .description("Find tools in a toolkit")
    .option("--connection <id>", "the connection whose tools to search, when scopes differ")
    .action(async (slug: string, query: string[], opts: PageOptions) => {
      const search = { query: query.join(" ") || undefined, ...page(find, opts), connection_id: opts.connection };
      const { client } = openClient(opts);
      const result = await client.searchTools(slug, search, { signal: interruptSignal() });
      if (opts.json) return printJson(result);
      printTools(result.tools);
      more(result.nextCursor);
    });
  withExamples(find, "tools-proxy toolkit search demo word count");
  withExamples(toolkit, "tools-proxy toolkit demo", "tools-proxy toolkit search demo notes");
}
