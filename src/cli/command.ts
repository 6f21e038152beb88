import { Command, Option } from "commander";
import { UsageError } from "./errors.js";

/**
 * A commander Command whose parse errors (unknown command or option, missing argument, ...) throw
 * a UsageError naming the command, instead of printing and exiting: main.ts prints every usage
 * error the same way and exits 2. Subcommands made with `.command()` are CliCommands too.
 */
export class CliCommand extends Command {
  override createCommand(name?: string): CliCommand {
    return new CliCommand(name);
  }

  override error(message: string): never {
    throw new UsageError(sentence(message), commandPath(this));
  }
}

/** "error: unknown option '--x'" as `unknown option "--x".` */
function sentence(message: string): string {
  const text = message
    .replace(/^error: /, "")
    .replace(/\s*\(Did you mean (.+)\?\)$/, " (did you mean $1?)")
    .replace(/'([^']*)'/g, '"$1"');
  return /[.?)]$/.test(text) ? text : `${text}.`;
}

/** "keys create" for the create command under keys; "" for the program itself. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** Adds `Example:` / `Examples:` lines after a command's help, the form every command's help ends with. */
export function withExamples<C extends Command>(command: C, ...examples: string[]): C {
  const title = examples.length > 1 ? "Examples" : "Example";
  return command.addHelpText("after", `\n${title}:\n${examples.map((line) => `  ${line}`).join("\n")}\n`);
}

/** `--json`: the route's JSON answer on stdout instead of a table. */
export const jsonOption = () => new Option("--json", "print the JSON answer, for scripts");

/**
 * `--agent <id>` on every command that calls the server: the agent a workspace service key acts
 * for (sent as x-agent-id), over SVC_WORKSPACE_AGENT_ID and the agent saved by `login --agent`.
 */
export const agentOption = () =>
  new Option(
    "--agent <id>",
    "with a workspace service key (psk_...): act for this agent (default $SVC_WORKSPACE_AGENT_ID, else the agent saved by login)",
  );

/** A usage error for `command`'s help. */
export function usageError(command: Command, message: string): UsageError {
  return new UsageError(message, commandPath(command));
}

/** Collects a repeatable option's values into an array. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** A whole number from `min` to `max` given to `flag`, or a usage error. */
export function wholeNumber(command: Command, flag: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max)
    throw usageError(command, `${flag} must be a whole number from ${min} to ${max}, not "${text}".`);
  return value;
}
