/**
 * The server, workspace and key a command uses: each from its environment variable when set
 * (SVC_WORKSPACE_API_URL, SVC_WORKSPACE_ID, SVC_WORKSPACE_API_KEY), else from the credentials
 * file that `login` saved. Each variable overrides its own field only.
 */
import { createToolsClient, type ToolsClient } from "../client/client.js";
import { credentialsPath, readCredentials, tooOpen, type StoredCredentials } from "./credentials.js";
import { CliError, EXIT } from "./errors.js";
import { warn } from "./output.js";

/** The environment variables of SPEC.md, each overriding one field of the credentials file. */
export const ENV_VARS = { url: "SVC_WORKSPACE_API_URL", workspace: "SVC_WORKSPACE_ID", apiKey: "SVC_WORKSPACE_API_KEY" } as const;

type Field = keyof StoredCredentials;

/** The credentials in effect, and where each field came from. */
export interface ResolvedCredentials {
  values: Partial<StoredCredentials>;
  sources: Partial<Record<Field, "env" | "file">>;
  /** The credentials file's path, whether or not it exists. */
  file: string;
}

/** Resolves the credentials from the environment over the file. Reads the file only when a variable is missing. */
export function resolveCredentials(env: NodeJS.ProcessEnv = process.env): ResolvedCredentials {
  const file = credentialsPath(env);
  const fields = Object.keys(ENV_VARS) as Field[];
  const fromFile = fields.every((field) => env[ENV_VARS[field]]) ? null : readCredentials(file);
  const values: Partial<StoredCredentials> = {};
  const sources: ResolvedCredentials["sources"] = {};
  for (const field of fields) {
    const fromEnv = env[ENV_VARS[field]];
    if (fromEnv) [values[field], sources[field]] = [fromEnv, "env"];
    else if (fromFile) [values[field], sources[field]] = [fromFile[field], "file"];
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
    throw new CliError(`${from} must be the server's URL, such as http://127.0.0.1:8787; got "${text}".`, EXIT.usage);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new CliError(`${from} must be an http:// or https:// URL.`, EXIT.usage);
  if (url.username || url.password || url.search || url.hash) throw new CliError(`${from} must have no user name, password, query or fragment.`, EXIT.usage);
  if (url.pathname === "/") url.pathname = "/proxy/tools";
  return url.href.replace(/\/+$/, "");
}

/** A client for the credentials in effect; not signed in is exit 3 with what to do. */
export function openClient(env: NodeJS.ProcessEnv = process.env): { client: ToolsClient; credentials: ResolvedCredentials } {
  const credentials = resolveCredentials(env);
  const { url, apiKey } = credentials.values;
  if (!url || !apiKey) {
    const missing = !url && !apiKey ? "no server and no API key" : !url ? "no server URL" : "no API key";
    throw new CliError(
      `not signed in (${missing}): run "tools-proxy login --url URL --workspace ID", or set ${ENV_VARS.url} and ${ENV_VARS.apiKey}.`,
      EXIT.unauthorized,
    );
  }
  const from = credentials.sources.url === "env" ? ENV_VARS.url : `the server URL in ${credentials.file}`;
  return { client: createToolsClient({ baseUrl: apiUrl(url, from), apiKey }), credentials };
}

let interrupt: AbortController | null = null;

/**
 * A signal aborted by the first Ctrl+C (SIGINT), so that a command stops its request or wait and
 * exits 130 with a sentence; a second Ctrl+C exits at once.
 */
export function interruptSignal(): AbortSignal {
  if (!interrupt) {
    const controller = (interrupt = new AbortController());
    process.on("SIGINT", () => {
      if (controller.signal.aborted) process.exit(EXIT.interrupted);
      controller.abort(new CliError("stopped (Ctrl+C).", EXIT.interrupted));
    });
  }
  return interrupt.signal;
}
