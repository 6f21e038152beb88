import { STAGING_KEY_PATTERN } from "../api/staged-file.js";
import { type JsonSchema, STAGED_FILE_FORMAT, type StagedFile } from "../toolkits/define.js";

/** Opens the staged file `key` found at `path` (e.g. `attachments.0`), or throws. */
export type OpenStagedFile = (key: string, path: string) => Promise<StagedFile>;

/**
 * `args` with every staging key at a position the schema marks as a staged file
 * (`format: "tools-proxy-staging-key"`, as `stagedFile()` makes) replaced by the file `open`
 * returns. Walks `properties`, `items`, and `anyOf`/`oneOf` branches (an optional or nullable
 * file) of the JSON Schema alongside the value; other values are returned as they are. `args` is
 * not modified. Rejects with the first error of `open`.
 */
export async function resolveStagedFiles(schema: JsonSchema, args: unknown, open: OpenStagedFile, path = ""): Promise<unknown> {
  if (isStagedFile(schema)) return typeof args === "string" ? open(args, path) : args;
  const join = (name: string) => (path ? `${path}.${name}` : name);

  const items = schema.items as JsonSchema | undefined;
  if (items && typeof items === "object" && Array.isArray(args)) {
    const out: unknown[] = [];
    for (const [index, item] of args.entries()) out.push(await resolveStagedFiles(items, item, open, join(String(index))));
    return out;
  }
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties && isRecord(args)) {
    const out: Record<string, unknown> = { ...args };
    for (const [name, sub] of Object.entries(properties)) {
      if (name in args) out[name] = await resolveStagedFiles(sub, args[name], open, join(name));
    }
    return out;
  }
  const branches = [...((schema.anyOf as JsonSchema[] | undefined) ?? []), ...((schema.oneOf as JsonSchema[] | undefined) ?? [])];
  // The branch of the value's kind: a file (a string), an object, or an array; null matches none.
  const branch = branches.find((b) =>
    typeof args === "string"
      ? isStagedFile(b) && STAGING_KEY_PATTERN.test(args)
      : Array.isArray(args)
        ? typeof b.items === "object"
        : isRecord(args) && typeof b.properties === "object",
  );
  return branch ? resolveStagedFiles(branch, args, open, path) : args;
}

function isStagedFile(schema: JsonSchema): boolean {
  return schema.format === STAGED_FILE_FORMAT;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
