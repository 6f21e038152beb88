/**
 * Runs the built `tools-proxy` bin (`node dist/cli/main.js`, so `npm run build` first) as a user
 * would, with its own config directory (XDG_CONFIG_HOME) and none of the SVC_WORKSPACE_* variables
 * of the test's environment unless given.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN } from "../support/serve-process.js";

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

const CLEARED = [
  "SVC_WORKSPACE_API_URL",
  "SVC_WORKSPACE_ID",
  "SVC_WORKSPACE_API_KEY",
  "NO_COLOR",
  "FORCE_COLOR",
  "BROWSER",
  "XDG_CONFIG_HOME",
];

/** A fresh config home (a temporary XDG_CONFIG_HOME). */
export function configHome(): string {
  return mkdtempSync(join(tmpdir(), "tools-proxy-config-"));
}

/** The environment of a CLI run: this process's, without the CLI's variables, plus `extra`. */
export function cliEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CLEARED) delete env[name];
  return { ...env, XDG_CONFIG_HOME: home, ...extra };
}

/** Starts the bin; stdin is a pipe that gets `input` (if any) and is then closed. */
export function spawnCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string | Buffer,
): ChildProcessWithoutNullStreams & { output: CliResult; exited: Promise<CliResult> } {
  const child = spawn(process.execPath, [BIN, ...args], { env }) as ChildProcessWithoutNullStreams & {
    output: CliResult;
    exited: Promise<CliResult>;
  };
  const output: CliResult = { status: null, stdout: "", stderr: "" };
  child.output = output;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output.stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output.stderr += chunk));
  child.stdin.on("error", () => {}); // the CLI may exit without reading its input
  child.stdin.end(input);
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  child.exited = new Promise((resolve) =>
    child.once("close", (code) => {
      clearTimeout(timer);
      output.status = code;
      resolve(output);
    }),
  );
  return child;
}

/** Runs the bin to its end. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, input?: string | Buffer): Promise<CliResult> {
  return spawnCli(args, env, input).exited;
}

/** Resolves once `predicate(output)` holds (checked on every chunk), or rejects when the process exits first. */
export function waitForOutput(child: ReturnType<typeof spawnCli>, predicate: (output: CliResult) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (predicate(child.output)) {
        child.stdout.off("data", check);
        child.stderr.off("data", check);
        resolve();
      }
    };
    child.stdout.on("data", check);
    child.stderr.on("data", check);
    void child.exited.then((output) =>
      predicate(output)
        ? resolve()
        : reject(new Error(`the command exited (${output.status}) first.\nstdout: ${output.stdout}\nstderr: ${output.stderr}`)),
    );
    check();
  });
}
