/** Help text the commands share, beyond what commander writes from their options. */
import { EXIT_CODES_HELP } from "./errors.js";
import { ENV_VARS } from "./session.js";

/** The storage options, after the help of serve, keys create and migrate. */
export const STORAGE_HELP = `Storage (the same for serve, keys and migrate):
  --data-dir DIR       Keep data in DIR: the SQLite database tools-proxy.db, staged files in
                       files/, and the generated secret (default ./.tools-proxy;
                       env TOOLS_PROXY_DATA_DIR)
  --database-url URL   postgres://... or mysql://... (MariaDB too) instead of the SQLite file, to
                       run several instances on one database (env TOOLS_PROXY_DATABASE_URL, which
                       keeps a password out of the process list)
  --redis-url URL      redis://...: for serve, OAuth refresh leases and the --rate-limit counts
                       in Redis, shared by the instances using it, and the news of a revoked API
                       key, which keys revoke publishes there too (env TOOLS_PROXY_REDIS_URL)`;

/** serve's environment variables, after its help. */
export const SERVE_ENVIRONMENT_HELP = `Environment:
  TOOLS_PROXY_SECRET   At least 32 bytes; encrypts stored credentials. Default: generated once
                       into DATA_DIR/secret (mode 0600). Required with --database-url, the same
                       on every instance.
  TOOLS_PROXY_RATE_LIMIT
                       The default of --rate-limit (e.g. 600/1m); --rate-limit off overrides it.`;

/** After the command list of `tools-proxy --help`. */
export const PROGRAM_HELP = `
Sign in once with "tools-proxy login"; the credentials file is
$XDG_CONFIG_HOME/tools-proxy/credentials.json (~/.config/tools-proxy on Linux,
~/Library/Application Support/tools-proxy on macOS, %APPDATA%\\tools-proxy on Windows).
Each of these variables overrides its field of the file:
  ${ENV_VARS.url.padEnd(22)} the server, e.g. http://127.0.0.1:8787
  ${ENV_VARS.workspace.padEnd(22)} the workspace
  ${ENV_VARS.apiKey.padEnd(22)} the API key
  ${ENV_VARS.agent.padEnd(22)} the agent a workspace service key (psk_...) acts for;
  ${"".padEnd(22)} --agent A on a command overrides it

Results go to stdout (tables, or JSON with --json); progress, notes and errors to stderr.
Colours only on a terminal, never with NO_COLOR set.

${EXIT_CODES_HELP}

Run "tools-proxy <command> --help" for the options of a command.

Examples:
  tools-proxy serve --port 8787
  tools-proxy login --url http://127.0.0.1:8787 --workspace local
  tools-proxy search notes
  tools-proxy execute DEMO_CREATE_NOTE --arg text="Buy milk"
`;

/**
 * The command as the user can type it: "npx tools-proxy" when npm started this process (`npx
 * tools-proxy ...`, `npm run serve`, a script of the user's package), as in a clone, where
 * "tools-proxy" alone is not on PATH; else "tools-proxy". Any `npm_command` counts: npm names
 * the same command differently across versions ("run-script" up to npm 10, "run" from npm 11),
 * and `npx tools-proxy` works wherever npm could start the bin.
 */
export function commandName(env: NodeJS.ProcessEnv = process.env): string {
  return env.npm_command ? "npx tools-proxy" : "tools-proxy";
}
