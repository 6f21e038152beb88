import { isToolsClientError, type ToolsClientError } from "../client/errors.js";
import { inCliWords } from "./server-words.js";

/**
 * The exit codes of `tools-proxy`, one per kind of outcome a script may want to tell apart.
 * Printed by `tools-proxy --help` and listed in docs/reference/cli.md (a test compares the two).
 */
export const EXIT = {
  /** Done. */
  ok: 0,
  /**
   * Failed: the server refused the request (400, 409, 413, 415, 429, 402, 500), a tool or proxied
   * call answered `successful: false`, an authorization failed or expired, a local file could not be
   * read or written; serve, keys and migrate failures.
   */
  failure: 1,
  /** The command line is wrong: unknown command or option, missing or malformed argument. */
  usage: 2,
  /** Not signed in, or the server refused the API key (401). */
  unauthorized: 3,
  /** The toolkit, tool, connection, authorization or staged file does not exist (404), or the API key `keys revoke` names. */
  notFound: 4,
  /** No answer from the server (connection refused, DNS, reset), or it is unavailable (503). */
  unreachable: 5,
  /** A workspace service key with no agent, for a command that acts for one (the server's 400 naming x-agent-id). */
  agentRequired: 6,
  /** Stopped with Ctrl+C. */
  interrupted: 130,
} as const;

/** The exit code table as help text. */
export const EXIT_CODES_HELP = `Exit codes:
  0    done
  1    failed: the server refused the request, a tool or proxied call failed, an
       authorization failed or expired, a local file could not be used
  2    wrong command line (unknown command or option, bad argument)
  3    not signed in, or the server refused the API key
  4    not found (toolkit, tool, connection, authorization, staged file;
       the key of keys revoke)
  5    server unreachable or unavailable (503)
  6    a workspace service key needs an agent for this command (--agent A,
       SVC_WORKSPACE_AGENT_ID, or login --agent A)
  130  interrupted (Ctrl+C)`;

/** A mistake in the command line: the message, then `Run "tools-proxy <command> --help"`; exit 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose help to point at, e.g. "keys create"; "" for the tool itself. */
    readonly command = "",
  ) {
    super(message);
  }
}

/** A failure the command explains itself: the message on stderr, then `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
  }
}

/** The exit code for a client error: by the server's code, or the client's own (network_error...). */
export function exitCodeOf(error: ToolsClientError): number {
  switch (error.code) {
    case "unauthorized":
      return EXIT.unauthorized;
    case "not_found":
      return EXIT.notFound;
    case "network_error":
    case "unavailable":
      return EXIT.unreachable;
    default:
      return EXIT.failure;
  }
}

/** The sentence printed for an error a command did not handle, and its exit code. */
export function describeFailure(error: unknown): { message: string; exitCode: number } {
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  if (isToolsClientError(error)) {
    const retry = error.retryAfter !== undefined ? ` (retry after ${error.retryAfter} s)` : "";
    const what = error.status ? `the server answered ${error.status} ${error.code}` : error.code.replace(/_/g, " ");
    return { message: `${what}: ${error.status ? inCliWords(error.message) : error.message}${retry}`, exitCode: exitCodeOf(error) };
  }
  if (error instanceof Error && error.name === "AbortError") return { message: "stopped.", exitCode: EXIT.interrupted };
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return { message: (error as Error).message, exitCode: EXIT.failure };
  return { message: `unexpected failure: ${error instanceof Error ? error.message : String(error)}`, exitCode: EXIT.failure };
}
