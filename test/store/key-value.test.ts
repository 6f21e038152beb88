/**
 * `keyValueStore`: a ToolsStore made of five primitives passes the whole conformance suite, on a
 * Map in memory and, as two processes would use them, on the two example stores built that way
 * (a JSON file with a lock file, a SQLite table), each raced across two instances.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { jsonFileStore } from "../../examples/stores/json-file.js";
import { sqliteKeyValueStore } from "../../examples/stores/sqlite-kv.js";
import { type KeyValuePrimitives, keyValueStore } from "../../src/index.js";
import { toolsStoreConformance } from "../../src/testing/tools-store.js";

/** The primitives on a Map: atomic because each runs to its end without awaiting. */
function mapPrimitives(): KeyValuePrimitives {
  const data = new Map<string, string>();
  const has = (key: string, expected?: string) => data.has(key) && (expected === undefined || data.get(key) === expected);
  return {
    get: (key) => data.get(key) ?? null,
    insert: (key, value) => !data.has(key) && Boolean(data.set(key, value)),
    replace: (key, expected, value) => has(key, expected) && Boolean(data.set(key, value)),
    delete: (key, expected) => has(key, expected) && data.delete(key),
    list: (prefix) => [...data].filter(([key]) => key.startsWith(prefix)),
  };
}

const directory = mkdtempSync(join(tmpdir(), "tp-kv-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

toolsStoreConformance("keyValueStore on a Map", () => keyValueStore(mapPrimitives()));
toolsStoreConformance("examples/stores/json-file.ts", () => jsonFileStore(join(directory, "store.json")), { instances: 2 });
toolsStoreConformance("examples/stores/sqlite-kv.ts", () => sqliteKeyValueStore(join(directory, "store.db")), { instances: 2 });
