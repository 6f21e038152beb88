/**
 * The layers of src/ import downward only: the graph of imports between its directories (the
 * files directly in src/ count as one, the top) has no cycle, and the base layer (core, util)
 * imports nothing above it. Imports are read with TypeScript's own parser, type-only ones included.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** The directory of src/ a file belongs to: its first path segment, or "." for src/ itself. */
const layerOf = (file: string) => {
  const path = relative(SRC, file);
  return path.includes("/") ? path.split("/")[0]! : ".";
};

/** directory → directory → the imports that make the edge, as "from -> to". */
function directoryGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles(SRC)) {
    for (const imported of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) {
      if (!imported.fileName.startsWith(".")) continue;
      const target = resolve(dirname(file), imported.fileName.replace(/\.js$/, ".ts"));
      const [from, to] = [layerOf(file), layerOf(target)];
      if (from === to || !target.startsWith(SRC)) continue;
      const edges = graph.get(from) ?? graph.set(from, new Map()).get(from)!;
      (edges.get(to) ?? edges.set(to, []).get(to)!).push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
    }
  }
  return graph;
}

/** Every cycle of the graph, as its strongly connected components of more than one directory. */
function cycles(graph: Map<string, Map<string, string[]>>): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    order.set(node, order.size);
    low.set(node, order.get(node)!);
    stack.push(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, order.get(next)!));
    }
    if (low.get(node) === order.get(node)) {
      const component = stack.splice(stack.indexOf(node));
      if (component.length > 1) found.push(component);
    }
  };
  for (const node of graph.keys()) if (!order.has(node)) visit(node);
  return found;
}

describe("architecture", () => {
  const graph = directoryGraph();

  it("the directories of src/ import each other without a cycle", () => {
    const explained = cycles(graph).map((component) =>
      component
        .flatMap((from) => [...(graph.get(from) ?? [])].filter(([to]) => component.includes(to)).flatMap(([, why]) => why))
        .join("\n"),
    );
    expect(explained, "each cycle with the imports that make it").toEqual([]);
  });

  it("the base layer (core, util) imports nothing above it", () => {
    for (const base of ["core", "util"]) {
      const upward = [...(graph.get(base) ?? [])].filter(([to]) => to !== "util").flatMap(([, why]) => why);
      expect(upward, `${base} imports`).toEqual([]);
    }
  });

  it("the OpenAPI import builds on the toolkits alone, and only the command line imports it", () => {
    const allowed = new Set(["toolkits", "util"]);
    const outward = [...(graph.get("openapi") ?? [])].filter(([to]) => !allowed.has(to)).flatMap(([, why]) => why);
    expect(outward, "openapi imports").toEqual([]);
    const inward = [...graph]
      .filter(([from, edges]) => from !== "cli" && edges.has("openapi"))
      .flatMap(([, edges]) => edges.get("openapi")!);
    expect(inward, "imports of openapi").toEqual([]);
  });

  it("the check finds a cycle when there is one", () => {
    const looped = new Map([
      ["a", new Map([["b", ["a/x.ts -> b/y.ts"]]])],
      ["b", new Map([["c", ["b/y.ts -> c/z.ts"]]])],
      ["c", new Map([["a", ["c/z.ts -> a/x.ts"]]])],
    ]);
    expect(cycles(looped).map((c) => c.sort())).toEqual([["a", "b", "c"]]);
    expect(cycles(new Map([["a", new Map([["b", []]])]]))).toEqual([]);
  });
});
