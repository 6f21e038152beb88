/**
 * The baseline of the side-by-side benchmark: the library as it was at a git commit (by default
 * the last release), built by its own build script into a folder of the system's temporary
 * directory, so that its `dist/` can run beside the working tree's.
 *
 * The folder holds the commit's files (`git archive`) and a `node_modules` link to this
 * repository's, so the baseline resolves its dependencies from here: the packages it needs and
 * the library no longer lists (such as `hono`) are the bench workspace's own dependencies
 * (`bench/package.json`), which a root `npm install` installs too. A built folder is kept and used
 * again; it is built under another name first and renamed once complete, so an interrupted build
 * is never taken for a finished one.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { progress } from "./report.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The commit the benchmark compares against unless BENCH_BASELINE names another: the last release. */
export const RELEASE_COMMIT = "e5715f1";

/** A built baseline: its commit and the folder whose `dist/` is its build. */
export interface Baseline {
  commit: string;
  root: string;
}

/**
 * The baseline at `revision` (BENCH_BASELINE, else the last release), built when no finished build
 * of it is kept. Throws with what to do when the commit is not in this clone (a shallow clone) or
 * its build fails.
 */
export function prepareBaseline(revision = process.env.BENCH_BASELINE ?? RELEASE_COMMIT): Baseline {
  const found = git(["rev-parse", "--verify", "--quiet", `${revision}^{commit}`]);
  if (found.error) throw new Error(`git is needed to build the baseline from its commit: ${found.error.message}`);
  const commit = found.stdout.trim();
  if (!commit) {
    throw new Error(
      `the baseline commit ${revision} is not in this clone: run \`git fetch --unshallow\` (or set BENCH_BASELINE to a commit it has)`,
    );
  }
  // One folder per commit and clone: its node_modules link points into this clone.
  const clone = createHash("sha256").update(ROOT).digest("hex").slice(0, 8);
  const root = join(tmpdir(), `tools-proxy-bench-baseline-${commit.slice(0, 12)}-${clone}`);
  if (existsSync(join(root, "dist", ".build-stamp")) && existsSync(join(root, "node_modules"))) return { commit, root };

  rmSync(root, { recursive: true, force: true });
  const staging = mkdtempSync(`${root}.building-`);
  try {
    progress(`baseline: building ${commit.slice(0, 12)} in ${root} (once; kept for later runs)`);
    const archive = join(staging, "source.tar");
    check(git(["archive", "--format=tar", "-o", archive, commit]), "git archive");
    check(spawnSync("tar", ["-xf", archive, "-C", staging], { encoding: "utf8" }), "tar -x");
    rmSync(archive);
    symlinkSync(join(ROOT, "node_modules"), join(staging, "node_modules"), "dir");
    check(spawnSync(process.execPath, ["scripts/build.mjs", "--silent"], { cwd: staging, encoding: "utf8" }), "the baseline's build");
    renameSync(staging, root);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another run may have finished the same build meanwhile.
    if (existsSync(join(root, "dist", ".build-stamp"))) return { commit, root };
    throw error;
  } finally {
    progress("");
  }
  return { commit, root };
}

function git(args: string[]) {
  return spawnSync("git", ["-C", ROOT, ...args], { encoding: "utf8" });
}

function check(result: ReturnType<typeof spawnSync>, what: string): void {
  if (result.status !== 0) throw new Error(`${what} failed (${result.status ?? result.error}): ${String(result.stderr).slice(-2000)}`);
}
