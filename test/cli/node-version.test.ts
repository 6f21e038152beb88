/**
 * The bin on a Node older than package.json's `engines.node`: every command, even --help, stops at
 * once with the version it needs and the one it found (exit 1), instead of failing inside a module
 * that needs a newer Node. Runs the built bin with the oldest Node found on this machine (CI has
 * Node 20 at /usr/bin/node); skips, saying so, when every Node here is new enough.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, missingBuild } from "../support/serve-process.js";

const minimum = /(\d+)\.(\d+)/
  .exec(JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8")).engines.node)!
  .slice(1)
  .map(Number) as [number, number];

/** A `node` older than the minimum: /usr/bin/node or one on PATH outside node_modules (whose .bin holds the pinned Node 24). */
function oldNode(): { path: string; version: string } | null {
  const dirs = [
    "/usr/bin",
    "/usr/local/bin",
    ...(process.env.PATH ?? "").split(delimiter).filter((dir) => dir && !dir.includes("node_modules")),
  ];
  for (const path of new Set(dirs.map((dir) => join(dir, "node")))) {
    const version = spawnSync(path, ["--version"], { encoding: "utf8" }).stdout?.trim().replace(/^v/, "");
    const [major = 0, minor = 0] = (version ?? "").split(".").map(Number);
    if (version && (major < minimum[0] || (major === minimum[0] && minor < minimum[1]))) return { path, version };
  }
  return null;
}

const old = missingBuild ? null : oldNode();
const reason = missingBuild ?? (old ? null : `no Node older than ${minimum.join(".")} on this machine`);

describe.skipIf(reason)(reason ? `the bin on an old Node (skipped: ${reason})` : `the bin on Node ${old!.version}`, () => {
  it("every command says which Node it needs and exits 1, before loading anything that would fail", () => {
    for (const args of [["serve", "--memory", "--port", "0"], ["search", "notes"], ["keys", "list"], ["--help"], []]) {
      const result = spawnSync(old!.path, [BIN, ...args], { encoding: "utf8", timeout: 15_000 });
      expect(result.stderr, args.join(" ")).toMatch(
        new RegExp(
          `^tools-proxy needs Node >= ${minimum.join("\\.")} \\(found ${old!.version.replace(/\./g, "\\.")}\\)\\. Install a newer Node`,
        ),
      );
      expect(result.status, args.join(" ")).toBe(1);
      expect(result.stdout, args.join(" ")).toBe("");
    }
  });
});
