import { DatabaseSync } from "node:sqlite";
import { keyValueStore } from "tools-proxy";

/** A ToolsStore on one SQLite table of keys and values, shared by every process that opens the file. */
export function sqliteKeyValueStore(path: string) {
  const db = new DatabaseSync(path);
  db.exec(
    "PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
  );
  const changed = (sql: string, ...args: string[]) => Number(db.prepare(sql).run(...args).changes) > 0;
  return keyValueStore({
    get: (key) => (db.prepare("SELECT value FROM kv WHERE key = ?").get(key)?.value as string | undefined) ?? null,
    insert: (key, value) => changed("INSERT OR IGNORE INTO kv (key, value) VALUES (?, ?)", key, value),
    replace: (key, expected, value) => changed("UPDATE kv SET value = ? WHERE key = ? AND value = ?", value, key, expected),
    delete: (key, expected) =>
      expected === undefined
        ? changed("DELETE FROM kv WHERE key = ?", key)
        : changed("DELETE FROM kv WHERE key = ? AND value = ?", key, expected),
    // Keys that start with the prefix: a range on the primary key ("\uffff" sorts after every key part).
    list: (prefix) =>
      db
        .prepare("SELECT key, value FROM kv WHERE key >= ? AND key < ?")
        .all(prefix, `${prefix}\uffff`)
        .map((row) => [row.key as string, row.value as string]),
    close: () => db.close(),
  });
}
