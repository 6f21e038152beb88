/**
 * Builds the Next.js example (examples/next) with `next build`, once per state of its sources and
 * of dist/: the build goes to examples/.build/next-<hash>, which later runs reuse. The copy also
 * gets the route file at a second folder, for the custom basePath, exactly as an app mounting the
 * handler there would have it.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { CUSTOM_BASE, DEFAULT_BASE } from "./fixtures.js";
import { ROOT, type Runtime } from "./runtimes.js";

const BUILDS = join(ROOT, "examples/.build");
const ROUTE = "route.ts";
const GENERATED = new Set([".next", "node_modules", "next-env.d.ts"]);

/** Files under `dir`, recursively, leaving out what Next.js generates. */
function filesOf(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (GENERATED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesOf(path) : [path];
  });
}

function inputsHash(): string {
  const hash = createHash("sha256");
  const files = [
    ...filesOf(join(ROOT, "examples/next")),
    ...filesOf(join(ROOT, "examples/shared")),
    join(ROOT, "examples/tsconfig.json"),
    ...filesOf(join(ROOT, "dist")).filter((file) => /\.(c?js|d\.c?ts)$/.test(file)),
    join(ROOT, "node_modules/next/package.json"),
    new URL(import.meta.url).pathname,
  ];
  for (const file of files.sort()) hash.update(relative(ROOT, file)).update("\0").update(readFileSync(file)).update("\0");
  return hash.digest("hex").slice(0, 16);
}

/** The route folder for `basePath`, and its import of lib/tools.ts from there. */
function routeFor(basePath: string, source: string): { dir: string; text: string } {
  const depth = basePath.split("/").filter(Boolean).length + 2; // the base's segments, [...path], app
  const text = source.replace(/"(\.\.\/)+lib\/tools\.ts"/, `"${"../".repeat(depth)}lib/tools.ts"`);
  return { dir: join("next/app", basePath, "[...path]"), text };
}

/**
 * The built app's folder (the parent of `next/`, where `next start next` runs), building it with
 * `runtime` first when no build of these sources exists. Build output goes to `log`.
 */
export async function buildNextExample(runtime: Runtime, log: (line: string) => void): Promise<string> {
  const final = join(BUILDS, `next-${inputsHash()}`);
  if (existsSync(join(final, "next/.next/BUILD_ID"))) {
    log(`next build: reusing ${relative(ROOT, final)}`);
    return final;
  }
  const work = join(BUILDS, `tmp-${process.pid}-${Date.now()}`);
  mkdirSync(work, { recursive: true });
  try {
    cpSync(join(ROOT, "examples/next"), join(work, "next"), { recursive: true, filter: (src) => !GENERATED.has(src.split("/").at(-1)!) });
    cpSync(join(ROOT, "examples/shared"), join(work, "shared"), { recursive: true });
    cpSync(join(ROOT, "examples/tsconfig.json"), join(work, "tsconfig.json"));
    const source = readFileSync(join(ROOT, "examples/next/app", DEFAULT_BASE, "[...path]", ROUTE), "utf8");
    const custom = routeFor(CUSTOM_BASE, source);
    mkdirSync(join(work, custom.dir), { recursive: true });
    writeFileSync(join(work, custom.dir, ROUTE), custom.text);

    const started = Date.now();
    const { stdout, stderr } = await promisify(execFile)(runtime.path!, [join(ROOT, "node_modules/next/dist/bin/next"), "build", "next"], {
      cwd: work,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NEXT_TELEMETRY_DISABLED: "1" },
      maxBuffer: 16 * 1024 * 1024,
      timeout: 280_000,
    }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`next build failed: ${error.message}\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
    });
    log(`next build: ${((Date.now() - started) / 1000).toFixed(1)} s\n${stdout}${stderr}`);
    try {
      renameSync(work, final);
    } catch (error) {
      if (!existsSync(join(final, "next/.next/BUILD_ID"))) throw error; // else another run built the same sources first
    }
    removeOldBuilds(final);
    return final;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Builds of other sources, and abandoned work folders, untouched for an hour. */
function removeOldBuilds(keep: string): void {
  for (const name of readdirSync(BUILDS)) {
    const path = join(BUILDS, name);
    if (path !== keep && Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
  }
}
