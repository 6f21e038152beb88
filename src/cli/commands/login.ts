/** `login`, `logout` and `whoami`: the credentials file and what the server thinks of the key. */
import type { Command } from "commander";
import { createToolsClient } from "../../client/client.js";
import { isToolsClientError } from "../../client/errors.js";
import { jsonOption, usageError, withExamples } from "../command.js";
import { credentialsPath, removeCredentials, writeCredentials } from "../credentials.js";
import { CliError, EXIT, exitCodeOf } from "../errors.js";
import { note, paint, printFields, printJson } from "../output.js";
import { readSecret } from "../prompt.js";
import { apiUrl, ENV_VARS, interruptSignal, openClient, resolveCredentials } from "../session.js";

/** What may be shown of a key: its kind prefix and last four characters, as the server's own key hint. */
export function keyHint(key: string): string {
  return key.length >= 16 ? `${key.slice(0, 4)}…${key.slice(-4)}` : "…";
}

/** Adds `login`, `logout` and `whoami`. */
export function registerLogin(program: Command): void {
  const login = program
    .command("login")
    .summary("Sign in: check an API key against a server and save it")
    .description("Check an API key against a server and save it, with the server URL and workspace, in your credentials file")
    .option("--url <url>", `the server, e.g. http://127.0.0.1:8787 (/proxy/tools is added to a bare origin; default $${ENV_VARS.url})`)
    .option("--workspace <id>", `the workspace the key belongs to (default $${ENV_VARS.workspace})`)
    .option("--key <key>", "the API key (pak_... or psk_...); without it, read from stdin, or asked for without echo on a terminal")
    .addOption(jsonOption())
    .action(async (opts: { url?: string; workspace?: string; key?: string; json?: boolean }) => {
      const urlText = opts.url ?? process.env[ENV_VARS.url];
      const workspace = opts.workspace ?? process.env[ENV_VARS.workspace];
      if (!urlText) throw usageError(login, "--url is required: the server's URL, such as http://127.0.0.1:8787.");
      if (!workspace) throw usageError(login, "--workspace is required: the workspace the key belongs to.");
      const url = apiUrl(urlText, "--url");
      const apiKey = (opts.key ?? (await readSecret("the API key", "API key: "))).trim();
      if (!apiKey) throw usageError(login, "--key is empty.");
      const client = createToolsClient({ baseUrl: url, apiKey });
      try {
        await client.verifyKey({ signal: interruptSignal() });
      } catch (error) {
        if (isToolsClientError(error) && error.code === "unauthorized") {
          throw new CliError(`the server refused this API key: ${error.message} Nothing was saved.`, EXIT.unauthorized);
        }
        throw error;
      }
      const file = credentialsPath();
      writeCredentials(file, { url, workspace, apiKey });
      if (opts.json) return printJson({ url, workspace, key: keyHint(apiKey), file });
      note(`${paint(process.stderr, "green", "Signed in")} to ${url} (workspace "${workspace}", key ${keyHint(apiKey)}).`);
      note(`Saved to ${file} (readable by you only).`);
    });
  withExamples(
    login,
    "tools-proxy login --url http://127.0.0.1:8787 --workspace local",
    'printf "%s" "$KEY" | tools-proxy login --url https://tools.example.com --workspace acme',
  );

  const logout = program
    .command("logout")
    .description("Remove the saved credentials file")
    .action(() => {
      const file = credentialsPath();
      note(removeCredentials(file) ? `Signed out: removed ${file}.` : `Not signed in: there is no ${file}.`);
      const set = Object.values(ENV_VARS).filter((name) => process.env[name]);
      if (set.length) note(`Still set in the environment: ${set.join(", ")}.`);
    });
  withExamples(logout, "tools-proxy logout");

  const whoami = program
    .command("whoami")
    .summary("Show the server, workspace and key in use")
    .description("Show the server, workspace and key in use (the key only as a hint), and whether the server accepts the key")
    .option("--no-check", "do not ask the server")
    .addOption(jsonOption())
    .action(async (opts: { check: boolean; json?: boolean }) => {
      const opened = opts.check ? openClient() : null;
      const credentials = opened?.credentials ?? resolveCredentials();
      const { values, sources } = credentials;
      let server: "accepted" | "refused" | "unreachable" | "error" | "not checked" = "not checked";
      let exitCode: number = EXIT.ok;
      let reason = "";
      if (opened) {
        try {
          await opened.client.verifyKey({ signal: interruptSignal() });
          server = "accepted";
        } catch (error) {
          if (!isToolsClientError(error)) throw error;
          exitCode = exitCodeOf(error);
          server = error.code === "unauthorized" ? "refused" : exitCode === EXIT.unreachable ? "unreachable" : "error";
          reason = error.message;
        }
      }
      const kind = values.apiKey?.startsWith("psk_") ? "workspace service key" : values.apiKey?.startsWith("pak_") ? "agent key" : "key";
      const from = (field: keyof typeof ENV_VARS) => (sources[field] === "env" ? ENV_VARS[field] : sources[field] ? "credentials file" : "not set");
      if (opts.json) {
        printJson({ url: values.url ?? null, workspace: values.workspace ?? null, key: values.apiKey ? keyHint(values.apiKey) : null, kind, sources, file: credentials.file, server, ...(reason ? { error: reason } : {}) });
      } else {
        const show = (field: keyof typeof ENV_VARS, value: string | undefined) => `${value ?? "-"}  ${paint(process.stdout, "dim", `(${from(field)})`)}`;
        printFields([
          ["url", show("url", values.url)],
          ["workspace", show("workspace", values.workspace)],
          ["key", show("apiKey", values.apiKey ? `${keyHint(values.apiKey)} (${kind})` : undefined)],
          ["server", server === "accepted" ? paint(process.stdout, "green", "accepts the key") : server === "not checked" ? server : paint(process.stdout, "red", `${server}: ${reason}`)],
          ["file", credentials.file],
        ]);
      }
      if (exitCode !== EXIT.ok) process.exitCode = exitCode;
    });
  withExamples(whoami, "tools-proxy whoami", "tools-proxy whoami --json --no-check");
}
