/**
 * Every example of the agent pages (docs/guide/agents/), run against the server the page tells the
 * reader to start: the page's `npx tools-proxy serve ...` (with --memory, so that nothing is
 * written to the clone). A block that needs only the tools-proxy client and that server runs
 * whole; in a block that also needs a model (OpenAI, Anthropic...), its `loadTools(...)` line runs. Each must load the
 * tools it asks for from that server, with the built package (`npm run build` first).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { codeBlocks, docFiles, ROOT, readDoc } from "../../docs/markdown.js";
import { missingBuild, type ServeProcess, startServe } from "../../support/serve-process.js";

const PAGES = docFiles().filter((doc) => doc.startsWith("docs/guide/agents/"));
const IMPORTS: Record<string, string> = {
  "tools-proxy/client": join(ROOT, "dist/client/index.js"),
  "tools-proxy/client/agents": join(ROOT, "dist/client/agents.js"),
};

/** The serve command the page tells the reader to run: the first `npx tools-proxy serve ...` in its text. */
function startCommand(page: string): string[] | undefined {
  const found = /(?:^|`)npx tools-proxy serve((?: --[\w-]+)*)(?:`|$)/m.exec(readDoc(page));
  return found ? found[1]!.split(" ").filter(Boolean) : undefined;
}

/** A script that runs the block (or its loadTools line) and prints the names of the tools it loaded, as JSON. */
function runnable(code: string): string {
  const imports = [...code.matchAll(/^import .* from "([^"]+)";$/gm)].map(([, from]) => from!);
  // Whole when it needs nothing but the client and this server (no model's SDK, no other site).
  const whole = imports.every((from) => from in IMPORTS) && !/https?:\/\/(?!127\.0\.0\.1:8787)/.test(code);
  const body = whole
    ? code
    : `import { loadTools } from "tools-proxy/client/agents";\n${/^\s*const toolset = await loadTools\(.*\);$/m.exec(code)![0]!.trim()}\n`;
  return `${body.replace(/from "(tools-proxy\/client(?:\/agents)?)"/g, (_, from: string) => `from "${pathToFileURL(IMPORTS[from]!).href}"`)}
console.log(JSON.stringify(toolset.tools.map((tool) => tool.name)));\n`;
}

const examples = PAGES.flatMap((page) =>
  codeBlocks(page)
    .filter((block) => block.lang === "ts" && block.code.includes("loadTools("))
    .map((block) => ({ page, line: block.line, code: block.code })),
);

describe("the agent pages", () => {
  it("each page with a loadTools example tells the reader which server to start", () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
    for (const page of new Set(examples.map((example) => example.page))) expect(startCommand(page), page).toBeDefined();
  });
});

describe.skipIf(missingBuild)(missingBuild ? `agent pages' examples (skipped: ${missingBuild})` : "agent pages' examples, run", () => {
  const dir = mkdtempSync(join(tmpdir(), "tools-proxy-agent-pages-"));
  const servers = new Map<string, Promise<ServeProcess>>();
  afterAll(async () => {
    await Promise.all([...servers.values()].map(async (serve) => (await serve).stop()));
    rmSync(dir, { recursive: true, force: true });
  });
  /** One server per distinct command, started once. */
  const serverFor = (args: string[]) => {
    const key = args.join(" ");
    if (!servers.has(key)) servers.set(key, startServe(["--memory", "--quiet", ...args]));
    return servers.get(key)!;
  };

  it.each(examples.map((example) => ({ ...example, at: `${example.page}:${example.line}` })))(
    "$at loads its tools from the server its page starts",
    async ({ page, line, code }) => {
      const serve = await serverFor(startCommand(page)!);
      const file = join(dir, `example-${line}-${page.replace(/\W/g, "-")}.mts`);
      writeFileSync(file, runnable(code).replaceAll("http://127.0.0.1:8787", serve.origin));
      const run = spawnSync(process.execPath, [file], {
        encoding: "utf8",
        timeout: 60_000,
        env: { ...process.env, TOOLS_KEY: serve.key! },
      });
      expect(run.status, run.stderr).toBe(0);
      const names = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as string[];
      for (const toolkit of code.match(/toolkits: \[([^\]]*)\]/)![1]!.match(/"[^"]+"/g)!) {
        expect(
          names.some((name) => name.startsWith(`${JSON.parse(toolkit).toUpperCase()}_`)),
          `${toolkit} in ${names}`,
        ).toBe(true);
      }
      for (const [, slug] of code.matchAll(/"([A-Z][A-Z0-9]*_[A-Z0-9_]+)"/g)) expect(names).toContain(slug);
      // The page's search for "send an email": a tool that sends one, from a toolkit that has it.
      if (code.includes('"send an email"')) expect(names).toContain("GMAIL_SEND_EMAIL");
    },
    90_000,
  );
});
