import { STAGED_FILE_FORMAT, type JsonSchema } from "../toolkits/define.js";

/**
 * The staging keys in `args` at positions the schema marks as staged files, with their paths
 * (e.g. `attachments.0`). Walks `properties` and `items` of the JSON Schema alongside the value.
 */
export function findStagedFileKeys(schema: JsonSchema, args: unknown, path = ""): Array<{ path: string; key: string }> {
  if (schema.format === STAGED_FILE_FORMAT) return typeof args === "string" ? [{ path, key: args }] : [];
  const found: Array<{ path: string; key: string }> = [];
  const join = (name: string) => (path ? `${path}.${name}` : name);
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties && args && typeof args === "object" && !Array.isArray(args)) {
    for (const [name, sub] of Object.entries(properties)) {
      if (name in args) found.push(...findStagedFileKeys(sub, (args as Record<string, unknown>)[name], join(name)));
    }
  }
  const items = schema.items as JsonSchema | undefined;
  if (items && typeof items === "object" && Array.isArray(args)) {
    args.forEach((item, index) => found.push(...findStagedFileKeys(items, item, join(String(index)))));
  }
  return found;
}
