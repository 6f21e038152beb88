/**
 * The walk-through of docs/guide/getting-started.md, run as a reader runs it: every line of the
 * "Walk through the API" section's `sh` blocks, in order, against a fresh `tools-proxy serve`,
 * with the key it printed. Each answer the page shows after a block (marked as checked by this
 * test) must be what the block printed, once ids, times and the port are set aside.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingBuild, type ServeProcess, startServe } from "../support/serve-process.js";
import { codeBlocks } from "./markdown.js";
import { commandLines } from "./shell.js";

const PAGE = "docs/guide/getting-started.md";
const THIS_TEST = "test/docs/getting-started.test.ts";
const blocks = codeBlocks(PAGE).filter((block) => block.section === "Walk through the API");

const CONNECTION = /conn_[A-Za-z0-9_-]{22}/g;
const STAGING_KEY = /stg_[A-Za-z0-9_-]{43}/g;

/** The same answer whatever the run: ids, keys, times and dates replaced by what they are. */
function normalize(value: unknown, origin: string): unknown {
  if (typeof value === "string") {
    return value
      .replaceAll(origin, "http://127.0.0.1:8787")
      .replace(CONNECTION, "conn_<id>")
      .replace(STAGING_KEY, "stg_<key>")
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, "<time>")
      .replace(/[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT/g, "<date>");
  }
  if (Array.isArray(value)) return value.map((item) => normalize(item, origin));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v, origin)]));
  return value;
}

describe.skipIf(missingBuild)(missingBuild ? `${PAGE} (skipped: ${missingBuild})` : `${PAGE}: the walk-through, run as written`, () => {
  const work = mkdtempSync(join(tmpdir(), "tools-proxy-getting-started-"));
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await startServe(["--data-dir", join(work, ".tools-proxy")]);
  });
  afterAll(async () => {
    await serve?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it("shows each step's command and its answer", () => {
    expect(blocks.filter((block) => block.lang === "sh").length).toBeGreaterThan(8);
    expect(blocks.filter((block) => block.marker?.kind === "checked by" && block.marker.test === THIS_TEST).length).toBeGreaterThan(8);
  });

  it("prints the answers the page shows", () => {
    const env: Record<string, string> = {};
    let stagingKey = "";
    let printed: string | null = null;
    let compared = 0;
    const substitute = (text: string) =>
      text.replaceAll("http://127.0.0.1:8787", serve.origin).replace("pak_...", serve.key!).replace("stg_...", stagingKey);

    for (const block of blocks) {
      if (block.lang === "sh") {
        printed = "";
        for (const line of commandLines(block.code)) {
          const assignment = /^([A-Z_]+)=(\S+)/.exec(line);
          if (assignment) {
            env[assignment[1]!] = substitute(assignment[2]!);
            continue;
          }
          const result = spawnSync("bash", ["-c", substitute(line)], {
            cwd: work,
            env: { ...process.env, ...env },
            encoding: "utf8",
            timeout: 20_000,
          });
          expect(result.status, `${line}\n${result.stderr}`).toBe(0);
          printed += result.stdout;
          stagingKey = result.stdout.match(STAGING_KEY)?.at(-1) ?? stagingKey;
        }
      } else if (block.marker?.kind === "checked by" && block.marker.test === THIS_TEST) {
        expect(printed, `${PAGE}:${block.line} follows a command`).not.toBeNull();
        const [actual, expected] =
          block.lang === "json" ? [JSON.parse(printed!), JSON.parse(block.code)] : [printed!.trimEnd(), block.code.trimEnd()];
        expect(normalize(actual, serve.origin), `${PAGE}:${block.line}`).toEqual(normalize(expected, serve.origin));
        compared++;
        printed = null;
      }
    }
    expect(compared).toBeGreaterThan(8);
  }, 120_000);
});
