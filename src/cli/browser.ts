import { spawn } from "node:child_process";

/**
 * Opens `url` in the user's browser without waiting for it: the BROWSER environment variable's
 * program when set, else `open` (macOS), `rundll32 url.dll,FileProtocolHandler` (Windows, which
 * needs no cmd.exe quoting of `&`), or `xdg-open` (Linux and the BSDs). Resolves false when the
 * program could not be started (none installed, no desktop), so the caller can say so.
 */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const [command, args] = env.BROWSER
    ? [env.BROWSER, [url]]
    : process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["rundll32", ["url.dll,FileProtocolHandler", url]]
        : ["xdg-open", [url]];
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { stdio: "ignore", detached: true });
      child.once("error", () => resolve(false));
      child.once("spawn", () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
