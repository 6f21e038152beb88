import { fromBase64Url, randomBytes, toBase64Url } from "../util/encoding.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Encrypts credentials at rest with AES-256-GCM. Each value gets a fresh 96-bit IV, and the
 * caller's `associatedData` (the connection id) is authenticated with it, so a ciphertext moved to
 * another row fails to decrypt. The output names the key that wrote it, so secrets can rotate.
 */
export interface CredentialCipher {
  encrypt(plaintext: string, associatedData: string): Promise<string>;
  /** Throws when the value was tampered with, moved to another row, or written by an unknown key. */
  decrypt(ciphertext: string, associatedData: string): Promise<string>;
}

interface KeyEntry {
  id: string;
  key: CryptoKey;
}

/**
 * Creates the cipher from one secret or a list of them: the first encrypts, all of them decrypt.
 * To rotate, put the new secret first and keep the old ones until every row has been rewritten.
 * Format: `v1.<keyId>.<iv>.<ciphertext>` in base64url.
 */
export function createCredentialCipher(secrets: string | string[]): CredentialCipher {
  const list = [secrets].flat();
  if (list.length === 0) throw new TypeError("createCredentialCipher needs at least one secret.");
  const keys = Promise.all(list.map(deriveKey));

  return {
    async encrypt(plaintext, associatedData) {
      const [current] = await keys;
      const iv = randomBytes(12);
      const sealed = await crypto.subtle.encrypt(
        { name: "AES-GCM", iv, additionalData: encoder.encode(associatedData) },
        current!.key,
        encoder.encode(plaintext),
      );
      return `v1.${current!.id}.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`;
    },
    async decrypt(ciphertext, associatedData) {
      const fields = ciphertext.split(".");
      const [version, keyId, iv, body] = fields;
      if (fields.length !== 4 || version !== "v1" || !keyId || !iv || !body) throw new Error("Unrecognised credential ciphertext.");
      const ivBytes = decodeCanonical(iv);
      const bodyBytes = decodeCanonical(body);
      if (ivBytes.length !== 12 || bodyBytes.length < 16) throw new Error("Unrecognised credential ciphertext.");
      const entry = (await keys).find((k) => k.id === keyId);
      if (!entry) throw new Error(`No secret with key id ${keyId} is configured; add the old secret to decrypt it.`);
      const opened = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: ivBytes, additionalData: encoder.encode(associatedData) },
        entry.key,
        bodyBytes,
      );
      return decoder.decode(opened);
    },
  };
}

async function deriveKey(secret: string): Promise<KeyEntry> {
  const material = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey", "deriveBits"]);
  const hkdf = (info: string) => ({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(info) });
  const key = await crypto.subtle.deriveKey(hkdf("tools-proxy credentials v1"), material, { name: "AES-GCM", length: 256 }, false, [
    "encrypt",
    "decrypt",
  ]);
  // The key id is derived separately so that it reveals nothing about the encryption key.
  const idBits = await crypto.subtle.deriveBits(hkdf("tools-proxy key id v1"), material, 48);
  return { id: toBase64Url(new Uint8Array(idBits)), key };
}

/** Strict base64url (URL-safe alphabet, no padding, unused bits zero), so one ciphertext has one spelling. */
function decodeCanonical(part: string): Uint8Array<ArrayBuffer> {
  const bytes = /^[A-Za-z0-9_-]+$/.test(part) && part.length % 4 !== 1 ? fromBase64Url(part) : null;
  if (!bytes || toBase64Url(bytes) !== part) throw new Error("Unrecognised credential ciphertext.");
  return bytes;
}
