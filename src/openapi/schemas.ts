/**
 * Copying the document's schemas into a tool's `inputParameters`: a `$ref` stays a reference,
 * rewritten to `#/$defs/<Name>`, and each schema it reaches is copied once into the tool's own
 * `$defs`. Recursive schemas stay recursive references (never cyclic objects) and a reference
 * bomb costs what its text costs, not what its expansion would.
 *
 * The copy keeps the keywords of JSON Schema 2020-12 with a value of the right shape and drops
 * the rest (OpenAPI's `discriminator`, `xml`, `example`, `x-*` extensions, a `required: true`
 * on a property, a pattern that is no valid regular expression), so that every result compiles.
 */

import { linearPattern } from "../toolkits/patterns.js";
import { OpenApiImportError } from "./errors.js";
import type { ImportLimits } from "./limits.js";
import type { Document } from "./load.js";
import { isRecord, trimText, unescapePointer, unique } from "./text.js";

export type Schema = Record<string, unknown> | boolean;

const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
const SCHEMA = new Set([
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
  "contentSchema",
]);
const SCHEMA_MAP = new Set(["properties", "patternProperties", "dependentSchemas"]);
const SCHEMA_LIST = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const TEXT = new Set(["title", "format", "contentMediaType", "contentEncoding"]);
const COUNT = new Set(["maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties", "maxContains", "minContains"]);
const NUMBER = new Set(["maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"]);
const FLAG = new Set(["uniqueItems", "deprecated", "readOnly", "writeOnly"]);
const VALUE = new Set(["const", "default"]);

/** Longest description kept on a schema. */
const DESCRIPTION_MAX = 1000;

/** Counts the schema values written over a whole import, against `limits.maxSchemaNodes`. */
export class SchemaBudget {
  private nodes = 0;

  constructor(private readonly limits: ImportLimits) {}

  /** Schema values counted so far. */
  get spent(): number {
    return this.nodes;
  }

  spend(count: number): void {
    this.nodes += count;
    if (this.nodes > this.limits.maxSchemaNodes) {
      throw new OpenApiImportError(
        "too_large",
        `The toolkit would hold more than ${this.limits.maxSchemaNodes} schema values (limits.maxSchemaNodes): each tool carries the schemas it reaches. Import fewer operations (include/exclude options, maxTools) or raise the limit.`,
      );
    }
  }
}

/** A component's copy, as `ToolSchemas.definitions()` made it when every reference in it took its own name. */
interface ComponentCopy {
  schema: Schema;
  /** The references it holds, in the order the copy met them. */
  refs: string[];
  /** The schema values it counted against the budget. */
  nodes: number;
}

/**
 * The components copied so far in one import, by reference: a component reached by many tools
 * (Microsoft Graph's 11,000 operations reach the same few thousand) is copied once, and each
 * tool's `$defs` holds that same copy. It stands for the tool's own copy only where it would be
 * equal: when each reference in it gets its own name (`#/components/schemas/Pet` → `Pet`) in
 * this tool too; otherwise the tool copies the component itself.
 */
export type ComponentCopies = Map<string, ComponentCopy>;

/** The schemas of one tool: `copy` what its input uses, then `definitions()` for its `$defs`. */
export class ToolSchemas {
  private readonly names = new Map<string, string>();
  private readonly taken = new Set<string>();
  private readonly pending: string[] = [];
  /** The references met while copying a component, for its `ComponentCopy`. */
  private met: string[] | undefined;

  constructor(
    private readonly document: Document,
    private readonly budget: SchemaBudget,
    private readonly warn: (message: string) => void,
    private readonly copies: ComponentCopies = new Map(),
  ) {}

  /** A copy of `schema` with its references rewritten; the schemas they reach are queued for `definitions()`. */
  copy(schema: unknown): Schema {
    if (typeof schema === "boolean") return schema;
    if (!isRecord(schema)) return {};
    this.budget.spend(1);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(schema)) {
      const kept = this.keyword(key, value);
      if (kept !== undefined) out[key === "items" && Array.isArray(value) ? "prefixItems" : key] = kept;
    }
    return schema.nullable === true ? withNull(out) : withNullInEnum(out);
  }

  /** Every schema the copies reached, by name; undefined when none. */
  definitions(): Record<string, Schema> | undefined {
    const defs: Record<string, Schema> = {};
    for (let next = this.pending.shift(); next !== undefined; next = this.pending.shift()) {
      defs[this.names.get(next)!] = this.component(next);
    }
    return Object.keys(defs).length > 0 ? defs : undefined;
  }

  /** The copy of the component `ref` points at: the import's shared one when it is what this tool's would be. */
  private component(ref: string): Schema {
    const shared = this.copies.get(ref);
    if (shared?.refs.every((r) => this.ownName(r))) {
      for (const r of shared.refs) this.reference(r);
      this.budget.spend(shared.nodes);
      return shared.schema;
    }
    const spent = this.budget.spent;
    this.met = [];
    const schema = this.copy(this.resolve(ref));
    const refs = [...new Set(this.met)];
    this.met = undefined;
    if (!shared && refs.every((r) => this.names.get(r) === defName(r))) {
      this.copies.set(ref, { schema, refs, nodes: this.budget.spent - spent });
    }
    return schema;
  }

  /**
   * Where a pointer into the tool's input schema (`/$defs/Pet/properties/id`) is in the document
   * (`#/components/schemas/Pet/properties/id`); a pointer outside `$defs` is returned as it is.
   */
  documentPointer(pointer: string): string {
    const match = /^\/\$defs\/([^/]+)(.*)$/.exec(pointer);
    const name = match && unescapePointer(match[1]!);
    for (const [ref, given] of this.names) if (given === name) return `${ref}${match![2]}`;
    return pointer;
  }

  /** Whether `ref` has, or would get, its own name (`defName`) in this tool. */
  private ownName(ref: string): boolean {
    const name = this.names.get(ref);
    return name === undefined ? !this.taken.has(defName(ref)) : name === defName(ref);
  }

  /** The schema a reference points at, following references to references; `{}` when it leads nowhere. */
  target(schema: unknown): unknown {
    for (let hops = 0; isRecord(schema) && typeof schema.$ref === "string" && hops < 32; hops++) {
      schema = this.resolve(schema.$ref);
    }
    return schema;
  }

  private keyword(key: string, value: unknown): unknown {
    if (key === "$ref") return typeof value === "string" ? this.reference(value) : undefined;
    if (key === "type") return type(value);
    if (key === "items") return Array.isArray(value) ? this.list(value) : this.copy(value);
    if (SCHEMA.has(key)) return typeof value === "boolean" || isRecord(value) ? this.copy(value) : undefined;
    if (SCHEMA_MAP.has(key)) return this.map(key, value);
    if (SCHEMA_LIST.has(key)) return this.list(value);
    if (key === "description") return typeof value === "string" ? trimText(value, DESCRIPTION_MAX) : undefined;
    if (TEXT.has(key)) return typeof value === "string" ? value : undefined;
    if (key === "pattern") return typeof value === "string" && this.linear(value) ? value : undefined;
    if (COUNT.has(key)) return Number.isInteger(value) && (value as number) >= 0 ? value : undefined;
    if (NUMBER.has(key)) return typeof value === "number" && Number.isFinite(value) ? value : undefined;
    if (key === "multipleOf") return typeof value === "number" && value > 0 ? value : undefined;
    if (FLAG.has(key)) return typeof value === "boolean" ? value : undefined;
    if (key === "required") return strings(value);
    if (key === "enum") return Array.isArray(value) ? this.value(value) : undefined;
    if (VALUE.has(key)) return this.value(value);
    if (key === "dependentRequired") return isRecord(value) ? dependentRequired(value) : undefined;
    return undefined;
  }

  private map(key: string, value: unknown): Record<string, Schema> | undefined {
    if (!isRecord(value)) return undefined;
    const out: Record<string, Schema> = {};
    for (const [name, schema] of Object.entries(value)) {
      if (key === "patternProperties" && !this.linear(name)) continue;
      out[name] = this.copy(schema);
    }
    return out;
  }

  /**
   * Whether RE2 can match the pattern (see `linearPattern`), as the toolkit's validator will; one
   * it cannot is left out with a warning, so the argument goes unchecked by it rather than the
   * whole toolkit failing to load. A pattern that is no regular expression at all is left out
   * quietly, as before.
   */
  private linear(pattern: string): boolean {
    try {
      linearPattern(pattern);
      return true;
    } catch (error) {
      if (isPattern(pattern)) this.warn(`${(error as Error).message}; it is left out, so arguments are not checked against it.`);
      return false;
    }
  }

  private list(value: unknown): Schema[] | undefined {
    return Array.isArray(value) && value.length > 0 ? value.map((schema) => this.copy(schema)) : undefined;
  }

  /** Literal values (enum, const, default) are shared, not copied: they count by their size. */
  private value(value: unknown): unknown {
    this.budget.spend(Array.isArray(value) ? value.length + 1 : 1);
    return value;
  }

  private reference(ref: string): string | undefined {
    this.met?.push(ref);
    if (!ref.startsWith("#/")) {
      this.warn(`the reference ${ref} points outside the document; it accepts any value.`);
      return undefined;
    }
    let name = this.names.get(ref);
    if (name === undefined) {
      name = unique(defName(ref), this.taken, 128);
      this.names.set(ref, name);
      this.pending.push(ref);
    }
    return `#/$defs/${name}`;
  }

  private resolve(ref: string): unknown {
    let value: unknown = this.document;
    for (const raw of ref.slice(2).split("/")) {
      const segment = unescapePointer(decode(raw));
      value = isRecord(value) || Array.isArray(value) ? (value as Record<string, unknown>)[segment] : undefined;
      if (value === undefined) {
        this.warn(`the reference ${ref} points at nothing; it accepts any value.`);
        return {};
      }
    }
    return value;
  }
}

/** `#/components/schemas/Pet` → `Pet`; any other pointer → its segments joined by `_`. */
function defName(ref: string): string {
  const path = ref.replace(/^#\/components\/schemas\//, "").replace(/^#\//, "");
  return (
    decode(path)
      .replace(/[^A-Za-z0-9_.-]+/g, "_")
      .replace(/^_+|_+$/g, "") || "schema"
  );
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function type(value: unknown): unknown {
  const names = (Array.isArray(value) ? value : [value]).map((name) => (name === "file" ? "string" : name));
  const valid = [...new Set(names.filter((name): name is string => typeof name === "string" && TYPES.has(name)))];
  if (valid.length === 0) return undefined;
  return valid.length === 1 ? valid[0] : valid;
}

/**
 * OpenAPI 3.0's `nullable: true` where the upgrade to 3.1 left it (a schema without `type`: a
 * `oneOf`, an `allOf`, a `$ref`), read as most tools read it: null is allowed too. GitHub's
 * `issues/update` says "use `null` to remove the current milestone" of such a `milestone`.
 */
function withNull(schema: Record<string, unknown>): Record<string, unknown> {
  if (schema.type !== undefined) return withNullInEnum({ ...schema, type: [...new Set([schema.type, "null"].flat())] });
  const { description, ...rest } = schema;
  return { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: "null" }] };
}

/** A schema whose `type` allows null keeps null among its `enum` values (the 3.0 upgrade turns `nullable` into the type only). */
function withNullInEnum(schema: Record<string, unknown>): Record<string, unknown> {
  const nullType = Array.isArray(schema.type) ? schema.type.includes("null") : schema.type === "null";
  if (!nullType || !Array.isArray(schema.enum) || schema.enum.includes(null)) return schema;
  return { ...schema, enum: [...schema.enum, null] };
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? [...new Set(value.filter((item): item is string => typeof item === "string"))] : undefined;
}

function dependentRequired(value: Record<string, unknown>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(value).flatMap(([key, list]) => (Array.isArray(list) ? [[key, strings(list)!]] : [])));
}

/** Whether a JSON Schema validator can compile the pattern (as a Unicode regular expression). */
function isPattern(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

/** A binary value: OpenAPI 3.0's `format: binary`, or 3.1's `contentMediaType` without an encoding. */
export function isBinary(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  if (schema.type !== undefined && schema.type !== "string") return false;
  return schema.format === "binary" || (typeof schema.contentMediaType === "string" && schema.contentEncoding === undefined);
}
