/**
 * The server, workspace, key and agent a command uses: each from its environment variable when set
 * (SVC_WORKSPACE_API_URL, SVC_WORKSPACE_ID, SVC_WORKSPACE_API_KEY, SVC_WORKSPACE_AGENT_ID), else
 * from the credentials file that `login` saved; the agent from the command's `--agent` first of
 * all. Each variable overrides its own field only. When the first three are all set, the file is
 * not read (so CI needs none, and a file's agent never joins a key it was not saved with).
 */
import { createToolsClient, type ToolsClient } from "../client/client.js";
import { isToolsClientError } from "../client/errors.js";
import { credentialsPath, readCredentials, type StoredCredentials, tooOpen } from "./credentials.js";
import { CliError, EXIT } from "./errors.js";
import { warn } from "./output.js";

/**
 * The environment variables, each overriding one field of the credentials file: the server's URL,
 * the workspace, the API key, and the agent a workspace service key acts for.
 */
export const ENV_VARS = {
  url: "SVC_WORKSPACE_API_URL",
  workspace: "SVC_WORKSPACE_ID",
  apiKey: "SVC_WORKSPACE_API_KEY",
  agent: "SVC_WORKSPACE_AGENT_ID",
} as const;

type Field = keyof StoredCredentials;
const REQUIRED: Field[] = ["url", "workspace", "apiKey"];

/** What a command's own options say about the credentials: `--agent`. */
export interface SessionFlags {
  agent?: string;
}

/** The credentials in effect, and where each field came from. */
export interface ResolvedCredentials {
  values: Partial<StoredCredentials>;
  sources: Partial<Record<Field, "flag" | "env" | "file">>;
  /** The credentials file's path, whether or not it exists. */
  file: string;
}

/** An agent id as the server takes it in x-agent-id. */
const AGENT_SHAPE = /^[A-Za-z0-9_-]{1,128}$/;

/** Checks an agent id given by `from` (a flag, a variable, the file); a wrong one is a usage error (exit 2). */
export function checkAgent(agent: string, from: string): string {
  if (!AGENT_SHAPE.test(agent))
    throw new CliError(`${from} must be an agent id of 1 to 128 letters, digits, "_" or "-"; got "${agent}".`, EXIT.usage);
  return agent;
}

/** Resolves the credentials: --agent, then the environment, then the file (read only when one of the first three variables is missing). */
export function resolveCredentials(env: NodeJS.ProcessEnv = process.env, flags: SessionFlags = {}): ResolvedCredentials {
  const file = credentialsPath(env);
  const fromFile = REQUIRED.every((field) => env[ENV_VARS[field]]) ? null : readCredentials(file);
  const values: Partial<StoredCredentials> = {};
  const sources: ResolvedCredentials["sources"] = {};
  for (const field of Object.keys(ENV_VARS) as Field[]) {
    const fromEnv = env[ENV_VARS[field]];
    if (fromEnv) [values[field], sources[field]] = [fromEnv, "env"];
    else if (fromFile?.[field] !== undefined) [values[field], sources[field]] = [fromFile[field], "file"];
  }
  if (flags.agent !== undefined) [values.agent, sources.agent] = [flags.agent, "flag"];
  if (values.agent !== undefined) {
    checkAgent(values.agent, sources.agent === "flag" ? "--agent" : sources.agent === "env" ? ENV_VARS.agent : `the agent in ${file}`);
  }
  if (fromFile && tooOpen(file)) warn(`${file} can be read by other users; run "chmod 600 ${file}".`);
  return { values, sources, file };
}

/**
 * The Tools API's URL from what a user types: a bare origin (`http://127.0.0.1:8787`) gets the
 * default mount path `/proxy/tools`; any other path is kept. A URL that is not http(s) is a usage error.
 */
export function apiUrl(text: string, from: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // The text is not quoted: a key pasted into the wrong variable would be printed.
    const looksLikeKey = /^(pak|psk)_/.test(text.trim()) ? " (what it holds looks like an API key)" : "";
    throw new CliError(`${from} must be the server's URL, such as http://127.0.0.1:8787${looksLikeKey}.`, EXIT.usage);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new CliError(`${from} must be an http:// or https:// URL.`, EXIT.usage);
  if (url.username || url.password || url.search || url.hash)
    throw new CliError(`${from} must have no user name, password, query or fragment.`, EXIT.usage);
  if (url.pathname === "/") url.pathname = "/proxy/tools";
  return url.href.replace(/\/+$/, "");
}

/** Whether the key in effect is a workspace service key with no agent: set by openClient, read by agentRequired. */
let serviceKeyWithoutAgent = false;

/**
 * A client for the credentials in effect; not signed in is exit 3 with what to do. A workspace
 * service key acts for the agent in effect (sent as x-agent-id); an agent key always acts as its
 * own agent, so an agent given with one is left out, with a warning.
 */
export function openClient(
  flags: SessionFlags = {},
  env: NodeJS.ProcessEnv = process.env,
): { client: ToolsClient; credentials: ResolvedCredentials } {
  const credentials = resolveCredentials(env, flags);
  const { url, apiKey } = credentials.values;
  if (!url || !apiKey) {
    const missing = !url && !apiKey ? "no server and no API key" : !url ? "no server URL" : "no API key";
    throw new CliError(
      `not signed in (${missing}): run "tools-proxy login --url URL --workspace ID", or set ${ENV_VARS.url} and ${ENV_VARS.apiKey}.`,
      EXIT.unauthorized,
    );
  }
  const from = credentials.sources.url === "env" ? ENV_VARS.url : `the server URL in ${credentials.file}`;
  const service = apiKey.startsWith("psk_");
  let agent = credentials.values.agent;
  if (agent !== undefined && !service) {
    const source =
      credentials.sources.agent === "flag" ? "--agent" : credentials.sources.agent === "env" ? ENV_VARS.agent : credentials.file;
    warn(
      `the agent "${agent}" (from ${source}) is not used: this is an agent key, which always acts as its own agent; ` +
        "--agent is for a workspace service key (psk_...).",
    );
    agent = undefined;
  }
  serviceKeyWithoutAgent = service && agent === undefined;
  return { client: createToolsClient({ baseUrl: apiUrl(url, from), apiKey, ...(agent ? { agentId: agent } : {}) }), credentials };
}

/**
 * The server's 400 for a route that acts for an agent, asked with a workspace service key and no
 * agent, as a CliError with exit 6 and how to name one; null for any other error. Told apart from
 * other 400s by the header the server's sentence names.
 */
export function agentRequired(error: unknown): CliError | null {
  if (!serviceKeyWithoutAgent || !isToolsClientError(error) || error.status !== 400 || !error.message.includes("x-agent-id")) return null;
  return new CliError(
    `the server answered 400 ${error.code}: ${error.message} This is a workspace service key with no agent: ` +
      `name one with --agent A, ${ENV_VARS.agent}=A, or "tools-proxy login --agent A".`,
    EXIT.agentRequired,
  );
}

let interrupt: AbortController | null = null;

/**
 * A signal aborted by the first Ctrl+C (SIGINT), so that a command stops its request or wait and
 * exits 130 with a sentence; a second Ctrl+C exits at once.
 */
export function interruptSignal(): AbortSignal {
  if (!interrupt) {
    const controller = new AbortController();
    interrupt = controller;
    process.on("SIGINT", () => {
      if (controller.signal.aborted) process.exit(EXIT.interrupted);
      controller.abort(new CliError("stopped (Ctrl+C).", EXIT.interrupted));
    });
  }
  return interrupt.signal;
}
