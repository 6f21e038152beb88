/** Names and text for the toolkit: slugs, argument names, trimmed descriptions. */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** One segment of a JSON pointer (RFC 6901). */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** `listPetsByOwner`, `repos/get-content` → `list_pets_by_owner`, `repos_get_content`. */
export function snakeCase(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toLowerCase();
}

/** The first `max` characters of a slug, not ending with "_" or "-". */
export function cut(slug: string, max: number): string {
  return slug.slice(0, max).replace(/[_-]+$/, "");
}

/** An argument name agents accept (`^[A-Za-z0-9_.-]{1,64}$`): `filter[status]` → `filter_status`. */
export function argumentName(name: string): string {
  return cut(name.replace(/[^A-Za-z0-9_.-]+/g, "_").replace(/^_+|_+$/g, ""), 64) || "value";
}

/** `name`, else `name_2`, `name_3`... (at most `max` characters), the first not in `taken`; records it. */
export function unique(name: string, taken: Set<string>, max = 64): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = `${cut(name, max - String(n).length - 1)}_${n}`;
  taken.add(candidate);
  return candidate;
}

/**
 * Text trimmed to `max` characters at a word boundary, with an ellipsis when cut; whitespace
 * runs inside a line are collapsed, paragraphs kept.
 */
export function trimText(text: string, max: number): string {
  const clean = text
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t]+/g, " ")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  if (clean.length <= max) return clean;
  const head = clean.slice(0, max - 1);
  const space = head.search(/\s\S*$/);
  return `${(space > max / 2 ? head.slice(0, space) : head).trimEnd()}…`;
}

/**
 * `value` with every `${NAME}` in its strings written `$${NAME}`: a JSON toolkit replaces
 * `${NAME}` by an environment variable when it is loaded, and the document's own text (an AWS
 * description quoting `${variableName}`) must stay as it is.
 */
export function escapeEnvReferences<T>(value: T, done = new Map<object, unknown>()): T {
  if (typeof value === "string") return (value.includes("${") ? value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, "$$$${$1}") : value) as T;
  if (!Array.isArray(value) && !isRecord(value)) return value;
  // An object reached again (the tools share the copies of components) is escaped once.
  if (done.has(value)) return done.get(value) as T;
  const entries = Object.entries(value);
  const escaped = entries.map(([key, item]) => [key, escapeEnvReferences(item, done)] as const);
  const changed = escaped.some(([, item], index) => item !== entries[index]![1]);
  const result = !changed ? value : Array.isArray(value) ? escaped.map(([, item]) => item) : Object.fromEntries(escaped);
  done.set(value, result);
  return result as T;
}
