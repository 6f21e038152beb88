/**
 * Loads modules as they load on a runtime without `node:crypto` (edge runtimes, browsers, Deno
 * without its Node layer): `src/util/node-crypto.ts` finds no `process.getBuiltinModule("node:crypto")`,
 * so the code falls back to WebCrypto. Each call gives fresh module instances; the modules the
 * test file imported statically keep their `node:crypto`.
 */
import { vi } from "vitest";

export async function importWithoutNodeCrypto<T>(load: () => Promise<T>): Promise<T> {
  const original = process.getBuiltinModule;
  vi.resetModules();
  const hidden = vi
    .spyOn(process, "getBuiltinModule")
    .mockImplementation(((id: string) => (id === "node:crypto" || id === "crypto" ? undefined : original(id))) as typeof original);
  try {
    const loaded = await load();
    const { nodeCrypto } = await import("../../src/util/node-crypto.js");
    if (nodeCrypto !== undefined) throw new Error("node:crypto was still found: the WebCrypto path is not what this loaded");
    return loaded;
  } finally {
    hidden.mockRestore();
    vi.resetModules();
  }
}
