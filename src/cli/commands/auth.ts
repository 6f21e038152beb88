/**
 * `auth <toolkit>`: connects a toolkit. A way to connect with fields (an API key, a token, a user
 * name and password, or a newer way's own) connects at once from them (options, stdin for one
 * secret, or prompts that hide secrets; see `connect-values.ts`); OAuth toolkits print the
 * authorization URL (and open it with --open), then wait with a spinner until the connection is
 * made, failed or expired. With --link any toolkit does the same with a connect link, whose page
 * asks the person for the credential. `auth status <id>` checks (or waits for) an authorization.
 */
import type { Command } from "commander";
import type { ToolsClient } from "../../client/client.js";
import { isToolsClientError, ToolsClientError } from "../../client/errors.js";
import type { FinishedAuthorization } from "../../client/types.js";
import { openInBrowser } from "../browser.js";
import { agentOption, collect, jsonOption, usageError, wholeNumber, withExamples } from "../command.js";
import { askInputs, chooseMode, readFields } from "../connect-values.js";
import { fieldFlag, otherWaysToConnect } from "../connect-ways.js";
import { CliError, EXIT } from "../errors.js";
import { note, out, paint, printJson } from "../output.js";
import { startSpinner } from "../progress.js";

import { interruptSignal, openClient } from "../session.js";

interface StartOptions {
  label?: string;
  param?: string[];
  apiKey?: string;
  token?: string;
  username?: string;
  password?: string;
  credential?: string[];
  mode?: string;
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
    .option("--credential <name=value>", "a field of the way to connect that has no flag of its own (repeatable)", collect)
    .option("--mode <id>", "the way to connect, for a toolkit with several (see `tools-proxy toolkit <slug>`)")
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
      const given = credentialFlags(start, opts);
      if (Object.keys(given).length && opts.link)
        throw usageError(
          start,
          "--link asks for the credential in the browser: leave out --api-key, --token, --username and --credential.",
        );
      let config = params(start, opts.param);
      if (!opts.link) {
        const details = await client.getToolkit(toolkit, { limit: 1 }, { signal });
        const mode = chooseMode(details, opts.mode, Object.keys(given));
        if (mode.type === "none") throw new CliError(`${details.name} needs no connection: execute its tools directly.`);
        config = await askInputs(details.inputs, config ?? {});
        if (!Object.keys(config).length) config = undefined;
        if (mode.fields.length > 0) {
          const credentials = await readFields(details, mode, given, fieldFlag);
          const { connection } = await client.connect(
            { toolkit, label: opts.label, config, credentials, ...(opts.mode ? { mode: mode.mode } : {}) },
            { signal },
          );
          if (opts.json) return printJson({ connection });
          return out(`Connected ${connection.toolkit}: ${connection.id} (${connection.status})`);
        }
      }
      const started = await client
        .startAuthorization({ toolkit, label: opts.label, config, ...(opts.mode ? { mode: opts.mode } : {}) }, { signal })
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

/** The fields given as flags, by field name: `--api-key`, `--token`, `--username`, `--password` and each `--credential name=value`. */
function credentialFlags(command: Command, opts: StartOptions): Record<string, string> {
  const given: Record<string, string> = {
    ...(opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {}),
    ...(opts.token !== undefined ? { token: opts.token } : {}),
    ...(opts.username !== undefined ? { username: opts.username } : {}),
    ...(opts.password !== undefined ? { password: opts.password } : {}),
  };
  for (const [name, value] of Object.entries(pairs(command, "--credential", opts.credential) ?? {})) given[name] = value;
  return given;
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
function params(command: Command, given: string[] = []): Record<string, string> | undefined {
  return pairs(command, "--param", given);
}

/** `name=value` pairs of a repeatable option as an object, or undefined when there are none. */
function pairs(command: Command, flag: string, given: string[] = []): Record<string, string> | undefined {
  if (!given.length) return undefined;
  return Object.fromEntries(
    given.map((pair) => {
      const at = pair.indexOf("=");
      if (at < 1) throw usageError(command, `${flag} takes name=value, not "${pair}".`);
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
