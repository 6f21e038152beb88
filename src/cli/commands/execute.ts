/** `execute <tool>`: runs a tool with arguments given as JSON, from a file or stdin, or as `--arg key=value`. */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import type { ExecutionResult } from "../../client/types.js";
import { agentOption, collect, jsonOption, usageError, withExamples } from "../command.js";
import { CliError, EXIT } from "../errors.js";
import { formatValue, out, printJson } from "../output.js";
import { readStdinText } from "../prompt.js";
import { interruptSignal, openClient } from "../session.js";

interface ExecuteOptions {
  args?: string;
  argsFile?: string;
  arg?: string[];
  connection?: string;
  json?: boolean;
  agent?: string;
}

/** Adds `execute <tool>`. */
export function registerExecute(program: Command): void {
  const execute = program
    .command("execute")
    .argument("<tool>", "the tool's slug, e.g. DEMO_CREATE_NOTE")
    .description("Run a tool and print its data (a failed tool exits 1 with its error)")
    .option("--args <json>", "the arguments as a JSON object")
    .option("--args-file <file>", 'a file holding the arguments as a JSON object ("-" for stdin)')
    .option(
      "--arg <key=value>",
      "one argument (repeatable, applied after --args); the value is parsed as JSON when it is valid JSON, else taken as a string",
      collect,
    )
    .option("--connection <id>", "the connection to use, when you have several for the toolkit")
    .addOption(jsonOption())
    .addOption(agentOption())
    .action(async (tool: string, opts: ExecuteOptions) => {
      const args = await toolArguments(execute, opts);
      const { client } = openClient(opts);
      const result = await client.execute({ tool, arguments: args, connection_id: opts.connection }, { signal: interruptSignal() });
      printResult(result, opts.json, "the tool failed");
    });
  withExamples(
    execute,
    `tools-proxy execute DEMO_CREATE_NOTE --arg text="Buy milk"`,
    `tools-proxy execute DEMO_WORD_COUNT --args '{"file":"stg_..."}' --json`,
    "tools-proxy execute DEMO_LIST_NOTES --args-file args.json",
  );
}

/** The arguments object: --args or --args-file (not both), then each --arg over it. */
export async function toolArguments(command: Command, opts: ExecuteOptions): Promise<Record<string, unknown>> {
  if (opts.args !== undefined && opts.argsFile !== undefined) throw usageError(command, "give --args or --args-file, not both.");
  let args: Record<string, unknown> = {};
  if (opts.args !== undefined) args = jsonObject(command, opts.args, "--args");
  if (opts.argsFile !== undefined) {
    const file = opts.argsFile;
    let text: string;
    try {
      text = file === "-" ? await readStdinText("the arguments") : readFileSync(file, "utf8");
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new CliError(`cannot read the arguments file ${file} (${(error as NodeJS.ErrnoException).code ?? "error"}).`);
    }
    args = jsonObject(command, text, file === "-" ? "stdin" : file);
  }
  for (const pair of opts.arg ?? []) {
    const at = pair.indexOf("=");
    if (at < 1) throw usageError(command, `--arg takes key=value, not "${pair}".`);
    args[pair.slice(0, at)] = jsonOrString(pair.slice(at + 1));
  }
  return args;
}

function jsonObject(command: Command, text: string, from: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw usageError(command, `${from} is not valid JSON (${(error as Error).message}).`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw usageError(command, `${from} must be a JSON object, such as {"text": "Buy milk"}.`);
  return value as Record<string, unknown>;
}

/** `42` → 42, `true` → true, `{"a":1}` → an object, `hello` → "hello". */
export function jsonOrString(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Prints an ExecutionResult: with --json all of it, else the data (strings as they are). A result
 * with `successful: false` then fails the command (exit 1) with its error on stderr.
 */
export function printResult(result: ExecutionResult, json: boolean | undefined, what: string, head?: string[]): void {
  if (json) printJson(result);
  else {
    if (head) out(...head);
    if (result.data !== null && result.data !== undefined) out(formatValue(result.data));
  }
  if (result.successful) return;
  const details = [
    result.code,
    result.upstreamStatus ? `upstream status ${result.upstreamStatus}` : "",
    result.retryable ? "retryable" : "",
  ]
    .filter(Boolean)
    .join(", ");
  throw new CliError(`${what}: ${result.error ?? "no reason given"}${details ? ` (${details})` : ""}`, EXIT.failure);
}
