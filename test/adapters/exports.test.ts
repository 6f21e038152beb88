/**
 * Every subpath export of the built package loads, by its public name, in every runtime the
 * package supports: Node 24 and Node 22 (ESM and CommonJS), Bun (ESM and CommonJS) and Deno (ESM),
 * and each gives the same named exports everywhere. publint and attw check the map and its types;
 * this checks what the runtimes really load.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { bun, deno, node22, node24, ROOT, type Runtime, requireDist } from "./runtimes.js";

type Loaded = string[] | { error: string };
type Probe = Record<string, { esm: Loaded; cjs?: Loaded }>;

const PROBE = "test/adapters/exports-probe.mjs";
const subpaths = Object.keys(JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")).exports as Record<string, unknown>).filter(
  (s) => !s.endsWith(".json"),
);

/** Names each entry point must have, whatever else it adds. */
const REQUIRED: Record<string, string[]> = {
  ".": [
    "createToolsHandler",
    "defineToolkit",
    "defineTool",
    "defineJsonToolkit",
    "memoryStore",
    "memoryBlobStore",
    "issueApiKey",
    "oauth2",
    "apiKey",
    "ToolsError",
  ],
  "./express": ["toExpressHandler"],
  "./next": ["toNextHandler"],
  "./bun": ["toBunHandler"],
  "./node": ["toNodeHandler", "handleClientError"],
  "./fastify": ["toFastifyPlugin"],
  "./testing": ["toolsStoreConformance", "blobStoreConformance"],
};

/** CommonJS entries that cannot load by design, with the error they give. */
const NO_CJS: Record<string, RegExp> = {
  // The conformance suites are vitest suites, and vitest refuses to be required.
  "./testing": /Vitest cannot be imported in a CommonJS module/,
};

const runtimes: Array<{ runtime: Runtime; args: string[]; cjs: boolean }> = [
  { runtime: node24, args: [PROBE], cjs: true },
  { runtime: node22, args: [PROBE], cjs: true },
  // The repository's tsconfig.json maps "tools-proxy" to the sources, and Bun would follow it.
  { runtime: bun, args: ["--tsconfig-override=examples/tsconfig.json", PROBE], cjs: true },
  { runtime: deno, args: ["run", "--allow-read", "--allow-env", "--allow-net", "--allow-sys", PROBE, "esm"], cjs: false },
];

const probes = new Map<Runtime, Probe>();
beforeAll(async () => {
  requireDist();
  await Promise.all(
    runtimes
      .filter(({ runtime }) => !runtime.missing)
      .map(async ({ runtime, args }) => {
        const { stdout } = await promisify(execFile)(runtime.path!, args, {
          cwd: ROOT,
          env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" },
          timeout: 60_000,
        });
        probes.set(runtime, JSON.parse(stdout) as Probe);
      }),
  );
}, 90_000);

describe("the package's exports, loaded by name in each runtime", () => {
  it("Node 24's ESM entries are the reference: each loads and has its required names", () => {
    expect(node24.missing).toBeNull();
    const reference = probes.get(node24)!;
    expect(Object.keys(reference)).toEqual(subpaths);
    for (const subpath of subpaths) {
      const names = reference[subpath]!.esm;
      expect(Array.isArray(names), `${subpath}: ${JSON.stringify(names)}`).toBe(true);
      expect(names, subpath).toEqual(expect.arrayContaining(REQUIRED[subpath] ?? []));
      expect((names as string[]).length, subpath).toBeGreaterThan(0);
    }
  });

  for (const { runtime, cjs } of runtimes) {
    it.skipIf(runtime.missing !== null)(
      `${runtime.name}${runtime.missing ? ` (skipped: ${runtime.missing})` : ` (${runtime.version})`}: ESM${cjs ? " and CommonJS" : ""} give the same names`,
      () => {
        const reference = probes.get(node24)!;
        const probe = probes.get(runtime)!;
        expect(Object.keys(probe)).toEqual(subpaths);
        for (const subpath of subpaths) {
          const expected = reference[subpath]!.esm;
          expect(probe[subpath]!.esm, `${runtime.name} import("${subpath}")`).toEqual(expected);
          if (!cjs) continue;
          const loaded = probe[subpath]!.cjs!;
          if (NO_CJS[subpath])
            expect((loaded as { error: string }).error, `${runtime.name} require("${subpath}")`).toMatch(NO_CJS[subpath]!);
          else expect(loaded, `${runtime.name} require("${subpath}")`).toEqual(expected);
        }
      },
    );
  }
});
