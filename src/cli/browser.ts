import { spawn } from "node:child_process";

/**
 * Opens `url` in the user's browser without waiting for it: the BROWSER environment variable's
 * program when set, else `open` (macOS), `rundll32 url.dll,FileProtocolHandler` (Windows, which
 * needs no cmd.exe quoting of `&`), or `xdg-open` (Linux and the BSDs). Resolves false when the
 * program could not be started (none installed, no desktop), so the caller can say so.
 *
 * Only an http(s) URL is opened, handed over as its parsed href: the URL comes from a server, and
 * these programs open anything else too (a local file, a share, a program), while `open` takes an
 * argument starting with "-" as an option. Anything else resolves false, and nothing is started.
 */
export function openInBrowser(text: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  let url: string;
  try {
    const parsed = new URL(text);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return Promise.resolve(false);
    url = parsed.href;
  } catch {
    return Promise.resolve(false);
  }
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
