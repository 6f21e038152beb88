/**
 * The files of a compiled collection, as `tools-proxy import openapi --out DIR` writes them and
 * `serve --toolkits DIR` reads them:
 *
 * - `DIR/collection.json`: the index, read whole at start: each toolkit's JSON form without its
 *   tools, the file of its tools, and one row per tool (its summary and where its JSON is).
 * - `DIR/tools/<slug>.jsonl`: the toolkit's tools in their JSON form, one per line, each read
 *   alone (a byte range) when the tool is first used.
 */

/** The name of the index file in a collection's directory. */
export const COLLECTION_INDEX = "collection.json";
/** What `format` says in an index this release reads. */
export const COLLECTION_FORMAT = "tools-proxy-collection";
export const COLLECTION_VERSION = 1;

/**
 * One tool in the index: slug, name, description, flags (see `FLAGS`), and the byte offset and
 * length of its line in the toolkit's tools file. Arrays, not objects: a hundred thousand of them
 * are parsed at start.
 */
export type ToolRow = [slug: string, name: string, description: string, flags: number, offset: number, length: number];

/** Bits of `ToolRow`'s flags: the read-only and destructive hints (each true or false when known) and the default set. */
export const FLAGS = { readOnly: 1, notReadOnly: 2, destructive: 4, notDestructive: 8, default: 16 } as const;

/** One toolkit in the index. */
export interface CollectionEntry {
  /** The toolkit's JSON form (the format of `serve --toolkits` files) without `tools`. */
  toolkit: Record<string, unknown>;
  /** Its tools file, relative to the collection's directory. */
  file: string;
  tools: ToolRow[];
}

/** The index file. */
export interface CollectionIndex {
  format: typeof COLLECTION_FORMAT;
  version: typeof COLLECTION_VERSION;
  toolkits: CollectionEntry[];
}

/** The flags of a tool's JSON form (its `annotations` and `default`). */
export function flagsOf(tool: { annotations?: object; default?: boolean }): number {
  const { readOnly, destructive } = (tool.annotations ?? {}) as { readOnly?: boolean; destructive?: boolean };
  return (
    (readOnly === true ? FLAGS.readOnly : readOnly === false ? FLAGS.notReadOnly : 0) |
    (destructive === true ? FLAGS.destructive : destructive === false ? FLAGS.notDestructive : 0) |
    (tool.default ? FLAGS.default : 0)
  );
}
