/**
 * The credentials `tools-proxy login` saves: the server URL, the workspace, the API key and, for a
 * workspace service key, optionally the agent it acts for, in
 * `credentials.json` under the user's config directory (`$XDG_CONFIG_HOME/tools-proxy`, else
 * `~/.config/tools-proxy` on Linux, `~/Library/Application Support/tools-proxy` on macOS,
 * `%APPDATA%\tools-proxy` on Windows). The directory is mode 0700 and the file 0600, written
 * atomically: a reader sees the old file or the new one, never a partial one.
 */
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CliError } from "./errors.js";

/** What the file holds. */
export interface StoredCredentials {
  /** The Tools API's URL with its mount path, e.g. http://127.0.0.1:8787/proxy/tools. */
  url: string;
  workspace: string;
  apiKey: string;
  /** The agent a workspace service key (`psk_`) acts for, sent as `x-agent-id`; absent for an agent key. */
  agent?: string;
}

/** The credentials file's path for this user (see the module comment). */
export function credentialsPath(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  return join(configDirectory(env, platform), "tools-proxy", "credentials.json");
}

function configDirectory(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  if (env.XDG_CONFIG_HOME) return env.XDG_CONFIG_HOME;
  const home = env.HOME || homedir();
  if (platform === "darwin") return join(home, "Library", "Application Support");
  if (platform === "win32") return env.APPDATA || join(home, "AppData", "Roaming");
  return join(home, ".config");
}

/** The file's credentials; null when there is no file. A file that is not ours is an error saying what to do. */
export function readCredentials(path: string): StoredCredentials | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new CliError(
      `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? "error"}); ` +
        'fix its permissions, or run "tools-proxy logout" and sign in again.',
    );
  }
  let parsed: Partial<StoredCredentials> | null = null;
  try {
    parsed = JSON.parse(text) as Partial<StoredCredentials>;
  } catch {
    // reported below
  }
  if (
    !parsed ||
    typeof parsed.url !== "string" ||
    typeof parsed.workspace !== "string" ||
    typeof parsed.apiKey !== "string" ||
    (parsed.agent !== undefined && typeof parsed.agent !== "string")
  ) {
    throw new CliError(`${path} is not a tools-proxy credentials file; run "tools-proxy logout" and "tools-proxy login" again.`);
  }
  return { url: parsed.url, workspace: parsed.workspace, apiKey: parsed.apiKey, ...(parsed.agent ? { agent: parsed.agent } : {}) };
}

/** Whether others than the owner can read or write the file (mode looser than 0600). Never on Windows. */
export function tooOpen(path: string): boolean {
  if (process.platform === "win32") return false;
  try {
    return (statSync(path).mode & 0o077) !== 0;
  } catch {
    return false;
  }
}

/**
 * Saves the credentials: a temporary file beside the target, created with mode 0600 and flushed
 * to disk, then renamed over it (atomic on one file system). The directory is created with mode
 * 0700, or narrowed to it.
 */
export function writeCredentials(path: string, credentials: StoredCredentials): void {
  const directory = dirname(path);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  if (process.platform !== "win32") chmodSync(directory, 0o700);
  // node:crypto taken here rather than imported: loading it would slow the start of every command.
  const { randomBytes } = process.getBuiltinModule("node:crypto");
  const temporary = join(directory, `.credentials-${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(temporary, "wx", 0o600);
  try {
    const { url, workspace, apiKey, agent } = credentials;
    writeSync(fd, `${JSON.stringify({ url, workspace, apiKey, ...(agent ? { agent } : {}) }, null, 2)}\n`);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temporary);
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Removes the file; false when there was none. */
export function removeCredentials(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw new CliError(`cannot remove ${path} (${(error as NodeJS.ErrnoException).code ?? "error"}).`);
  }
}
