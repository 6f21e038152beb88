import { closeSync, mkdirSync, openSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import {
  COLLECTION_FORMAT,
  COLLECTION_INDEX,
  COLLECTION_VERSION,
  type CollectionEntry,
  type CollectionIndex,
  flagsOf,
  type ToolRow,
} from "./format.js";

/** A toolkit's JSON form, as `importOpenApi` makes it. */
interface JsonToolkitForm {
  slug: string;
  tools: ReadonlyArray<{ slug: string; name: string; description: string; annotations?: object; default?: boolean }>;
}

/**
 * Writes a compiled collection into `dir` (see format.ts), one toolkit at a time: `add` writes the
 * toolkit's tools file at once and keeps only its index row, so a collection of a hundred
 * thousand tools is written without holding them; `finish` writes the index. Refuses a toolkit
 * slug or a tool slug already added (the caller picks another slug).
 */
export function createCollectionWriter(dir: string) {
  mkdirSync(join(dir, "tools"), { recursive: true });
  const entries: CollectionEntry[] = [];
  const toolkitSlugs = new Set<string>();
  const toolSlugs = new Set<string>();
  return {
    /** Whether `slug` is free, and the toolkit's tool slugs too. */
    fits(toolkit: JsonToolkitForm): boolean {
      return !toolkitSlugs.has(toolkit.slug) && !toolkit.tools.some((tool) => toolSlugs.has(tool.slug));
    },
    add(toolkit: JsonToolkitForm): void {
      if (!this.fits(toolkit)) throw new TypeError(`The collection already has the toolkit "${toolkit.slug}" or one of its tool slugs.`);
      const { tools, ...rest } = toolkit;
      const file = `tools/${toolkit.slug}.jsonl`;
      const rows: ToolRow[] = [];
      const fd = openSync(join(dir, `${file}.tmp`), "w");
      try {
        let offset = 0;
        for (const tool of tools) {
          const line = Buffer.from(`${JSON.stringify(tool)}\n`);
          writeSync(fd, line);
          rows.push([tool.slug, tool.name, tool.description, flagsOf(tool), offset, line.length - 1]);
          offset += line.length;
          toolSlugs.add(tool.slug);
        }
      } finally {
        closeSync(fd);
      }
      renameSync(join(dir, `${file}.tmp`), join(dir, file));
      toolkitSlugs.add(toolkit.slug);
      entries.push({ toolkit: rest as Record<string, unknown>, file, tools: rows });
    },
    /** Writes the index; the collection is complete (and `serve` reads it) from then on. */
    finish(): { toolkits: number; tools: number } {
      const index: CollectionIndex = { format: COLLECTION_FORMAT, version: COLLECTION_VERSION, toolkits: entries };
      writeFileSync(join(dir, `${COLLECTION_INDEX}.tmp`), JSON.stringify(index));
      renameSync(join(dir, `${COLLECTION_INDEX}.tmp`), join(dir, COLLECTION_INDEX));
      return { toolkits: entries.length, tools: toolSlugs.size };
    },
  };
}
