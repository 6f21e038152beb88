/**
 * The zod schema that checks a tool's arguments against its JSON Schema (`inputParameters`), made
 * by `z.fromJSONSchema` with two guards around it:
 *
 * - Patterns (`pattern`, `patternProperties`) are matched by RE2 (`linearPattern`), in time linear
 *   in the argument, never by a backtracking `RegExp`. zod builds a `RegExp` from each pattern it
 *   meets, so each one is handed to zod as a stand-in that matches nothing (`[^\s\S]`, which a
 *   backtracking engine also rejects in linear time), and the stand-ins are then swapped for the
 *   RE2 patterns in the checks zod made. Should a zod release build a check this swap cannot
 *   reach, that check refuses every value rather than backtrack: it fails closed, and the tests of
 *   this file say so.
 * - A cycle of references that never descends into a property or an item (`A: {$ref: B}`,
 *   `B: {$ref: A}`) would recurse forever on the first argument checked; it is refused here, with
 *   the JSON pointers of the cycle.
 *
 * Both refusals are TypeErrors whose message starts with the JSON pointer of the keyword (e.g.
 * `/properties/id/pattern: ...`); the caller adds the toolkit and the tool.
 */
import { z } from "zod";
import { type LinearPattern, linearPattern, PatternError } from "./patterns.js";
import type { JsonSchema } from "./schemas.js";

/** Keywords whose value maps names to schemas, holds a list of schemas, or is one schema. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const SCHEMA_ONE = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "contentSchema",
]);
/** Keywords that apply their schemas to the value itself rather than to a part of it. */
const IN_PLACE = ["allOf", "anyOf", "oneOf", "not", "if", "then", "else"];

/** An annotation zod hands to the registry, marking the schemas whose checks hold stand-ins. */
const MARK = "x-tools-proxy-linear-patterns";

/**
 * Refuses what no validator of `schema` could check: a pattern RE2 cannot express, or a reference
 * cycle. Throws a TypeError naming the keyword's JSON pointer. It compiles the patterns (kept in
 * `linearPattern`'s cache) but builds no zod schema, so it is cheap enough for every tool at load.
 */
export function assertCheckable(schema: JsonSchema): void {
  refuseReferenceCycles(schema);
  for (const [node, pointer] of schemaNodes(schema)) {
    if (typeof node.pattern === "string") compiled(node.pattern, `${pointer}/pattern`);
    if (!isRecord(node.patternProperties)) continue;
    for (const key of Object.keys(node.patternProperties)) compiled(key, `${pointer}/patternProperties/${escapeSegment(key)}`);
  }
}

/**
 * Builds the validator of `schema`. Throws a TypeError naming the JSON pointer of a pattern RE2
 * cannot express or of a reference cycle; any other error is zod's, about a keyword it does not
 * support.
 */
export function zodValidatorOf(schema: JsonSchema): z.ZodType {
  refuseReferenceCycles(schema);
  const patterns = new Map<string, LinearPattern>();
  const prepared = withStandIns(schema, "", patterns) as JsonSchema;
  const marked: z.ZodType[] = [];
  // The metadata zod would file in its global registry (titles, x- annotations) is not needed
  // after this: the registry only collects the schemas the stand-ins are in.
  const registry = z.registry<Record<string, unknown>>();
  registry.add = ((zodSchema: z.ZodType, meta: Record<string, unknown>) => {
    if (meta[MARK] === true) marked.push(zodSchema);
    return registry;
  }) as typeof registry.add;
  const validator = z.fromJSONSchema(prepared as Parameters<typeof z.fromJSONSchema>[0], { registry });
  const seen = new Set<object>();
  for (const zodSchema of [validator, ...marked]) swapStandIns(zodSchema, patterns, seen);
  return validator;
}

/** A copy of `schema` with each pattern replaced by a stand-in, kept in `patterns` by the stand-in's source. */
function withStandIns(schema: unknown, pointer: string, patterns: Map<string, LinearPattern>): unknown {
  if (!isRecord(schema)) return schema;
  const copy: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    const at = `${pointer}/${escapeSegment(keyword)}`;
    if (keyword === "pattern" && typeof value === "string") {
      copy[keyword] = standIn(value, at, patterns);
      copy[MARK] = true;
    } else if (keyword === "patternProperties" && isRecord(value)) {
      copy[keyword] = Object.fromEntries(
        Object.entries(value).map(([key, sub]) => [
          standIn(key, `${at}/${escapeSegment(key)}`, patterns),
          withStandIns(sub, `${at}/${escapeSegment(key)}`, patterns),
        ]),
      );
      copy[MARK] = true;
    } else if (SCHEMA_MAPS.has(keyword) && isRecord(value)) {
      copy[keyword] = Object.fromEntries(
        Object.entries(value).map(([key, sub]) => [key, withStandIns(sub, `${at}/${escapeSegment(key)}`, patterns)]),
      );
    } else if ((SCHEMA_LISTS.has(keyword) || keyword === "items") && Array.isArray(value)) {
      copy[keyword] = value.map((sub, i) => withStandIns(sub, `${at}/${i}`, patterns));
    } else if (SCHEMA_ONE.has(keyword)) {
      copy[keyword] = withStandIns(value, at, patterns);
    } else {
      copy[keyword] = value;
    }
  }
  return closedPatternProperties(copy);
}

/**
 * `additionalProperties: false` beside `patternProperties` as the equal `propertyNames` rule: zod
 * keeps the regular expressions of the former in a closure no swap can reach, and builds the
 * latter from schemas it files in the registry.
 */
function closedPatternProperties(schema: Record<string, unknown>): Record<string, unknown> {
  const patternKeys = isRecord(schema.patternProperties) ? Object.keys(schema.patternProperties) : [];
  if (schema.additionalProperties !== false || patternKeys.length === 0) return schema;
  const { additionalProperties: _closed, ...rest } = schema;
  const named = isRecord(schema.properties) ? Object.keys(schema.properties) : [];
  const allowed = {
    anyOf: [...(named.length > 0 ? [{ enum: named }] : []), ...patternKeys.map((pattern) => ({ type: "string", pattern, [MARK]: true }))],
  };
  return { ...rest, propertyNames: rest.propertyNames === undefined ? allowed : { allOf: [rest.propertyNames, allowed] } };
}

function standIn(source: string, pointer: string, patterns: Map<string, LinearPattern>): string {
  const pattern = compiled(source, pointer);
  const key = `[^\\s\\S]linear-pattern-${patterns.size}`;
  patterns.set(key, pattern);
  return key;
}

/** `source` compiled by RE2; a pattern it cannot express is a TypeError naming `pointer`. */
function compiled(source: string, pointer: string): LinearPattern {
  try {
    return linearPattern(source);
  } catch (error) {
    if (error instanceof PatternError) throw new TypeError(`${pointer}: ${error.message}`);
    throw error;
  }
}

/** Replaces, in every regex check under `schema`, a stand-in by its RE2 pattern. */
function swapStandIns(schema: unknown, patterns: Map<string, LinearPattern>, seen: Set<object>): void {
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object" || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    const internals = (node as { _zod?: { def?: Record<string, unknown> } })._zod;
    if (internals?.def === undefined) {
      // An object's shape, whose values are schemas.
      stack.push(...Object.values(node));
      continue;
    }
    const def = internals.def;
    if (def.check === "string_format" && def.format === "regex" && def.pattern instanceof RegExp) {
      const linear = patterns.get(def.pattern.source);
      if (linear) def.pattern = linear;
      continue;
    }
    for (const [key, value] of Object.entries(def)) if (key !== "getter" && typeof value === "object") stack.push(value);
  }
}

/**
 * The first cycle of references and in-place keywords (`allOf`, `anyOf`, `oneOf`, `not`,
 * `if`/`then`/`else`) in `root` that never descends into a property or an item, as the JSON
 * pointers of its keywords (`["/$defs/A/$ref", "/$defs/B/$ref"]`); undefined when there is none.
 * Checking any value against such a cycle would recurse forever.
 */
export function referenceCycle(root: JsonSchema): string[] | undefined {
  const pointers = new Map<object, string>();
  const nodes = schemaNodes(root);
  for (const [node, pointer] of nodes) if (!pointers.has(node)) pointers.set(node, pointer);
  const done = new Set<object>();
  /** The schemas being visited, each with the pointer of the keyword that led to it. */
  const trail: Array<{ node: object; via: string }> = [];
  const visit = (node: unknown, via: string): string[] | undefined => {
    if (!isRecord(node) || done.has(node)) return undefined;
    const open = trail.findIndex((step) => step.node === node);
    if (open !== -1) {
      const steps = [...trail.slice(open + 1).map((step) => step.via), via];
      // `/allOf/0` then `/allOf/0/$ref` is one step: keep the reference.
      return steps.filter((step, i) => !steps[i + 1]?.startsWith(`${step}/`));
    }
    trail.push({ node, via });
    const at = pointers.get(node) ?? "";
    let cycle = typeof node.$ref === "string" ? visit(resolvePointer(root, node.$ref), `${at}/$ref`) : undefined;
    for (const keyword of IN_PLACE) {
      const value = node[keyword];
      const subs = Array.isArray(value)
        ? value.map((sub, i): [unknown, string] => [sub, `${at}/${keyword}/${i}`])
        : [[value, `${at}/${keyword}`]];
      for (const [sub, pointer] of subs as Array<[unknown, string]>) cycle ??= visit(sub, pointer);
    }
    trail.pop();
    done.add(node);
    return cycle;
  };
  for (const [node, pointer] of nodes) {
    const cycle = visit(node, pointer);
    if (cycle) return cycle;
  }
  return undefined;
}

function refuseReferenceCycles(root: JsonSchema): void {
  const cycle = referenceCycle(root);
  if (!cycle) return;
  throw new TypeError(
    `${cycle[0]}: the keywords ${cycle.join(" → ")} lead back to where they start without describing any property ` +
      "or item, so no value could be checked against them (a $ref cycle): point one of the references at a schema",
  );
}

/** Every schema object in `root` with its JSON pointer. */
function schemaNodes(root: unknown): Array<[Record<string, unknown>, string]> {
  const nodes: Array<[Record<string, unknown>, string]> = [];
  const stack: Array<[unknown, string]> = [[root, ""]];
  while (stack.length > 0) {
    const [node, pointer] = stack.pop()!;
    if (!isRecord(node)) continue;
    nodes.push([node, pointer]);
    for (const [keyword, value] of Object.entries(node)) {
      const at = `${pointer}/${escapeSegment(keyword)}`;
      if (SCHEMA_MAPS.has(keyword) && isRecord(value)) {
        for (const [key, sub] of Object.entries(value)) stack.push([sub, `${at}/${escapeSegment(key)}`]);
      } else if ((SCHEMA_LISTS.has(keyword) || keyword === "items") && Array.isArray(value)) {
        for (const [i, sub] of value.entries()) stack.push([sub, `${at}/${i}`]);
      } else if (SCHEMA_ONE.has(keyword)) stack.push([value, at]);
    }
  }
  return nodes;
}

/** The value a local reference (`#/$defs/A`) points at in `root`, or undefined. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let value: unknown = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    value = isRecord(value) || Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

function escapeSegment(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
