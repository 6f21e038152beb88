/**
 * A dual install: the handler loaded by `require` and the Node bridge by `import`, or the other
 * way round, are two copies of the package's modules. The bridge must still find the handler's
 * fast path, which is declared (`ToolsHandler.answer`, `WholeAnswer.wholeParts()`,
 * `WholeBodyRequest.wholeBody`) rather than kept in a table of one copy. Observed through what the
 * bridge left untouched, not through timing (test/adapters/dual-module-probe.mjs).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { node24, ROOT, requireDist } from "./runtimes.js";

const run = promisify(execFile);

describe.skipIf(node24.missing !== null)("the Node bridge and a handler from the other module format (built package)", () => {
  beforeAll(requireDist);

  for (const handlerFrom of ["cjs", "esm"] as const) {
    it(`${handlerFrom === "cjs" ? "a required handler, an imported bridge" : "an imported handler, a required bridge"}: JSON answers written from their parts, a small JSON body taken whole`, async () => {
      const { stdout } = await run(node24.path!, ["test/adapters/dual-module-probe.mjs", handlerFrom], { cwd: ROOT, timeout: 60_000 });
      const result = JSON.parse(stdout.trim().split("\n").at(-1)!);
      expect(result.sameModule, "the two formats are separate copies").toBe(false);
      expect(result.listed).toEqual({ status: 200, body: { connections: [] }, wroteParts: true });
      expect(result.executed).toEqual({ status: 404, code: "not_found", hadWholeBody: true, streamRead: false, wroteParts: true });
    }, 60_000);
  }
});
