/**
 * The command line as `--help` describes it: every command, its options and the exit codes,
 * read from the built bin (`npm run build` first). The docs are compared with this, so a flag
 * that is added, renamed or removed shows up as a failing docs test.
 */
import { spawnSync } from "node:child_process";
import { BIN } from "../support/serve-process.js";

export interface CliOption {
  /** As help prints it, e.g. `-o, --output <file>`. */
  flags: string;
  /** Each spelling, e.g. `-o` and `--output`. */
  names: string[];
  description: string;
}

export interface CliCommand {
  /** The words after `tools-proxy`, e.g. `keys create`; empty for the program itself. */
  path: string;
  usage: string;
  description: string;
  options: CliOption[];
  /** Subcommand names, and the one run when none is named (`toolkit demo` is `toolkit show demo`). */
  subcommands: string[];
  defaultSubcommand: string | null;
}

function help(path: string): string {
  const result = spawnSync(process.execPath, [BIN, ...(path ? path.split(" ") : []), "--help"], {
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, NO_COLOR: "1" },
  });
  if (result.status !== 0) throw new Error(`tools-proxy ${path} --help exited ${result.status}: ${result.stderr}`);
  return result.stdout;
}

/** The lines of a help section ("Options:", "Commands:") up to the next blank line, continuations joined. */
function section(text: string, title: string): string[] {
  const start = text.indexOf(`\n${title}\n`);
  if (start === -1) return [];
  const body = text.slice(start + title.length + 2).split("\n\n")[0]!;
  const entries: string[] = [];
  for (const line of body.split("\n")) {
    if (/^ {2}\S/.test(line)) entries.push(line.trim());
    else if (entries.length) entries[entries.length - 1] += ` ${line.trim()}`;
  }
  return entries;
}

function parse(path: string): CliCommand {
  const text = help(path);
  const usage = /^Usage: (.*)$/m.exec(text)?.[1] ?? "";
  const description = text.split("\n\n")[1]?.replace(/\s+/g, " ").trim() ?? "";
  const options = section(text, "Options:").map((entry) => {
    const [, flags = "", rest = ""] = /^((?:-\w, )?--?[\w-]+(?: <[^>]+>| \[[^\]]+\])?)\s+(.*)$/.exec(entry) ?? [];
    return { flags, names: flags.split(/,? /).filter((word) => word.startsWith("-")), description: rest };
  });
  const commands = section(text, "Commands:").map((entry) => entry.split(/\s+/)[0]!);
  const subcommands = commands.filter((name) => name !== "help");
  const defaultEntry = section(text, "Commands:").find((entry) => /\(the default: /.test(entry));
  return { path, usage, description, options, subcommands, defaultSubcommand: defaultEntry ? defaultEntry.split(/\s+/)[0]! : null };
}

/** Every command, the program first, then each command and subcommand in help's order. */
export function readCliHelp(): { commands: CliCommand[]; exitCodes: string[] } {
  const commands: CliCommand[] = [];
  const visit = (path: string) => {
    const command = parse(path);
    commands.push(command);
    for (const name of command.subcommands) visit(path ? `${path} ${name}` : name);
  };
  visit("");
  const exitCodes = section(help(""), "Exit codes:").map((entry) => entry.split(/\s+/)[0]!);
  return { commands, exitCodes };
}
