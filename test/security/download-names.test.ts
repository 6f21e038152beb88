/**
 * `tools-proxy files <key>` on a terminal saves the download under the name the server gives in
 * Content-Disposition. A hostile server could name it `.npmrc` (the next `npm install` in that
 * directory then uses its registry), `.envrc` or `.bashrc`, or put control characters in it. The
 * name is made harmless: last path segment, no leading dot, no control characters.
 *
 * The end-to-end case runs the CLI under `script` (util-linux), which gives it a terminal as
 * stdout; it is skipped, saying why, where `script` is missing.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { safeDownloadName } from "../../src/cli/file-names.js";

describe("safeDownloadName", () => {
  it("keeps ordinary names, and makes dotfiles, paths and control characters harmless", () => {
    expect(safeDownloadName("report.pdf")).toBe("report.pdf");
    expect(safeDownloadName("Ünïcödé 😀.txt")).toBe("Ünïcödé 😀.txt");
    expect(safeDownloadName(".npmrc")).toBe("_npmrc");
    expect(safeDownloadName("../../.bashrc")).toBe("_bashrc");
    expect(safeDownloadName("C:\\Users\\me\\.ssh\\config")).toBe("config");
    expect(safeDownloadName("a\u001b]0;x\u0007b\u009b\u202e.txt")).toBe("a_]0;x_b__.txt");
    expect(safeDownloadName("file.txt:stream")).toBe("file.txt_stream");
    for (const name of ["", ".", "..", "dir/", "/"]) expect(safeDownloadName(name)).toBe("download");
    expect(safeDownloadName("x".repeat(1000))).toHaveLength(200);
  });
});

const noScript = spawnSync("script", ["--version"]).status === 0 ? null : "`script` (util-linux) is not installed";

describe.skipIf(noScript)(`files <key> on a terminal, against a hostile server${noScript ? ` (skipped: ${noScript})` : ""}`, () => {
  let server: Server;
  let url: string;
  const cwd = mkdtempSync(join(tmpdir(), "tp-download-"));
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-length": "15",
        "content-disposition": 'attachment; filename=".npmrc"',
      });
      res.end("registry=evil\n\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(cwd, { recursive: true, force: true });
  });

  it("saves a download the server names .npmrc as _npmrc", async () => {
    const root = join(import.meta.dirname, "../..");
    // The CLI from source through tsx, resolved from here: the working directory is a bare temp dir.
    const command = `'${process.execPath}' --import '${import.meta.resolve("tsx")}' '${join(root, "src/cli/main.ts")}' files stg_AAAAAAAAAAAAAAAAAAAAAAAA`;
    const env = {
      ...process.env,
      SVC_WORKSPACE_API_URL: url,
      SVC_WORKSPACE_ID: "ws",
      SVC_WORKSPACE_API_KEY: "pak_0123456789abcdefghij",
      XDG_CONFIG_HOME: cwd,
    };
    const child = spawn("script", ["-qec", command, "/dev/null"], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const status = await new Promise<number | null>((resolve) => child.once("close", resolve));
    expect(status, output).toBe(0);
    expect(existsSync(join(cwd, ".npmrc")), readdirSync(cwd).join(", ")).toBe(false);
    expect(readFileSync(join(cwd, "_npmrc"), "utf8")).toBe("registry=evil\n\n");
  });
});
