/** The README's "Mount it" section shows the examples as they are: each code block is its file. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROOT } from "./runtimes.js";

const readme = readFileSync(`${ROOT}README.md`, "utf8");
const section = readme.slice(readme.indexOf("## Mount it\n"), readme.indexOf("\n## ", readme.indexOf("## Mount it\n") + 1));
/** Each "[`examples/...`](...)" link that starts a line, and the first ```ts block after it. */
const shown = [...section.matchAll(/^\[`(examples\/[^`]+)`\]\([^)]*\)[\s\S]*?```ts\n([\s\S]*?)```/gm)].map(([, path, code]) => ({
  path: path!,
  code: code!,
}));

describe("README: Mount it", () => {
  it("shows every example", () => {
    expect(shown.map((s) => s.path).sort()).toEqual(
      [
        "examples/bun/server.ts",
        "examples/deno/main.ts",
        "examples/express/server.ts",
        "examples/fastify/server.ts",
        "examples/hono/app.ts",
        "examples/hono/node.ts",
        "examples/next/app/proxy/tools/[...path]/route.ts",
        "examples/node/server.ts",
      ].sort(),
    );
  });

  it.each(shown)("shows $path exactly", ({ path, code }) => {
    expect(code).toBe(readFileSync(`${ROOT}${path}`, "utf8"));
  });
});
