import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { keyValueStore } from "tools-proxy";

/**
 * A ToolsStore in one JSON file. Every operation takes a lock file (created exclusively, so one
 * process at a time across all of them), reads the file and, when it changed something, writes it
 * back whole by rename.
 */
export function jsonFileStore(path: string) {
  const lock = `${path}.lock`;
  const locked = async <T>(work: (data: Record<string, string>) => T, writes: boolean): Promise<T> => {
    for (;;) {
      try {
        closeSync(openSync(lock, "wx"));
        break;
      } catch {
        // Another process holds it; a lock older than ten seconds was left by one that died.
        const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
        if (age > 10_000) rmSync(lock, { force: true });
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
    try {
      let data: Record<string, string> = {};
      try {
        data = JSON.parse(readFileSync(path, "utf8"));
      } catch {}
      const result = work(data);
      if (writes && result) {
        writeFileSync(`${path}.tmp`, JSON.stringify(data));
        renameSync(`${path}.tmp`, path);
      }
      return result;
    } finally {
      rmSync(lock, { force: true });
    }
  };
  const has = (data: Record<string, string>, key: string, expected?: string) =>
    Object.hasOwn(data, key) && (expected === undefined || data[key] === expected);
  return keyValueStore({
    get: (key) => locked((data) => (Object.hasOwn(data, key) ? data[key]! : null), false),
    insert: (key, value) =>
      locked((data) => {
        if (Object.hasOwn(data, key)) return false;
        data[key] = value;
        return true;
      }, true),
    replace: (key, expected, value) =>
      locked((data) => {
        if (!has(data, key, expected)) return false;
        data[key] = value;
        return true;
      }, true),
    delete: (key, expected) => locked((data) => has(data, key, expected) && delete data[key], true),
    list: (prefix) => locked((data) => Object.entries(data).filter(([key]) => key.startsWith(prefix)), false),
  });
}
