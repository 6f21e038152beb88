/** `login`, `logout` and `whoami`: the credentials file and what the server thinks of the key. */
import type { Command } from "commander";
import { createToolsClient } from "../../client/client.js";
import { isToolsClientError } from "../../client/errors.js";
import { API_KEY_LENGTH, API_KEY_SHAPE } from "../../credentials/key-shape.js";
import { agentOption, jsonOption, usageError, withExamples } from "../command.js";
import { credentialsPath, removeCredentials, writeCredentials } from "../credentials.js";
import { CliError, EXIT, exitCodeOf } from "../errors.js";
import { note, paint, printFields, printJson } from "../output.js";
import { readSecret } from "../prompt.js";
import { apiUrl, checkAgent, ENV_VARS, interruptSignal, openClient, resolveCredentials } from "../session.js";

/** What may be shown of a key: its kind prefix and last four characters, as the server's own key hint. */
export function keyHint(key: string): string {
  return key.length >= 16 ? `${key.slice(0, 4)}…${key.slice(-4)}` : "…";
}

/** Adds `login`, `logout` and `whoami`. */
export function registerLogin(program: Command): void {
  const login = program
    .command("login")
    .summary("Sign in: check an API key against a server and save it")
    .description(
      "Check an API key against a server and save it, with the server URL, the workspace " +
        "and (for a workspace service key) the agent it acts for, in your credentials file",
    )
    .option("--url <url>", `the server, e.g. http://127.0.0.1:8787 (/proxy/tools is added to a bare origin; default $${ENV_VARS.url})`)
    .option("--workspace <id>", `the workspace the key belongs to (default $${ENV_VARS.workspace})`)
    .option("--key <key>", "the API key (pak_... or psk_...); without it, read from stdin, or asked for without echo on a terminal")
    .option(
      "--agent <id>",
      "with a workspace service key (psk_...): the agent it acts for, saved with it " +
        `(a command's --agent or $${ENV_VARS.agent} overrides it)`,
    )
    .addOption(jsonOption())
    .action(async (opts: { url?: string; workspace?: string; key?: string; agent?: string; json?: boolean }) => {
      const urlText = opts.url ?? process.env[ENV_VARS.url];
      const workspace = opts.workspace ?? process.env[ENV_VARS.workspace];
      if (!urlText) throw usageError(login, "--url is required: the server's URL, such as http://127.0.0.1:8787.");
      if (!workspace) throw usageError(login, "--workspace is required: the workspace the key belongs to.");
      const url = apiUrl(urlText, "--url");
      const agent = opts.agent === undefined ? undefined : checkAgent(opts.agent, "--agent");
      const apiKey = (opts.key ?? (await readSecret("the API key", "API key: "))).trim();
      if (!apiKey) throw usageError(login, "--key is empty.");
      if (!/^[\x21-\x7e]+$/.test(apiKey))
        throw usageError(login, "the API key may hold only visible ASCII characters (no spaces or line breaks). Nothing was saved.");
      // Checked before the server is asked: a typo or a half-pasted key gets a sentence about keys, not a 401.
      if (!API_KEY_SHAPE.test(apiKey)) {
        throw usageError(
          login,
          "this is not an API key: a key is pak_ (an agent key) or psk_ (a workspace service key) " +
            'followed by 43 letters, digits, "-" or "_", ' +
            `${API_KEY_LENGTH} characters in all (this has ${apiKey.length}). ` +
            "Copy it again from where it was printed (serve, or keys create). Nothing was saved.",
        );
      }
      if (agent !== undefined && !apiKey.startsWith("psk_")) {
        throw usageError(
          login,
          "--agent is for a workspace service key (psk_...); an agent key always acts as its own agent. Nothing was saved.",
        );
      }
      const client = createToolsClient({ baseUrl: url, apiKey, ...(agent ? { agentId: agent } : {}) });
      try {
        await client.verifyKey({ signal: interruptSignal() });
      } catch (error) {
        if (isToolsClientError(error) && error.code === "unauthorized") {
          throw new CliError(`the server refused this API key: ${error.message} Nothing was saved.`, EXIT.unauthorized);
        }
        throw error;
      }
      const file = credentialsPath();
      writeCredentials(file, { url, workspace, apiKey, agent });
      if (opts.json) return printJson({ url, workspace, key: keyHint(apiKey), ...(agent ? { agent } : {}), file });
      note(
        `${paint(process.stderr, "green", "Signed in")} to ${url} ` +
          `(workspace "${workspace}", key ${keyHint(apiKey)}${agent ? `, agent "${agent}"` : ""}).`,
      );
      note(`Saved to ${file} (readable by you only).`);
    });
  withExamples(
    login,
    "tools-proxy login --url http://127.0.0.1:8787 --workspace local",
    'printf "%s" "$KEY" | tools-proxy login --url https://tools.example.com --workspace acme',
    'printf "%s" "$SERVICE_KEY" | tools-proxy login --url https://tools.example.com --workspace acme --agent support-bot',
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
    .summary("Show the server, workspace, key and agent in use")
    .description("Show the server, workspace, key (only as a hint) and agent in use, and whether the server accepts the key")
    .option("--no-check", "do not ask the server")
    .addOption(jsonOption())
    .addOption(agentOption())
    .action(async (opts: { check: boolean; json?: boolean; agent?: string }) => {
      const opened = opts.check ? openClient(opts) : null;
      const credentials = opened?.credentials ?? resolveCredentials(process.env, opts);
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
      const from = (field: keyof typeof ENV_VARS) =>
        sources[field] === "flag"
          ? "--agent"
          : sources[field] === "env"
            ? ENV_VARS[field]
            : sources[field]
              ? "credentials file"
              : "not set";
      // The agent requests act for: the one in effect for a service key; an agent key's own (unknown here) otherwise.
      const agent = kind === "agent key" ? null : (values.agent ?? null);
      if (opts.json) {
        printJson({
          url: values.url ?? null,
          workspace: values.workspace ?? null,
          key: values.apiKey ? keyHint(values.apiKey) : null,
          kind,
          agent,
          sources,
          file: credentials.file,
          server,
          ...(reason ? { error: reason } : {}),
        });
      } else {
        const show = (field: keyof typeof ENV_VARS, value: string | undefined) =>
          `${value ?? "-"}  ${paint(process.stdout, "dim", `(${from(field)})`)}`;
        printFields([
          ["url", show("url", values.url)],
          ["workspace", show("workspace", values.workspace)],
          ["key", show("apiKey", values.apiKey ? `${keyHint(values.apiKey)} (${kind})` : undefined)],
          ["agent", describeAgent(kind, values.agent, () => show("agent", values.agent))],
          [
            "server",
            server === "accepted"
              ? paint(process.stdout, "green", "accepts the key")
              : server === "not checked"
                ? server
                : paint(process.stdout, "red", `${server}: ${reason}`),
          ],
          ["file", credentials.file],
        ]);
      }
      if (exitCode !== EXIT.ok) process.exitCode = exitCode;
    });
  withExamples(whoami, "tools-proxy whoami", "tools-proxy whoami --json --no-check", "tools-proxy whoami --agent support-bot");
}

/** whoami's agent line: whom requests act for, and why. */
function describeAgent(kind: string, agent: string | undefined, shown: () => string): string {
  if (kind === "agent key")
    return agent === undefined ? "the key's own" : `the key's own ("${agent}" is not used: it is for a workspace service key)`;
  if (agent !== undefined) return shown();
  return kind === "workspace service key" ? "none: only search, toolkit and connections list work; name one with --agent" : "-";
}
