/**
 * The README's quick start as a reader runs it: examples/quick-start/server.mts (which the README
 * shows byte for byte) started with Node, then the README's curl command, as written, with the
 * address and the key the server printed. The answer must be the one the README shows.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppProcess, startApp } from "../adapters/app-process.js";
import { node22, node24 } from "../adapters/runtimes.js";
import { codeBlocks, ROOT } from "./markdown.js";
import { commandLines } from "./shell.js";

const EXAMPLE = "examples/quick-start/server.mts";
const blocks = codeBlocks("README.md").filter((block) => block.section === "Quick start");
const shown = blocks.find((block) => block.marker?.kind === "file" && block.marker.path === EXAMPLE);
const commands = blocks.filter((block) => block.lang === "sh").flatMap((block) => commandLines(block.code));
const answer = blocks.find((block) => block.marker?.kind === "checked by" && block.marker.test === "test/docs/quick-start.test.ts");
const missingDist = ["dist/index.js", "dist/adapters/node.js"].find((file) => !existsSync(join(ROOT, file)));

/** A port nobody listens on now: the example reads PORT, as a reader might set it. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("README: the quick start", () => {
  it("shows the example, the commands to start and call it, and the answer", () => {
    expect(shown, `the README shows ${EXAMPLE}`).toBeDefined();
    expect(commands).toEqual([expect.stringMatching(/^node server\.mts$/), expect.stringMatching(/^curl /)]);
    expect(answer?.lang).toBe("json");
  });

  for (const runtime of [node24, node22]) {
    const missing = runtime.missing ?? (missingDist ? `${missingDist} is missing: run \`npm run build\` first` : null);
    describe.skipIf(missing !== null)(`on ${runtime.name}${missing ? ` (skipped: ${missing})` : ""}`, () => {
      let app: AppProcess;
      let key: string;
      beforeAll(async () => {
        app = await startApp({
          command: runtime.path!,
          args: [EXAMPLE],
          cwd: ROOT,
          env: { PORT: String(await freePort()) },
          listening: /^API (http:\/\/127\.0\.0\.1:\d+)\/proxy\/tools, key pak_/m,
        });
        key = /key (pak_[A-Za-z0-9_-]+)/.exec(app.output())![1]!;
      });
      afterAll(() => app?.stop());

      it("answers the README's curl command with the answer the README shows", () => {
        const curl = commands
          .find((line) => line.startsWith("curl "))!
          .replaceAll("http://127.0.0.1:8787", app.origin)
          .replace("pak_...", key);
        const result = spawnSync("bash", ["-c", curl], { encoding: "utf8", timeout: 20_000 });
        expect(result.status, result.stderr).toBe(0);
        expect(JSON.parse(result.stdout)).toEqual(JSON.parse(answer!.code));
      });

      it("serves its toolkit to the key it printed, and nothing without a key", async () => {
        const search = await fetch(`${app.origin}/proxy/tools/search`, { headers: { "x-api-key": key } });
        expect((await search.json()).toolkits.map((t: { slug: string }) => t.slug)).toEqual(["hello"]);
        expect((await fetch(`${app.origin}/proxy/tools/search`)).status).toBe(401);
      });
    });
  }
});
