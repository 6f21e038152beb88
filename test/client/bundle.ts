/**
 * Bundles `src/client/index.ts` into one ESM file for a browser (tsup, platform "browser"), as an
 * app's bundler would, for the browser, Bun and Deno smoke tests. The bundle must import
 * nothing: no `node:` module, no server code.
 */
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "tsup";

export interface ClientBundle {
  dir: string;
  /** Path of the bundle, `client.js` in `dir`. */
  file: string;
  code: string;
}

export async function bundleClient(): Promise<ClientBundle> {
  const dir = await mkdtemp(join(tmpdir(), "tools-proxy-client-bundle-"));
  await build({
    entry: { client: resolve(import.meta.dirname, "../../src/client/index.ts") },
    outDir: dir,
    format: ["esm"],
    platform: "browser",
    target: "es2022",
    dts: false,
    sourcemap: false,
    splitting: false,
    clean: false,
    silent: true,
    config: false,
  });
  const file = join(dir, "client.js");
  return { dir, file, code: await readFile(file, "utf8") };
}

/** The module specifiers a bundle imports (static and dynamic). */
export function importsOf(code: string): string[] {
  const found = [
    ...code.matchAll(
      /\bimport\s*(?:[\w*{}\s,]+from\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)|\brequire\(\s*["']([^"']+)["']\s*\)/g,
    ),
  ];
  return found.map((m) => m[1] ?? m[2] ?? m[3]!);
}
