/**
 * `auth <toolkit>`: connects a toolkit. API-key, bearer and basic toolkits connect at once from
 * the credential (an option, stdin, or a prompt that hides it); OAuth toolkits print the
 * authorization URL (and open it with --open), then wait with a spinner until the connection is
 * made, failed or expired. With --link any toolkit does the same with a connect link, whose page
 * asks the person for the credential. `auth status <id>` checks (or waits for) an authorization.
 */
import type { Command } from "commander";
import type { ToolsClient } from "../../client/client.js";
import { isToolsClientError, ToolsClientError } from "../../client/errors.js";
import type { ConnectRequest, FinishedAuthorization } from "../../client/types.js";
import { openInBrowser } from "../browser.js";
import { agentOption, collect, jsonOption, usageError, wholeNumber, withExamples } from "../command.js";
import { otherWaysToConnect } from "../connect-ways.js";
import { CliError, EXIT } from "../errors.js";
import { note, out, paint, printJson } from "../output.js";
import { startSpinner } from "../progress.js";
import { canPrompt, promptVisible, readSecret } from "../prompt.js";
import { interruptSignal, openClient } from "../session.js";

interface StartOptions {
  label?: string;
  param?: string[];
  apiKey?: string;
  token?: string;
  username?: string;
  password?: string;
  open?: boolean;
  link?: boolean;
  wait: boolean;
  interval?: string;
  json?: boolean;
  agent?: string;
}

/** Adds `auth [start] <toolkit>` and `auth status <id>`. */
export function registerAuth(program: Command): void {
  const auth = program.command("auth").description("Connect a toolkit (OAuth in the browser, or with an API key, token or password)");

  const start = auth
    .command("start", { isDefault: true })
    .argument("<toolkit>", "the toolkit's slug")
    .description("Connect a toolkit (the default: `tools-proxy auth demo`)")
    .option("--label <label>", "a name for the connection, to tell several apart")
    .option("--param <name=value>", "a value for a placeholder of the toolkit's URL, e.g. subdomain=acme (repeatable)", collect)
    .option("--api-key <key>", "for an apiKey toolkit: the key (else read from stdin, or asked for without echo)")
    .option("--token <token>", "for a bearer toolkit: the token (else read from stdin, or asked for without echo)")
    .option("--username <name>", "for a basic toolkit: the user name (the password from --password, stdin, or a hidden prompt)")
    .option("--password <password>", "for a basic toolkit: the password")
    .option("--link", "make a connect link instead: a person types the credential on a page of the server, never here")
    .option("--open", "OAuth or --link: open the URL in the browser ($BROWSER, open, xdg-open)")
    .option("--no-wait", "OAuth or --link: print the URL and exit instead of waiting")
    .option("--interval <ms>", "OAuth or --link: milliseconds between two status checks (default 1000)")
    .addOption(jsonOption())
    .addOption(agentOption())
    .action(async (toolkit: string, opts: StartOptions) => {
      const interval = wholeNumber(start, "--interval", opts.interval, 100, 60_000);
      const { client } = openClient(opts);
      const signal = interruptSignal();
      const given = await credentialsFromOptions(start, opts);
      if (given && opts.link)
        throw usageError(start, "--link asks for the credential in the browser: leave out --api-key, --token and --username.");
      const credentials = opts.link ? null : (given ?? (await credentialsForScheme(client, toolkit, opts, signal)));
      if (credentials) {
        const { connection } = await client.connect(
          { toolkit, label: opts.label, config: params(start, opts.param), credentials },
          { signal },
        );
        if (opts.json) return printJson({ connection });
        return out(`Connected ${connection.toolkit}: ${connection.id} (${connection.status})`);
      }
      const started = await client
        .startAuthorization({ toolkit, label: opts.label, config: params(start, opts.param) }, { signal })
        .catch(async (error: unknown) => {
          throw await withOtherWays(client, toolkit, error, signal);
        });
      // A connect link's page asks for a credential (or starts the sign-in): the wait says which.
      const link = opts.link || isConnectPage(started.authorizationUrl);
      if (opts.json) out(JSON.stringify(started));
      else {
        note(`Open this URL in a browser to connect ${toolkit} (valid until ${new Date(started.expiresAt).toLocaleTimeString()}):`);
        out(started.authorizationUrl);
      }
      if (opts.open)
        note(
          (await openInBrowser(started.authorizationUrl))
            ? "Opened it in your browser."
            : "Could not start a browser: open the URL yourself.",
        );
      if (!opts.wait) return note(`Then check it with: tools-proxy auth status ${started.authorizationId} --wait`);
      report(await waitFor(client, started.authorizationId, interval, opts.json, link), opts.json, link);
    });
  withExamples(
    start,
    "tools-proxy auth github --open",
    "tools-proxy auth demo --api-key demo-key",
    "tools-proxy auth demo --link --open",
    'printf "%s" "$TOKEN" | tools-proxy auth acme --json',
  );

  const status = auth
    .command("status")
    .argument("<authorizationId>", "the id printed by `auth --no-wait` (or --json)")
    .description("Show where an OAuth authorization stands; with --wait, wait until it is over")
    .option("--wait", "wait until it is connected, failed or expired")
    .option("--interval <ms>", "milliseconds between two checks (default 1000)")
    .addOption(jsonOption())
    .addOption(agentOption())
    .action(async (id: string, opts: { wait?: boolean; interval?: string; json?: boolean; agent?: string }) => {
      const interval = wholeNumber(status, "--interval", opts.interval, 100, 60_000);
      const { client } = openClient(opts);
      if (opts.wait) return report(await waitFor(client, id, interval, opts.json), opts.json);
      const current = await client.getAuthorization(id, { signal: interruptSignal() });
      if (current.status === "pending") return opts.json ? printJson(current) : out("pending");
      report(current as FinishedAuthorization, opts.json);
    });
  withExamples(status, "tools-proxy auth status auth_3kTq0bS1 --wait");
  withExamples(auth, "tools-proxy auth github --open", "tools-proxy auth demo --api-key demo-key");
}

/** The credentials given as options, or null when none was. */
async function credentialsFromOptions(command: Command, opts: StartOptions): Promise<ConnectRequest["credentials"] | null> {
  const given = [opts.apiKey !== undefined, opts.token !== undefined, opts.username !== undefined || opts.password !== undefined].filter(
    Boolean,
  ).length;
  if (given > 1) throw usageError(command, "give one of --api-key, --token, or --username with --password.");
  if (opts.apiKey !== undefined) return { apiKey: opts.apiKey };
  if (opts.token !== undefined) return { token: opts.token };
  if (opts.username === undefined && opts.password !== undefined) throw usageError(command, "--password needs --username.");
  if (opts.username !== undefined)
    return { username: opts.username, password: opts.password ?? (await readSecret("the password", "Password: ")) };
  return null;
}

/** For a toolkit connected with a credential, reads it (stdin or a hidden prompt); null for OAuth. */
async function credentialsForScheme(
  client: ToolsClient,
  toolkit: string,
  opts: StartOptions,
  signal: AbortSignal,
): Promise<ConnectRequest["credentials"] | null> {
  const { authScheme, name } = await client.getToolkit(toolkit, { limit: 1 }, { signal });
  switch (authScheme) {
    case "oauth2":
      return null;
    case "apiKey":
      return { apiKey: await readSecret(`the API key for ${name}`, `API key for ${name}: `) };
    case "bearer":
      return { token: await readSecret(`the token for ${name}`, `Token for ${name}: `) };
    case "basic": {
      if (!canPrompt())
        throw new CliError(
          `${name} connects with a user name and password: pass --username, and the password on stdin or with --password.`,
          EXIT.usage,
        );
      const username = await promptVisible(`User name for ${name}: `);
      return { username, password: opts.password ?? (await readSecret("the password", "Password: ")) };
    }
    default:
      throw new CliError(`${name} needs no connection: execute its tools directly.`);
  }
}

/**
 * The server's 400 for an OAuth client its operator has not set, with the toolkit's other ways to
 * connect in the CLI's words appended (Slack: "Or connect with a token (Bot or user token):
 * tools-proxy auth slack --token TOKEN."); any other error as it is.
 */
async function withOtherWays(client: ToolsClient, toolkit: string, error: unknown, signal: AbortSignal): Promise<unknown> {
  if (!isToolsClientError(error) || error.status !== 400) return error;
  const details = await client.getToolkit(toolkit, { limit: 1 }, { signal }).catch(() => null);
  const others = details && otherWaysToConnect(details);
  if (!others) return error;
  return new ToolsClientError(error.code, `${error.message} ${others}`, { status: error.status, cause: error });
}

/** Whether `url` is a connect link's page (`.../connect/auth_...`) rather than a provider's sign-in. */
function isConnectPage(url: string): boolean {
  try {
    return new URL(url).pathname.split("/").at(-2) === "connect";
  } catch {
    return false;
  }
}

/** `--param name=value` pairs as an object. */
function params(command: Command, pairs: string[] = []): Record<string, string> | undefined {
  if (!pairs.length) return undefined;
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf("=");
      if (at < 1) throw usageError(command, `--param takes name=value, not "${pair}".`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/**
 * Polls until the authorization is over, with a spinner on a terminal; Ctrl+C stops with a hint.
 * `link`: a connect link, whose page may ask for a key rather than a sign-in.
 */
async function waitFor(
  client: ToolsClient,
  id: string,
  intervalMs: number | undefined,
  json?: boolean,
  link = false,
): Promise<FinishedAuthorization> {
  const signal = interruptSignal();
  const started = Date.now();
  const waiting = link ? "Waiting for the connection to be made on that page" : "Waiting for the sign-in to complete";
  if (!process.stderr.isTTY && !json) note(`${waiting}...`);
  const spinner = startSpinner(() => `${waiting} (${Math.round((Date.now() - started) / 1000)} s; Ctrl+C to stop)`);
  try {
    return await client.waitForAuthorization(id, { signal, intervalMs });
  } catch (error) {
    if (signal.aborted)
      throw new CliError(
        `stopped waiting. The authorization stays open until it expires: tools-proxy auth status ${id} --wait`,
        EXIT.interrupted,
      );
    throw error;
  } finally {
    spinner.stop();
  }
}

/** Prints the outcome; failed and expired are exit 1 with the reason. */
function report(result: FinishedAuthorization, json?: boolean, link = false): void {
  if (json) out(JSON.stringify(result));
  if (result.status === "connected") {
    if (!json) out(`${paint(process.stdout, "green", "Connected")}: ${result.connectionId}`);
    return;
  }
  const why =
    result.status === "expired"
      ? `the authorization expired before ${link ? "the connection was made on its page" : "the sign-in completed"}; run the command again.`
      : `the authorization failed: ${result.error ?? "no reason given"}`;
  throw new CliError(why, EXIT.failure);
}
