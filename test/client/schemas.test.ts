/**
 * `src/api/` holds the schemas the routes validate with and the client takes its types from. It
 * must stay free of server code, so importing a schema (types or values) never pulls the server
 * in; and the client imports the schemas for their types only.
 */
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../../src");
const importLines = (file: string) =>
  [...readFileSync(file, "utf8").matchAll(/^import\s+(type\s+)?[^;]*?from\s+"([^"]+)";/gms)].map((m) => ({
    typeOnly: !!m[1],
    from: m[2]!,
  }));

describe("schema modules", () => {
  it("src/api imports only zod, the error-code table and itself", () => {
    const all = readdirSync(`${SRC}/api`).flatMap((name) => importLines(`${SRC}/api/${name}`).map(({ from }) => [name, from]));
    expect(all.length).toBeGreaterThan(8);
    for (const entry of all) expect(entry).toSatisfy(([, f]: string[]) => f === "zod" || f === "../errors.js" || f!.startsWith("./"));
  });

  it("src/client imports only itself at run time; schemas and zod for types only", () => {
    // The files of the client itself; client/agents/ (the framework adapters, each its own subpath) is checked by test/client/agents/dist.test.ts.
    const names = readdirSync(`${SRC}/client`).filter((n) => n.endsWith(".ts") && n !== "node.ts");
    expect(names.flatMap((name) => importLines(`${SRC}/client/${name}`)).filter((i) => i.from === "../api/index.js")).toHaveLength(1);
    for (const name of names) {
      for (const { typeOnly, from } of importLines(`${SRC}/client/${name}`)) {
        if (!typeOnly) expect([name, from]).toSatisfy(([, f]: string[]) => f!.startsWith("./"));
        else expect([name, from]).toSatisfy(([, f]: string[]) => f!.startsWith("./") || f === "zod" || f === "../api/index.js");
      }
    }
  });
});
