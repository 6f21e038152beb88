/**
 * Arguments for a generated tool, made from its input schema alone: every required property, and
 * the first optional one of a simple type, each a value its schema accepts.
 */
type Schema = Record<string, any>;

function resolve(schema: Schema | undefined, root: Schema): Schema {
  let current = schema ?? {};
  for (let i = 0; i < 20 && typeof current.$ref === "string"; i++) {
    current = current.$ref.startsWith("#/$defs/") ? (root.$defs?.[current.$ref.slice(8)] ?? {}) : {};
  }
  const branch = current.allOf?.[0] ?? current.oneOf?.[0] ?? current.anyOf?.find((s: Schema) => s.type !== "null") ?? current.anyOf?.[0];
  return branch && !current.type && !current.properties ? resolve(branch, root) : current;
}

/** Stands for a staged file: the test uploads one and puts its key in its place. */
export const STAGED = "<staged file>";

/** Strings that fit common patterns: ids of digits, Twilio's SIDs, UUIDs, dates, codes. */
const CANDIDATES = [
  "12345",
  "AC0123456789abcdef0123456789abcdef",
  "123e4567-e89b-42d3-a456-426614174000",
  "2026-01-02",
  "2026-01-02T03:04:05Z",
  "abc",
  "ABC",
  "a1",
  "us",
  "+15551234567",
];

/**
 * The shortest string a simple pattern (literals, classes, `{n}`, `{n,m}`, `+`, `*`, `?`) matches
 * (`^PN[0-9a-fA-F]{32}$` → `PN000…`), or undefined for any other pattern.
 */
function simplest(pattern: string): string | undefined {
  let out = "";
  const tokens = pattern.replace(/^\^|\$$/g, "").matchAll(/(\[[^\]]+\]|\\.|[^[\\])(\{(\d+)(?:,\d*)?\}|[+*?])?/g);
  for (const [, atom, quantifier, count] of tokens) {
    if (/^[()|.^$]$/.test(atom!)) return undefined;
    const char = atom!.startsWith("[")
      ? atom![1] === "^"
        ? undefined
        : atom![1]
      : atom!.startsWith("\\")
        ? (({ d: "0", w: "a", s: " " } as Record<string, string>)[atom![1]!] ?? atom![1])
        : atom;
    if (char === undefined) return undefined;
    const times = count !== undefined ? Number(count) : quantifier === "+" ? 1 : quantifier ? 0 : 1;
    out += char.repeat(times);
  }
  return out;
}

/** A value `schema` accepts, named after `name` where it is a string. */
export function sampleValue(schema: Schema | undefined, root: Schema, name: string, depth = 0): unknown {
  const s = resolve(schema, root);
  if (s.const !== undefined) return s.const;
  if (s.format === "tools-proxy-staging-key") return STAGED;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum.find((value: unknown) => value !== null) ?? s.enum[0];
  if (s.default !== undefined && typeof s.default !== "object") return s.default;
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
  if (type === "integer" || type === "number") return Math.max(typeof s.minimum === "number" ? s.minimum : 0, 1);
  if (type === "boolean") return true;
  if (type === "array") {
    const item = sampleValue(s.items, root, name, depth + 1);
    return depth > 3 ? [] : Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => item);
  }
  if (type === "object" || s.properties) {
    if (depth > 3) return {};
    const value: Record<string, unknown> = {};
    for (const key of s.required ?? []) value[key] = sampleValue(s.properties?.[key], root, key, depth + 1);
    return value;
  }
  if (typeof s.pattern === "string") {
    const pattern = new RegExp(s.pattern);
    const fits = [simplest(s.pattern), ...CANDIDATES].find((candidate) => candidate !== undefined && pattern.test(candidate));
    if (fits) return fits;
  }
  if (s.format === "uuid") return "123e4567-e89b-42d3-a456-426614174000";
  if (s.format === "date-time") return "2026-01-02T03:04:05Z";
  if (s.format === "date") return "2026-01-02";
  if (s.format === "email") return "someone@example.com";
  if (s.format === "uri" || s.format === "url") return "https://example.com/page";
  const text = `v-${name.replace(/[^A-Za-z0-9]/g, "").slice(0, 12) || "x"}`;
  return typeof s.minLength === "number" && text.length < s.minLength ? text.padEnd(s.minLength, "x") : text;
}

/** The arguments a sample call sends: every required property, and the first optional simple one. */
export function sampleArguments(inputParameters: Schema): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const properties: Record<string, Schema> = inputParameters.properties ?? {};
  for (const name of inputParameters.required ?? []) args[name] = sampleValue(properties[name], inputParameters, name);
  const optional = Object.keys(properties).find((name) => {
    const type = resolve(properties[name], inputParameters).type;
    return (
      !(name in args) && (type === "string" || type === "integer" || type === "boolean") && !resolve(properties[name], inputParameters).enum
    );
  });
  if (optional) args[optional] = sampleValue(properties[optional], inputParameters, optional);
  return args;
}
