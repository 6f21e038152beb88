/**
 * Strings from a server (toolkit names, descriptions, cursors, error messages) reach a person's
 * terminal through the CLI. A hostile or compromised server could send escape sequences that clear
 * the screen, rewrite earlier lines, set the window title or (OSC 52) the clipboard. The CLI shows
 * them as escaped text instead: always on stderr, on stdout when it is a terminal (a pipe gets the
 * data as it is), and `--json` output stays valid JSON that parses to the same value.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { note, out, paint, printJson, printTable, terminalSafe, warn } from "../../src/cli/output.js";

/** Clears the screen, sets the title, puts "evil" on the clipboard, rewrites the line, reverses text. */
const HOSTILE = "\u001b[2J\u001b]0;owned\u0007\u001b]52;c;ZXZpbA==\u0007\rfake\u009b31m\u202eoof\u0008\u007f";
/** What a terminal would act on (C0 but tab and LF, DEL, C1, bidi overrides). */
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** `text` without the colours the CLI paints itself (bold headers, a red "tools-proxy:"). */
const unstyled = (text: string) => text.replace(/\u001b\[(?:1|2|22|31|32|33|36|39)m/g, "");

describe("terminalSafe", () => {
  it("escapes every character a terminal acts on, visibly, and keeps tabs, line breaks and text", () => {
    const shown = terminalSafe(`ok\t${HOSTILE}\nnext é 😀`);
    expect(shown).not.toMatch(ACTIVE);
    expect(shown).toContain("\\x1b[2J");
    expect(shown).toContain("\\x07");
    expect(shown).toContain("\\u202e");
    expect(shown.startsWith("ok\t")).toBe(true);
    expect(shown.endsWith("\nnext é 😀")).toBe(true);
    expect(terminalSafe(shown)).toBe(shown); // idempotent
  });

  it("keeps the colours the CLI itself paints", () => {
    const styled = `\u001b[1mbold\u001b[22m \u001b[31mred\u001b[39m`;
    expect(terminalSafe(styled)).toBe(styled);
  });
});

describe("output on a terminal and in a pipe", () => {
  const written = { stdout: "", stderr: "" };
  const tty = { stdout: process.stdout.isTTY, stderr: process.stderr.isTTY };
  function capture(stdoutIsTty: boolean) {
    written.stdout = written.stderr = "";
    process.stdout.isTTY = stdoutIsTty;
    process.stderr.isTTY = true;
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((written.stdout += String(chunk)), true));
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((written.stderr += String(chunk)), true));
  }
  afterEach(() => {
    vi.restoreAllMocks();
    process.stdout.isTTY = tty.stdout;
    process.stderr.isTTY = tty.stderr;
  });

  it("escapes a server's strings in tables, results, notes and warnings on a terminal", () => {
    capture(true);
    printTable(["TOOLKIT", "DESCRIPTION"], [[`kit${HOSTILE}`, `about ${HOSTILE}`]], "none");
    out(`data ${HOSTILE}`);
    note(`More: add --cursor ${HOSTILE}`);
    warn(`careful ${HOSTILE}`);
    expect(unstyled(written.stdout)).not.toMatch(ACTIVE);
    expect(unstyled(written.stderr)).not.toMatch(ACTIVE);
    expect(written.stdout).toContain("kit\\x1b[2J");
    expect(written.stderr).toContain("--cursor \\x1b[2J");
  });

  it("passes results through unchanged to a pipe, but still escapes stderr", () => {
    capture(false);
    out(`data ${HOSTILE}`);
    note(`note ${HOSTILE}`);
    expect(written.stdout).toBe(`data ${HOSTILE}\n`);
    expect(unstyled(written.stderr)).not.toMatch(ACTIVE);
  });

  it("prints --json that parses to the same value, with nothing a terminal acts on", () => {
    for (const isTty of [true, false]) {
      capture(isTty);
      const value = { name: HOSTILE, nested: [`\u2028${HOSTILE}\u2029`] };
      printJson(value);
      expect(written.stdout).not.toMatch(ACTIVE);
      expect(written.stdout).not.toMatch(/[\u2028\u2029]/);
      expect(JSON.parse(written.stdout)).toEqual(value);
    }
  });

  it("keeps its own colours on a terminal", () => {
    capture(true);
    process.env.FORCE_COLOR = "1";
    try {
      out(paint(process.stdout, "green", "Connected"));
    } finally {
      delete process.env.FORCE_COLOR;
    }
    expect(written.stdout).toBe("\u001b[32mConnected\u001b[39m\n");
  });
});

describe("the CLI against a hostile server", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = new URL(req.url!, "http://x").pathname;
      res.setHeader("content-type", "application/json");
      if (path.endsWith("/search")) return res.end(JSON.stringify({ toolkits: [], nextCursor: `c${HOSTILE}` }));
      res.statusCode = 404;
      res.end(JSON.stringify({ error: `No toolkit ${HOSTILE}.`, code: "not_found" }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  /** Runs the CLI from source (so no build is needed) with credentials in the environment. */
  function cli(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SVC_WORKSPACE_API_URL: url,
      SVC_WORKSPACE_ID: "ws",
      SVC_WORKSPACE_API_KEY: "pak_0123456789abcdefghij",
      XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), "tp-term-")),
    };
    delete env.NO_COLOR;
    delete env.FORCE_COLOR;
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
      env,
      cwd: join(import.meta.dirname, "../.."),
    });
    const result = { status: null as number | null, stdout: "", stderr: "" };
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (result.stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (result.stderr += chunk));
    return new Promise((resolve) => child.once("close", (status) => resolve({ ...result, status })));
  }

  it("prints a server's error message with its escape sequences shown, not run", async () => {
    const result = await cli("toolkit", "kit");
    expect(result.status).toBe(4);
    expect(result.stderr).toContain("No toolkit \\x1b[2J\\x1b]0;owned\\x07");
    expect(unstyled(result.stderr)).not.toMatch(ACTIVE);
  });

  it('prints a server\'s cursor in the "More:" note with its escape sequences shown, not run', async () => {
    const result = await cli("search");
    expect(result.status).toBe(0);
    expect(result.stderr).toContain("--cursor c\\x1b[2J");
    expect(unstyled(result.stderr)).not.toMatch(ACTIVE);
  });
});

const noScript = spawnSync("script", ["--version"]).status === 0 ? null : "`script` (util-linux) is not installed";

describe.skipIf(noScript)(
  `the CLI on a terminal (under script) against a hostile server${noScript ? ` (skipped: ${noScript})` : ""}`,
  () => {
    let server: Server;
    let url: string;
    beforeAll(async () => {
      server = createServer((req, res) => {
        const path = new URL(req.url!, "http://x").pathname;
        res.setHeader("content-type", "application/json");
        if (req.method === "GET" && path.endsWith("/toolkit/kit")) {
          return res.end(
            JSON.stringify({ slug: "kit", name: `Kit${HOSTILE}`, description: "", authScheme: "apiKey", tools: [], nextCursor: null }),
          );
        }
        res.statusCode = 201;
        const connection = {
          id: `conn_1${HOSTILE}`,
          toolkit: "kit",
          createdAt: new Date(0).toISOString(),
          remoteUser: "",
          label: "Kit",
          status: "active",
          statusReason: null,
        };
        req.resume().on("end", () => res.end(JSON.stringify({ connection })));
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it("shows a toolkit's name in the hidden key prompt, and the connection in the result, with escapes shown, not run", async () => {
      const root = join(import.meta.dirname, "../..");
      const command = `'${process.execPath}' --import '${import.meta.resolve("tsx")}' '${join(root, "src/cli/main.ts")}' auth kit`;
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        SVC_WORKSPACE_API_URL: url,
        SVC_WORKSPACE_ID: "ws",
        SVC_WORKSPACE_API_KEY: "pak_0123456789abcdefghij",
        XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), "tp-term-")),
        TERM: "dumb",
      };
      // -E never: script itself would echo what it is given, its stdin not being a terminal.
      const child = spawn("script", ["-qe", "-E", "never", "-c", command, "/dev/null"], { env, stdio: ["pipe", "pipe", "pipe"] });
      let screen = "";
      let typed = false;
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        screen += chunk;
        if (!typed && screen.includes("API key for")) {
          typed = true;
          child.stdin.write("the-toolkit-key\r");
        }
      });
      const status = await new Promise<number | null>((resolve) => child.once("close", resolve));
      expect(status, screen).toBe(0);
      expect(screen).toContain("API key for Kit\\x1b[2J\\x1b]0;owned\\x07");
      expect(screen).toContain("conn_1\\x1b[2J");
      expect(screen).not.toContain("the-toolkit-key"); // the hidden prompt echoes nothing
      expect(screen.replace(/\r\n/g, "\n").replace(/\r/g, "")).not.toMatch(ACTIVE);
    });
  },
);
