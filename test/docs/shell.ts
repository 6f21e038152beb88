/**
 * Checks the commands of the docs' `sh` blocks without running them: `npx tools-proxy ...` against
 * what `--help` lists, `curl` against the routes of the OpenAPI document, npm scripts and packages
 * against package.json, and files against the repository. A command the checker does not know
 * is a failure, so a new kind of command needs a rule here.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CliCommand } from "./cli-help.js";
import { ROOT } from "./markdown.js";

/** One route of the OpenAPI document, its path relative to the basePath, e.g. `GET /toolkit/{toolkit}`. */
export interface RouteKey {
  method: string;
  path: string;
}

export interface ShellContext {
  /** The commands `--help` lists, or null when the bin is not built (then tools-proxy lines are not checked). */
  cli: CliCommand[] | null;
  routes: RouteKey[];
  /** File names that a `node FILE` line may run: the files the page shows. */
  shownFiles: string[];
}

/** The command lines of a block: continuations joined, blank lines and comments left out. */
export function commandLines(block: string): string[] {
  return block
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

type Token = { word: string } | { operator: string };

/** Splits a line as a POSIX shell would into words (quotes removed) and operators; stops at a comment. */
export function tokenize(line: string): Token[] {
  const tokens: Token[] = [];
  let word: string | null = null;
  const end = () => {
    if (word !== null) tokens.push({ word });
    word = null;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close === -1) throw new Error(`unclosed ' in: ${line}`);
      word = (word ?? "") + line.slice(i + 1, close);
      i = close;
    } else if (c === '"') {
      let j = i + 1;
      let text = "";
      for (; j < line.length && line[j] !== '"'; j++) text += line[j] === "\\" ? line[++j] : line[j];
      if (j >= line.length) throw new Error(`unclosed " in: ${line}`);
      word = (word ?? "") + text;
      i = j;
    } else if (c === "\\") word = (word ?? "") + line[++i];
    else if (/\s/.test(c)) end();
    else if (c === "#" && word === null) break;
    else if ("|&;<>".includes(c)) {
      end();
      const two = line.slice(i, i + 2);
      const operator = ["&&", "||", ">>"].includes(two) ? two : c;
      tokens.push({ operator });
      i += operator.length - 1;
    } else word = (word ?? "") + c;
  }
  end();
  return tokens;
}

/** The simple commands of a line, as words, with redirections and their targets left out. */
export function simpleCommands(line: string): string[][] {
  const commands: string[][] = [[]];
  let redirect = false;
  for (const token of tokenize(line)) {
    if ("operator" in token) {
      if ([">", ">>", "<"].includes(token.operator)) redirect = true;
      else commands.push([]);
    } else if (redirect) redirect = false;
    else commands.at(-1)!.push(token.word);
  }
  return commands.filter((words) => words.length > 0);
}

const packageJson = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const PACKAGES = new Set([
  packageJson.name,
  ...Object.keys({ ...packageJson.dependencies, ...packageJson.devDependencies, ...packageJson.peerDependencies }),
]);
/** Commands that only move text around in the reader's shell. */
const HARMLESS = new Set(["printf", "cat", "wc", "echo"]);
/** Runtimes and tools the project installs, run through npx with a file of the repository. */
const NPX_TOOLS = new Set(["node", "bun", "deno", "next", "vitest"]);

/** The problems of one command line; empty when it is fine. */
export function checkCommandLine(line: string, context: ShellContext): string[] {
  return simpleCommands(line).flatMap((words) => {
    while (words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words.shift();
    if (words.length === 0) return []; // an assignment
    const [command, ...args] = words as [string, ...string[]];
    if (HARMLESS.has(command)) return [];
    if (command === "npm") return checkNpm(args);
    if (command === "curl") return checkCurl(args, context.routes);
    if (command === "bash") return args.filter((a) => !a.startsWith("-") && !existsSync(join(ROOT, a))).map((a) => `no file ${a}`);
    if (command === "node") {
      const file = args.find((a) => /\.(ts|mts|js|mjs)$/.test(a));
      return file && context.shownFiles.includes(file) ? [] : [`node runs ${file ?? "nothing"}, which the page does not show`];
    }
    if (command === "npx") {
      const [tool, ...rest] = args;
      if (tool === "tools-proxy") return context.cli ? checkCli(rest, context.cli) : [];
      if (tool && NPX_TOOLS.has(tool)) {
        const paths = rest.filter((a) => /^(examples|test|src|scripts)\//.test(a));
        return paths.filter((p) => !existsSync(join(ROOT, p))).map((p) => `no file ${p}`);
      }
      return [`npx ${tool}: not a tool this project installs`];
    }
    return [`unknown command "${command}": the docs test knows no rule for it`];
  });
}

function checkNpm(args: string[]): string[] {
  const [sub, ...rest] = args;
  if (sub === "test") return [];
  if (sub === "install") {
    const missing = rest.filter((a) => !a.startsWith("-") && !PACKAGES.has(a.replace(/(.)@.*$/, "$1")));
    return missing.map((name) => `npm install ${name}: not a dependency in package.json`);
  }
  if (sub === "run") {
    const script = rest.find((a) => !a.startsWith("-"));
    return script && packageJson.scripts[script] ? [] : [`npm run ${script}: no such script in package.json`];
  }
  return [`npm ${sub}: the docs test knows no rule for it`];
}

function checkCurl(args: string[], routes: RouteKey[]): string[] {
  let method: string | null = null;
  let body = false;
  let url: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "-X" || arg === "--request") method = args[++i]!;
    else if (["-d", "--data", "-F", "--form"].includes(arg)) (body = true), i++;
    else if (["-H", "--header", "-w", "--write-out", "-o", "--output"].includes(arg)) i++;
    else if (!arg.startsWith("-")) url = arg;
  }
  if (!url) return ["curl without a URL"];
  const path = /^(?:\$API|http:\/\/127\.0\.0\.1:8787\/proxy\/tools)(\/[^?]*)/.exec(url)?.[1];
  if (!path) return [`curl ${url}: not a route of the API ($API/... or http://127.0.0.1:8787/proxy/tools/...)`];
  const verb = method ?? (body ? "POST" : "GET");
  const found = routes.some((route) => route.method === verb && new RegExp(`^${route.path.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path));
  return found ? [] : [`curl: ${verb} ${path} is not a route of the OpenAPI document`];
}

/** Follows the words after `tools-proxy` down the command tree, then checks each flag. */
function checkCli(words: string[], cli: CliCommand[]): string[] {
  const byPath = new Map(cli.map((command) => [command.path, command]));
  let command = byPath.get("")!;
  let i = 0;
  while (command.subcommands.length) {
    const next = words[i];
    if (next && command.subcommands.includes(next)) {
      command = byPath.get(command.path ? `${command.path} ${next}` : next)!;
      i++;
    } else if (next?.startsWith("-")) break;
    else if (command.defaultSubcommand) command = byPath.get(`${command.path} ${command.defaultSubcommand}`.trim())!;
    else return [`tools-proxy ${[command.path, next].filter(Boolean).join(" ")}: no such command in --help`];
  }
  const problems: string[] = [];
  for (; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") break;
    if (!word.startsWith("-") || word === "-") continue;
    const name = word.split("=")[0]!;
    const option = command.options.find((o) => o.names.includes(name));
    if (!option && !(command.path === "" && ["-V", "--version"].includes(name))) {
      problems.push(`tools-proxy ${command.path} has no option ${name} in --help`);
      continue;
    }
    if (option && /<[^>]+>/.test(option.flags) && !word.includes("=")) i++; // its value
  }
  return problems;
}
