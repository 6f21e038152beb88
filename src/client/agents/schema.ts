/**
 * The JSON Schemas of tools as each framework takes them. A tool's `inputParameters` is JSON
 * Schema draft 2020-12 with an object at its root (the server builds it from the tool's zod
 * input, or a JSON toolkit gives it).
 */

/** A JSON Schema object. */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * The schema as every framework takes it: a copy without `$schema` and `$id` (Gemini and some
 * OpenAI-compatible servers refuse them; they say nothing about the arguments).
 */
export function plainSchema(schema: Record<string, unknown>): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = structuredClone(schema);
  return rest;
}

/**
 * Keywords OpenAI's strict mode cannot represent, and which shape the value rather than merely
 * narrow it: a schema that uses one stays non-strict. The list is the one the `openai` package's
 * own `toStrictJsonSchema` (openai/lib/transform) refuses.
 */
const SHAPING = [
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "patternProperties",
  "propertyNames",
  "prefixItems",
  "additionalItems",
  "contains",
  "dependentSchemas",
  "dependentRequired",
  "dependencies",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
  "$anchor",
  "$dynamicAnchor",
  "$dynamicRef",
  "$recursiveAnchor",
  "$recursiveRef",
];
/**
 * Keywords strict mode refuses that only narrow the value: they are dropped and said in the
 * description instead. The server still checks them, and a call that breaks one fails with a
 * message the model can act on.
 */
const NARROWING = ["uniqueItems", "minProperties", "maxProperties", "minContains", "maxContains", "contentEncoding", "contentMediaType"];

class NotStrict extends Error {}

/**
 * The schema in OpenAI's strict form, or null when it has none with the same meaning. Strict
 * mode needs every property listed in `required` and `additionalProperties: false` on every
 * object: an optional property becomes required and nullable (`type: ["string", "null"]`, or an
 * `anyOf` with `{ type: "null" }`), and `dropAbsentNulls` removes those nulls again before the
 * call. `oneOf` becomes `anyOf`. Null when the root is not an object, an object is open (a map,
 * `additionalProperties` other than false, no `properties`), a schema has no type, or it uses a
 * keyword that shapes the value (`allOf`, `not`, `if`, `patternProperties`, tuples...).
 */
export function toStrictSchema(schema: Record<string, unknown>): JsonSchema | null {
  try {
    const strict = strictify(plainSchema(schema), "root");
    if (strict.type !== "object" || strict.anyOf !== undefined) return null;
    return strict;
  } catch (error) {
    if (error instanceof NotStrict) return null;
    throw error;
  }
}

function strictify(input: unknown, at: "root" | "node" = "node"): JsonSchema {
  if (!isObject(input)) throw new NotStrict();
  const node: JsonSchema = { ...input };
  for (const keyword of SHAPING) if (keyword in node) throw new NotStrict();
  const notes: string[] = [];
  for (const keyword of NARROWING) {
    if (keyword in node) {
      notes.push(`${keyword}: ${JSON.stringify(node[keyword])}`);
      delete node[keyword];
    }
  }
  if (notes.length > 0) node.description = [node.description, `(${notes.join(", ")})`].filter(Boolean).join(" ");
  if (Array.isArray(node.oneOf)) {
    node.anyOf = [...(Array.isArray(node.anyOf) ? node.anyOf : []), ...node.oneOf];
    delete node.oneOf;
  }
  for (const key of ["$defs", "definitions"]) {
    if (isObject(node[key])) node[key] = Object.fromEntries(Object.entries(node[key]).map(([k, v]) => [k, strictify(v)]));
  }
  if (typeof node.$ref === "string") {
    if (!node.$ref.startsWith("#/")) throw new NotStrict();
    return node;
  }
  if (Array.isArray(node.anyOf)) node.anyOf = node.anyOf.map((branch) => strictify(branch));
  const types = typesOf(node);
  if (types.length === 0 && node.anyOf === undefined && node.enum === undefined && node.const === undefined) throw new NotStrict();
  if (types.includes("object") || (at === "root" && "properties" in node)) {
    if (!isObject(node.properties)) throw new NotStrict();
    if (node.additionalProperties !== undefined && node.additionalProperties !== false) throw new NotStrict();
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const properties = Object.fromEntries(
      Object.entries(node.properties).map(([key, value]) => {
        const strict = strictify(value);
        return [key, required.has(key) ? strict : nullable(strict)];
      }),
    );
    node.properties = properties;
    node.required = Object.keys(properties);
    node.additionalProperties = false;
  }
  if (types.includes("array")) {
    if (!isObject(node.items)) throw new NotStrict();
    node.items = strictify(node.items);
  }
  return node;
}

/** `schema` accepting null too. */
function nullable(schema: JsonSchema): JsonSchema {
  if (allowsNull(schema)) return schema;
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  if (schema.type !== undefined && schema.const === undefined && schema.$ref === undefined) {
    const widened: JsonSchema = { ...schema, type: [...typesOf(schema), "null"] };
    if (Array.isArray(schema.enum)) widened.enum = [...schema.enum, null];
    return widened;
  }
  const { description, ...rest } = schema;
  return { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: "null" }] };
}

/**
 * `value` without the nulls a strict schema let the model send for optional properties: a null
 * is removed where `schema` (the tool's own schema) does not require the property and does not
 * accept null for it. Nested objects and arrays are cleaned the same way; anything else is kept.
 * Returns a new value; `value` is not changed.
 */
export function dropAbsentNulls(schema: Record<string, unknown>, value: unknown): unknown {
  return clean(schema, value, schema);
}

function clean(schema: unknown, value: unknown, root: Record<string, unknown>, depth = 0): unknown {
  if (depth > 32 || !isObject(schema)) return value;
  const resolved = resolveRef(schema, root);
  if (Array.isArray(value)) return value.map((item) => clean(resolved.items, item, root, depth + 1));
  if (!isObject(value)) return value;
  const branch = Array.isArray(resolved.anyOf ?? resolved.oneOf)
    ? ((resolved.anyOf ?? resolved.oneOf) as unknown[])
        .map((b) => (isObject(b) ? resolveRef(b, root) : {}))
        .find((b) => isObject(b.properties))
    : resolved;
  const properties = branch && isObject(branch.properties) ? branch.properties : null;
  if (!properties) return value;
  const required = new Set(Array.isArray(branch!.required) ? branch!.required : []);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = properties[key];
    if (item === null && !required.has(key) && isObject(property) && !allowsNull(resolveRef(property, root))) continue;
    out[key] = clean(property, item, root, depth + 1);
  }
  return out;
}

function resolveRef(schema: Record<string, unknown>, root: Record<string, unknown>): Record<string, unknown> {
  let current = schema;
  for (let hops = 0; typeof current.$ref === "string" && current.$ref.startsWith("#/") && hops < 8; hops++) {
    let target: unknown = root;
    for (const part of current.$ref.slice(2).split("/")) {
      target = isObject(target) ? target[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
    }
    if (!isObject(target)) break;
    current = target;
  }
  return current;
}

function allowsNull(schema: Record<string, unknown>): boolean {
  if (schema.const === null) return true;
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  if (typesOf(schema).includes("null")) return true;
  const union = schema.anyOf ?? schema.oneOf;
  return Array.isArray(union) && union.some((branch) => isObject(branch) && allowsNull(branch));
}

function typesOf(schema: Record<string, unknown>): string[] {
  if (typeof schema.type === "string") return [schema.type];
  return Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === "string") : [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
