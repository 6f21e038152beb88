/**
 * `tools-proxy serve` as a real process (`node dist/cli/main.js`, so `npm run build` first), for
 * the restart, scale-out and fault tests.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OidcServer } from "./oidc-server.js";

export const BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "main.js");

/** Null when dist/cli/main.js exists, else why the process tests skip. */
export const missingBuild: string | null = existsSync(BIN) ? null : `${BIN} does not exist: run \`npm run build\` first`;

export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  /** `http://127.0.0.1:PORT/proxy/tools` */
  api: string;
  origin: string;
  /** The agent key printed at start, or null when the data already had one. */
  key: string | null;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, and the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, as a crash: no cleanup at all. */
  kill(): Promise<void>;
}

/** Starts `serve --port 0 ...args` and resolves once it prints that it is listening. */
export async function startServe(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0", ...args], {
    env: { ...process.env, TOOLS_PROXY_SECRET: "", ...env },
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start in 15 s.\nstdout: ${out}\nstderr: ${err}`)), 15_000);
    child.stdout.on("data", () => out.includes("Press Ctrl+C") && (clearTimeout(timer), resolve()));
    void exited.then((code) => (clearTimeout(timer), reject(new Error(`serve exited with ${code}.\nstdout: ${out}\nstderr: ${err}`))));
  });
  const api = /listening on (http:\/\/\S+)/.exec(out)![1]!;
  return {
    child,
    api,
    origin: new URL(api).origin,
    key: /^ {2}(pak_[A-Za-z0-9_-]{43})$/m.exec(out)?.[1] ?? null,
    stdout: () => out,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

/** Runs a short command of the bin (`keys create`, `migrate`) to its end. */
export function runBin(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    timeout: 15_000,
    env: { ...process.env, TOOLS_PROXY_SECRET: "", ...env },
  });
}

/**
 * `runBin` without blocking the test's process, so that a table of independent commands can run
 * side by side; the same 15 s bound, after which the process is killed (status null).
 */
export function runBinAsync(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, TOOLS_PROXY_SECRET: "", ...env }, timeout: 15_000 });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin.end();
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** A JSON call to the Tools API with an API key. */
export async function callApi(api: string, key: string, path: string, body?: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${api}${path}`, {
    method: body === undefined ? "GET" : "POST",
    ...init,
    headers: {
      "x-api-key": key,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(init.headers as Record<string, string>),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/**
 * Writes `notes.json` in `dir`: a JSON toolkit for `serve --toolkits` whose OAuth is the OIDC
 * fixture `as` and whose one tool, NOTES_ME, reads its protected API. The client secret is the
 * `${NOTES_CLIENT_SECRET}` placeholder, so start serve with that variable. Returns the file's path.
 */
export function writeNotesToolkit(dir: string, as: OidcServer): string {
  const toolkit = {
    slug: "notes",
    name: "Notes",
    description: "The OIDC fixture's protected API.",
    baseUrl: as.apiBaseUrl,
    auth: {
      type: "oauth2",
      authorizationUrl: as.endpoints.authorization,
      tokenUrl: as.endpoints.token,
      clientId: as.clientId,
      clientSecret: "${NOTES_CLIENT_SECRET}",
      scopes: ["openid", "offline_access", "notes:read"],
    },
    tools: [
      {
        slug: "NOTES_ME",
        name: "Me",
        description: "The account behind the token.",
        method: "GET",
        path: "/me",
        inputParameters: { type: "object", properties: {} },
      },
    ],
  };
  const file = join(dir, "notes.json");
  writeFileSync(file, JSON.stringify(toolkit));
  return file;
}
