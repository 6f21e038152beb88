const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;

/** `text` with each `{name}` replaced by `values[name]` (an unknown name by nothing). */
export function fillTemplate(text: string, values: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (_, name: string) => (Object.hasOwn(values, name) ? values[name]! : ""));
}

/** A JSON template with every string filled (`fillTemplate`), keys kept as they are. */
export function fillJson(template: unknown, values: Record<string, string>): unknown {
  if (typeof template === "string") return fillTemplate(template, values);
  if (Array.isArray(template)) return template.map((item) => fillJson(item, values));
  if (template !== null && typeof template === "object") {
    return Object.fromEntries(Object.entries(template).map(([key, value]) => [key, fillJson(value, values)]));
  }
  return template;
}
