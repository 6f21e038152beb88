/**
 * The built agent subpaths (`npm run build`): `tools-proxy/client` and `tools-proxy/client/agents`
 * import nothing, so that neither loads a framework; each framework's subpath imports that
 * framework alone. Skipped when dist/ has no build of them.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { importsOf } from "../bundle.js";

const DIST = resolve(import.meta.dirname, "../../../dist/client");
const built = existsSync(`${DIST}/agents.js`) && existsSync(`${DIST}/ai-sdk.cjs`);
const NAME = "the client and its agents subpath import nothing; each framework subpath imports only its framework";

describe("built agent subpaths", () => {
  it.skipIf(!built)(built ? NAME : `${NAME} (skipped: no dist/client/agents.js; run npm run build)`, () => {
    const imports = (file: string) => [...new Set(importsOf(readFileSync(`${DIST}/${file}`, "utf8")))].sort();
    for (const extension of ["js", "cjs"]) {
      expect(imports(`index.${extension}`)).toEqual([]);
      expect(imports(`agents.${extension}`)).toEqual([]);
      expect(imports(`ai-sdk.${extension}`)).toEqual(["ai"]);
      expect(imports(`langchain.${extension}`)).toEqual(["@langchain/core/messages", "@langchain/core/tools"]);
      expect(imports(`openai-agents.${extension}`)).toEqual(["@openai/agents"]);
    }
  });
});
