/**
 * `auth --open` hands the server's `authorizationUrl` to a program (xdg-open, open, rundll32's
 * FileProtocolHandler, or $BROWSER). Those open anything: a local file, a share, a program
 * (`file:///...`, `\\host\share\x.exe`), and `open` reads an argument starting with "-" as its own
 * option (`-a Calculator`). A hostile server could so make the user's machine open what it
 * likes. Only an http(s) URL is handed over, as its parsed href; anything else opens nothing.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openInBrowser } from "../../src/cli/browser.js";

const dir = mkdtempSync(join(tmpdir(), "tp-browser-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A $BROWSER that writes its first argument to `record`, whole (renamed into place, so no reader sees it half written). */
function recordingBrowser(record: string): string {
  const program = join(dir, `browser-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(program, `#!/bin/sh\nprintf '%s' "$1" > '${record}.part' && mv '${record}.part' '${record}'\n`);
  chmodSync(program, 0o700);
  return program;
}

async function opened(record: string): Promise<string> {
  for (let i = 0; i < 1000 && !existsSync(record); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  return readFileSync(record, "utf8");
}

describe("openInBrowser", () => {
  it("opens nothing for a URL that is not http(s), or not a URL", async () => {
    for (const url of [
      "file:///etc/passwd",
      "-a/System/Applications/Calculator.app",
      "\\\\evil.test\\share\\setup.exe",
      "javascript:alert(1)",
      "smb://evil.test/share",
      "C:\\Windows\\System32\\calc.exe",
      "",
    ]) {
      const record = join(dir, `none-${Math.random().toString(36).slice(2)}`);
      expect(await openInBrowser(url, { BROWSER: recordingBrowser(record) }), url).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 50)); // a started program would have written by now
      expect(existsSync(record), url).toBe(false);
    }
  });

  it("opens an http(s) URL, handing over its parsed href", async () => {
    const record = join(dir, "https");
    expect(await openInBrowser("https://idp.example/authorize?state=a b&x=1", { BROWSER: recordingBrowser(record) })).toBe(true);
    expect(await opened(record)).toBe("https://idp.example/authorize?state=a%20b&x=1");
  });
});
