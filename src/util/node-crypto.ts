/**
 * Node's and Bun's `node:crypto`, found without importing it so that the core still runs where it
 * is absent (Deno without the Node compatibility layer, browsers). Its synchronous hash and AES-GCM
 * skip the thread-pool round trip of an awaited `crypto.subtle` call, which costs more than the
 * work; callers fall back to `crypto.subtle` when this is undefined.
 */
export const nodeCrypto = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(
  "node:crypto",
) as NodeCrypto | undefined;

interface GcmCipher {
  setAAD(data: Uint8Array): this;
  update(data: Uint8Array): Uint8Array;
  final(): Uint8Array;
}

/** A `node:crypto` KeyObject: made once, so each cipher call skips importing the raw key. */
export interface NodeKeyObject {
  readonly type: "secret";
}

/** The part of `node:crypto` the core uses. */
export interface NodeCrypto {
  createHash(algorithm: string): { update(data: string): { digest(encoding: "hex"): string } };
  createSecretKey(key: Uint8Array): NodeKeyObject;
  createCipheriv(algorithm: "aes-256-gcm", key: NodeKeyObject, iv: Uint8Array): GcmCipher & { getAuthTag(): Uint8Array };
  createDecipheriv(algorithm: "aes-256-gcm", key: NodeKeyObject, iv: Uint8Array): GcmCipher & { setAuthTag(tag: Uint8Array): unknown };
}
