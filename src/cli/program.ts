/**
 * The `tools-proxy` command, on commander, run by main.ts once the Node
 * version is checked: `login`/`logout`/`whoami` and one command per route (search, auth,
 * connections, toolkit, execute, proxy, upload, files), built on the typed client; `serve`,
 * `keys` and `migrate` for a local server and its data; `import openapi` for a toolkit file.
 *
 * Results go to stdout, everything else to stderr; the exit codes are in errors.ts (EXIT).
 * Nothing here prints an API key, except the keys that `serve` and `keys create` make, once.
 */
import { createRequire } from "node:module";
import { CliCommand } from "./command.js";
import { registerAuth } from "./commands/auth.js";
import { registerCatalog } from "./commands/catalog.js";
import { registerConnections } from "./commands/connections.js";
import { registerExecute } from "./commands/execute.js";
import { registerFiles } from "./commands/files.js";
import { registerImport } from "./commands/import.js";
import { registerKeys } from "./commands/keys.js";
import { registerLogin } from "./commands/login.js";
import { registerProxy } from "./commands/proxy.js";
import { registerServe } from "./commands/serve.js";
import { registerMigrate } from "./commands/storage.js";
import { describeFailure, EXIT, UsageError } from "./errors.js";
import { paint, terminalSafe } from "./output.js";
import { agentRequired } from "./session.js";
import { PROGRAM_HELP } from "./usage.js";

/** The program with every command; exported for tests that inspect the help. */
export function createProgram(): CliCommand {
  const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };
  const program = new CliCommand("tools-proxy")
    .description("The Tools API from the command line: connect toolkits, run tools, stage files; or run a server.")
    .version(version, "-V, --version", "print the version")
    .helpOption("-h, --help", "show this help")
    .helpCommand("help [command]", "show help for a command")
    .showSuggestionAfterError(true)
    .addHelpText("after", PROGRAM_HELP) as CliCommand;
  program.configureHelp({ sortSubcommands: false, showGlobalOptions: false });
  registerLogin(program);
  registerCatalog(program);
  registerAuth(program);
  registerConnections(program);
  registerExecute(program);
  registerProxy(program);
  registerFiles(program);
  registerServe(program);
  registerKeys(program);
  registerMigrate(program);
  registerImport(program);
  return program;
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0) throw new UsageError("a command is missing.");
  await createProgram().parseAsync(argv, { from: "user" });
  return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
}

/** Exits once stdout and stderr have taken everything written to them. */
function exit(code: number): void {
  let pending = 2;
  const done = () => --pending === 0 && process.exit(code);
  process.stdout.write("", done);
  process.stderr.write("", done);
}

// A reader that went away (`tools-proxy files stg_... | head -c 10`) is not a failure.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(EXIT.ok);
});

main(process.argv.slice(2)).then(exit, (error: unknown) => {
  const prefix = paint(process.stderr, "red", "tools-proxy:");
  if (error instanceof UsageError) {
    process.stderr.write(
      `${prefix} ${terminalSafe(error.message)}\nRun "tools-proxy ${error.command ? `${error.command} ` : ""}--help" for usage.\n`,
    );
    return exit(EXIT.usage);
  }
  const { message, exitCode } = describeFailure(agentRequired(error) ?? error);
  process.stderr.write(`${prefix} ${terminalSafe(message)}\n`); // the server's words among them
  exit(exitCode);
});
