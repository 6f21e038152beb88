/**
 * What agents need of an input schema, and no more: descriptions summarised, examples and
 * vendor extensions dropped. And the `$defs` the tools of a provider share, kept once.
 */
import { summarise } from "./text.js";

const DROPPED = new Set(["example", "examples", "externalDocs", "xml", "$comment", "deprecated", "readOnly", "writeOnly"]);

/** A schema with each `description` summarised to `max` characters and what agents do not read left out. */
export function trimSchema(schema: unknown, max: number): unknown {
  if (Array.isArray(schema)) return schema.map((item) => trimSchema(item, max));
  if (schema === null || typeof schema !== "object") return schema;
  const trimmed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && value && typeof value === "object" && !Array.isArray(value)) {
      // Property names are data, not keywords: a property called "example" stays.
      trimmed[key] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, trimSchema(item, max)]));
    } else if (key === "description" || key === "title") {
      if (typeof value !== "string") continue;
      const short = summarise(value, max);
      if (short) trimmed[key] = short;
    } else if (!DROPPED.has(key) && !key.startsWith("x-")) {
      trimmed[key] = trimSchema(value, max);
    }
  }
  return trimmed;
}

/**
 * The provider's shared definitions: every tool's `$defs` moved into one table (`defs`), each tool
 * naming the ones it uses. A name two tools define differently stays in each tool's own `$defs`.
 */
export function shareDefs<T extends { inputParameters: Record<string, unknown> }>(
  tools: T[],
): { defs: Record<string, unknown>; tools: Array<T & { defs?: string[] }> } {
  const text = new Map<string, string>();
  const clash = new Set<string>();
  for (const tool of tools) {
    for (const [name, schema] of Object.entries((tool.inputParameters.$defs as Record<string, unknown>) ?? {})) {
      const written = JSON.stringify(schema);
      if (text.has(name) && text.get(name) !== written) clash.add(name);
      text.set(name, written);
    }
  }
  const defs: Record<string, unknown> = {};
  const shared = tools.map((tool) => {
    const own = (tool.inputParameters.$defs as Record<string, unknown>) ?? {};
    const names = Object.keys(own).filter((name) => !clash.has(name));
    if (names.length === 0) return tool;
    for (const name of names) defs[name] = own[name];
    const kept = Object.fromEntries(Object.entries(own).filter(([name]) => clash.has(name)));
    const { $defs: _, ...inputParameters } = tool.inputParameters;
    return {
      ...tool,
      inputParameters: Object.keys(kept).length ? { ...inputParameters, $defs: kept } : inputParameters,
      defs: names.sort(),
    };
  });
  return { defs, tools: shared };
}
