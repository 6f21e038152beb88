/**
 * What the bin loads: help, a usage error and the client commands load commander and the CLI's own
 * code, no more (not even node:crypto, whose loading is a large part of their start); `serve --memory`
 * starts without the SQL store, Redis, the MCP SDK or the OpenAPI parser. Each run records the
 * modules it loads through a module hook given in NODE_OPTIONS, and Node's own modules at exit.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { missingBuild, runBin, startServe } from "../support/serve-process.js";

const HOOK = `
import { appendFileSync } from "node:fs";
import { registerHooks } from "node:module";
const log = process.env.TOOLS_PROXY_TEST_MODULE_LOG;
registerHooks({
  load(url, context, next) {
    appendFileSync(log, url + "\\n");
    return next(url, context);
  },
});
process.on("exit", () => appendFileSync(log, process.moduleLoadList.join("\\n") + "\\n"));
`;

/** A fresh log file and the environment that makes a run of the bin write to it. */
function traced(): { env: Record<string, string>; packages: () => string[]; builtins: () => string[] } {
  const log = join(mkdtempSync(join(tmpdir(), "tools-proxy-modules-")), "loaded.txt");
  return {
    env: {
      NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(HOOK)}`,
      TOOLS_PROXY_TEST_MODULE_LOG: log,
      XDG_CONFIG_HOME: join(log, "..", "config"),
    },
    packages: () => {
      const names = readFileSync(log, "utf8")
        .split("\n")
        .map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1])
        .filter((name): name is string => name !== undefined);
      return [...new Set(names)].sort();
    },
    builtins: () => readFileSync(log, "utf8").match(/(?<=^NativeModule )[\w/]+$/gm) ?? [],
  };
}

const CLIENT = ["--url", "http://127.0.0.1:9", "--workspace", "w", "--api-key", "pak_x"];

describe.skipIf(missingBuild)("the modules the bin loads", () => {
  it.each([
    [["--help"]],
    [["--bogus"]],
    [["keys", "--help"]],
    [["serve", "--port", "x"]],
    [["import", "openapi", "--help"]],
    [["whoami", "--no-check", ...CLIENT]],
  ])("tools-proxy %j loads no package but commander, and not node:crypto", (args) => {
    const run = traced();
    const result = runBin(args, run.env);
    expect(result.stderr).not.toMatch(/Error \[|registerHooks/);
    expect(run.packages()).toEqual(["commander"]);
    expect(run.builtins()).toContain("fs"); // Node's own modules are listed
    expect(run.builtins()).not.toContain("crypto");
  });

  it("keys list loads the SQL store (the check above can see a package that is loaded)", () => {
    const run = traced();
    const dataDir = join(run.env.XDG_CONFIG_HOME!, "..", "data");
    const result = runBin(["keys", "list", "--data-dir", dataDir], run.env);
    expect(result.status, result.stderr).toBe(0);
    expect(run.packages()).toContain("kysely");
  });

  it("serve --memory starts without the SQL store, Redis, the MCP SDK or the OpenAPI parser", async () => {
    const run = traced();
    const serve = await startServe(["--memory", "--quiet"], run.env);
    try {
      const loaded = run.packages();
      expect(loaded).toContain("zod"); // the handler is loaded
      for (const name of ["kysely", "redis", "@modelcontextprotocol/sdk", "@scalar/openapi-parser", "yaml"])
        expect(loaded, name).not.toContain(name);
    } finally {
      await serve.stop();
    }
  });
});
