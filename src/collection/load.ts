import { existsSync, readFileSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { join } from "node:path";
import { defineToolkit, type Toolkit } from "../toolkits/define.js";
import { type JsonToolkitOptions, jsonToolkitParts } from "../toolkits/json.js";
import type { LazyTools, ToolSummary } from "../toolkits/lazy.js";
import {
  COLLECTION_FORMAT,
  COLLECTION_INDEX,
  COLLECTION_VERSION,
  type CollectionEntry,
  type CollectionIndex,
  FLAGS,
  type ToolRow,
} from "./format.js";

/** Whether `dir` holds a compiled collection (its index file). */
export function isCollection(dir: string): boolean {
  return existsSync(join(dir, COLLECTION_INDEX));
}

/**
 * The toolkits of the compiled collection in `dir` (see format.ts): the index is read and each
 * toolkit checked now, as `defineJsonToolkit` checks it (its `${NAME}` references replaced from
 * `options.env`); each tool is read from its file, checked and made when it is first used, alone
 * (`loadTool`) or with the toolkit's others (`load`). A TypeError names what is wrong.
 */
export function loadCollection(dir: string, options: JsonToolkitOptions = {}): Toolkit[] {
  const index = JSON.parse(readFileSync(join(dir, COLLECTION_INDEX), "utf8")) as CollectionIndex;
  if (index?.format !== COLLECTION_FORMAT || index.version !== COLLECTION_VERSION) {
    throw new TypeError(
      `${join(dir, COLLECTION_INDEX)} is not a collection this release reads (format ${COLLECTION_FORMAT}, version ${COLLECTION_VERSION}): ` +
        "compile it again with tools-proxy import openapi <documents...> --out <dir>.",
    );
  }
  return index.toolkits.map((entry) => collectionToolkit(dir, entry, options));
}

function collectionToolkit(dir: string, entry: CollectionEntry, options: JsonToolkitOptions): Toolkit {
  const { definition, makeTool } = jsonToolkitParts({ ...entry.toolkit, tools: [] }, options);
  const file = join(dir, entry.file);
  const position = new Map<string, number>();
  entry.tools.forEach((row, i) => {
    position.set(row[0], i);
  });
  const lazy: LazyTools = {
    count: entry.tools.length,
    summaries: entry.tools.map(summaryOf),
    async load() {
      const lines = (await readFile(file, "utf8")).split("\n");
      return entry.tools.map((_, i) => makeTool(JSON.parse(lines[i]!), i));
    },
    async loadTool(slug) {
      const i = position.get(slug);
      if (i === undefined) return undefined;
      return makeTool(JSON.parse(await readRange(file, entry.tools[i]!)), i);
    },
  };
  return defineToolkit({ ...definition, tools: [], lazy });
}

function summaryOf([slug, name, description, flags]: ToolRow): ToolSummary {
  return {
    slug,
    name,
    description,
    ...(flags & (FLAGS.readOnly | FLAGS.notReadOnly) ? { readOnly: (flags & FLAGS.readOnly) !== 0 } : {}),
    ...(flags & (FLAGS.destructive | FLAGS.notDestructive) ? { destructive: (flags & FLAGS.destructive) !== 0 } : {}),
    ...(flags & FLAGS.default ? { default: true } : {}),
  };
}

/** The text of one tool's line. */
async function readRange(file: string, [, , , , offset, length]: ToolRow): Promise<string> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, offset);
    if (bytesRead !== length) throw new TypeError(`${file} is shorter than the collection's index says: compile the collection again.`);
    return buffer.toString("utf8");
  } finally {
    await handle.close();
  }
}
